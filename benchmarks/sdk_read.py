"""What the SDK costs to read a room's move answer, beside parsing the same bytes alone.

A real answer is made first: `accord serve`'s app in process, on SQLite in a temp dir, one
room countered `--moves` times (by 50 moves its view holds the most it ever shows). Then, in
the same run, on those bytes:

- the references: `json.loads` and `orjson.loads`, the parse any client pays;
- the SDK: what `Accord` does with a move's response (`json_of`, then the `Applied` model
  with every nested model keeping the JSON it was read from).

It prints µs a read for each and the SDK's time over `orjson.loads`.

    .venv/bin/python benchmarks/sdk_read.py [--moves 60] [--reads 2000] [--json]
"""

import argparse
import asyncio
import json
import logging
import shutil
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path

import httpx
import orjson
from move_instructions import call, open_rooms
from rooms_throughput import counter

from accord.app.settings import Settings
from accord.sdk import Applied
from accord.sdk._base import json_of
from accord.serve import create_server


async def an_answer(moves: int) -> bytes:
    """The body of a room's move answer after `moves` counters."""
    data_dir = Path(tempfile.mkdtemp(prefix="accord-bench-"))
    try:
        app = create_server(Settings(data_dir=data_dir))
        async with app.router.lifespan_context(app):
            (room,) = await open_rooms(app, 1)
            await room.moves(app, moves - 1)
            token = room.tokens[room.count % 2]
            path = f"/v1/rooms/{room.room_id}/moves"
            status, body = await call(app, path, token, counter(room.count + 1, room.seq))
            if status != 200:
                raise SystemExit(f"move refused {status}: {body[:300]!r}")
            return body
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def per_read(fn: Callable[[], object], reads: int) -> float:
    """µs a call, the best of five runs of `reads` calls."""
    return min(timeit.repeat(fn, number=reads, repeat=5)) / reads * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--moves", type=int, default=60, help="counters before the answer read")
    parser.add_argument("--reads", type=int, default=2000, help="reads per timing run")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()
    if args.moves < 1 or args.reads < 1:
        raise SystemExit("--moves and --reads must be at least 1")
    logging.disable(logging.INFO)  # the server's start-up and access lines: not what is measured
    body = asyncio.run(an_answer(args.moves))
    response = httpx.Response(200, content=body, headers={"content-type": "application/json"})
    read = Applied.model_validate(json_of(response))
    if read.to_json() != json.loads(body):
        raise SystemExit("the SDK did not keep the answer as it was sent")
    results = {
        "answer_bytes": len(body),
        "moves_shown": len(read.room.moves),
        "json_loads_us": per_read(lambda: json.loads(body), args.reads),
        "orjson_loads_us": per_read(lambda: orjson.loads(body), args.reads),
        "sdk_read_us": per_read(lambda: Applied.model_validate(json_of(response)), args.reads),
    }
    results["sdk_over_orjson"] = results["sdk_read_us"] / results["orjson_loads_us"]
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"a move's answer: {results['answer_bytes']:,} bytes, {results['moves_shown']} moves")
    for name in ("json_loads_us", "orjson_loads_us", "sdk_read_us"):
        print(f"{name.removesuffix('_us'):<14}{results[name]:9.1f} µs a read")
    print(f"SDK read ÷ orjson.loads  {results['sdk_over_orjson']:.2f}")


if __name__ == "__main__":
    main()

"""`accord serve` with the group-commit writer counted: batch sizes and where its time goes.

Used by `rooms_throughput.py --writer-stats`; runs the server in this process after wrapping
`Writer._commit` (nothing in `accord/` changes). SIGUSR1 resets the counters, SIGUSR2 writes
them as JSON to the `--stats` file (and so does a normal exit). `--switch-interval S` sets
`sys.setswitchinterval(S)` first (an experiment: how long the writer thread waits for the GIL).

    python benchmarks/instrumented_serve.py --stats stats.json [--switch-interval S] \
        serve --data-dir D --port P
"""

import atexit
import json
import signal
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from sqlalchemy.engine.default import DefaultDialect

from accord.cli.main import main as accord_main
from accord.store.writer import Writer


class WriterStats:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reset()

    def reset(self, *_: object) -> None:
        with self.lock:
            self.started = time.perf_counter()
            self.sizes: Counter[int] = Counter()
            self.batch_seconds = 0.0
            self.work_seconds = 0.0
            self.cpu_seconds = 0.0
            self.commit_seconds = 0.0
            self.commit_cpu_seconds = 0.0
            self.items = 0

    def record(self, size: int, total: float, work: float, cpu: float) -> None:
        with self.lock:
            self.cpu_seconds += cpu
            self.sizes[size] += 1
            self.batch_seconds += total
            self.work_seconds += work
            self.items += size

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            wall = time.perf_counter() - self.started
            batches = sum(self.sizes.values())
            return {
                "wall_seconds": wall,
                "batches": batches,
                "items": self.items,
                "mean_batch": self.items / batches if batches else 0.0,
                "batch_sizes": {str(k): v for k, v in sorted(self.sizes.items())},
                "busy_fraction": self.batch_seconds / wall if wall else 0.0,
                "work_ms_per_item": 1000 * self.work_seconds / self.items if self.items else 0.0,
                "cpu_ms_per_item": 1000 * self.cpu_seconds / self.items if self.items else 0.0,
                "commit_wall_ms": 1000 * self.commit_seconds / batches if batches else 0.0,
                "commit_cpu_ms": 1000 * self.commit_cpu_seconds / batches if batches else 0.0,
                "commit_ms_per_batch": (
                    1000 * (self.batch_seconds - self.work_seconds) / batches if batches else 0.0
                ),
            }


STATS = WriterStats()
_original_commit = Writer._commit


def _counted_commit(self: Writer, batch: list[Any]) -> None:
    work = [0.0]

    def timed(fn: Any) -> Any:
        def run(connection: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(connection)
            finally:
                work[0] += time.perf_counter() - t0

        return run

    t0, c0 = time.perf_counter(), time.thread_time()
    _original_commit(self, [(timed(fn), future) for fn, future in batch])
    STATS.record(len(batch), time.perf_counter() - t0, work[0], time.thread_time() - c0)


def _timed_do_commit(self: Any, dbapi_connection: Any) -> None:
    t0, c0 = time.perf_counter(), time.thread_time()
    dbapi_connection.commit()
    if threading.current_thread().name == "accord-writer":
        with STATS.lock:
            STATS.commit_seconds += time.perf_counter() - t0
            STATS.commit_cpu_seconds += time.thread_time() - c0


def main() -> None:
    args = sys.argv[1:]
    if len(args) < 2 or args[0] != "--stats":
        raise SystemExit("usage: instrumented_serve.py --stats FILE serve [accord serve options]")
    stats_file = Path(args[1])
    args = args[2:]
    if args[:1] == ["--switch-interval"]:
        sys.setswitchinterval(float(args[1]))
        args = args[2:]

    def dump(*_: object) -> None:
        partial = stats_file.with_suffix(".tmp")
        partial.write_text(json.dumps(STATS.snapshot(), indent=2))
        partial.replace(stats_file)

    Writer._commit = _counted_commit  # type: ignore[method-assign]
    DefaultDialect.do_commit = _timed_do_commit  # type: ignore[method-assign]
    signal.signal(signal.SIGUSR1, STATS.reset)
    signal.signal(signal.SIGUSR2, dump)
    atexit.register(dump)
    sys.argv = ["accord", *args]
    accord_main()


if __name__ == "__main__":
    main()

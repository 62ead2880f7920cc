"""What checking the server-kept invariants costs per buyer move, early and late in a long
session, through the pure protocol: the whole-log check (what every move paid when the server
re-read and re-checked its log) beside the step check (`ArbitratedTable.broken_invariants`).

One run, in process, no server and no store:

1. a session on a 100-round policy whose floor binds above the buyer's price, so that every
   buyer offer is countered until round 100 (`ArbitratedTable` on `accord.core.step.Log`);
2. after each buyer move, each check is run `--repeat` times on that move's state and log and
   the fastest run is kept: the whole-log check `invariants(state, log)`; the same with the log
   parsed again from its canonical bytes first (as the server read it: `parse_canonical` and
   `Envelope.from_json` per envelope, no SQL); and the step check
   `broken_invariants(before, after, appended)`;
3. prints the mean per move over rounds 1 to 10 and 91 to 100 for each, and how much the late
   rounds cost against the early ones (flat is 1.0); `--json` prints the same as JSON.

Run: `.venv/bin/python benchmarks/invariant_cost.py` (about a minute).
"""

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from typing import Any, Final

from accord.core.envelope import Envelope
from accord.core.jsonio import canonical, parse_canonical
from accord.core.step import Log
from accord.protocols.arbitrated import decide
from accord.protocols.arbitrated.invariants import broken_invariants, invariants
from accord.protocols.arbitrated.moves import OfferMove, OpenSessionRequest
from accord.protocols.arbitrated.policy import Policy, policy_problems
from accord.protocols.arbitrated.state import SessionState
from accord.protocols.arbitrated.table import ArbitratedTable

ROUNDS: Final = 100
WINDOWS: Final = {"rounds 1-10": range(1, 11), "rounds 91-100": range(91, 101)}
ENTROPY: Final = bytes(32)
BUYER_PRICE: Final = 41000  # fair (fair_low is 39905), below the floor, so never accepted
POLICY: Final = Policy.model_validate(
    dict(
        sku="BENCH-100",
        description="A long negotiation",
        currency="EUR",
        list_price_minor=49900,
        reference_price_minor=41900,
        floor_minor=42000,  # above fair_low: the reservation, and above every buyer offer
        inclusions=[],
        concession={"style": "linear"},
        max_rounds=ROUNDS,
        round_timeout_seconds=86_400,
        fair_band="0.05",
        handoff={
            "kind": "discount_code",
            "checkout_url": "https://shop.example.com/checkout",
            "ttl_seconds": 3600,
            "publish": "automatic",
        },
        active=True,
    )
)
CHECKS: Final = ("whole log", "whole log, parsed again", "step")


def fastest(check: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        check()
        best = min(best, time.perf_counter() - began)
    return best


def parsed_and_checked(state: SessionState, bodies: list[bytes]) -> dict[str, bool]:
    parsed = [Envelope.from_json(parse_canonical(body)) for body in bodies]
    return invariants(state, parsed)


def measure(repeat: int) -> dict[str, dict[int, float]]:
    """Seconds per check after each buyer move, by round."""
    assert policy_problems(POLICY) == {}, policy_problems(POLICY)
    log: Log[SessionState] = Log(ArbitratedTable("https://accord.test"), datetime.now(UTC))
    opening = decide.open_session(
        OpenSessionRequest.model_validate(
            {"sku": POLICY.sku, "buyer": {"agent_id": "bench", "declared": {"max_rounds": ROUNDS}}}
        ),
        POLICY,
        session_id="ses_bench",
        tenant_id="ten_bench",
        mode="test",
        nonce="bench-nonce",
        now=log.now,
    )
    log.record(opening)
    bodies = [canonical(e.to_json()) for e in log.envelopes]
    seconds: dict[str, dict[int, float]] = {name: {} for name in CHECKS}
    offer = OfferMove(type="offer", price_minor=BUYER_PRICE)
    for _ in range(ROUNDS):
        before, length = log.current, len(log.envelopes)
        log.decide(offer, "buyer", entropy=ENTROPY)
        after, appended = log.current, log.envelopes[length:]
        bodies += [canonical(e.to_json()) for e in appended]
        envelopes = list(log.envelopes)
        assert broken_invariants(before, after, appended) == []
        assert all(invariants(after, envelopes).values())

        round_ = after.round
        checks: dict[str, Callable[[], object]] = {
            "whole log": partial(invariants, after, envelopes),
            "whole log, parsed again": partial(parsed_and_checked, after, list(bodies)),
            "step": partial(broken_invariants, before, after, appended),
        }
        for name, check in checks.items():
            seconds[name][round_] = fastest(check, repeat)
    assert log.current.round == ROUNDS and not log.current.is_final, "every offer countered"
    return seconds


def summarize(seconds: dict[str, dict[int, float]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, by_round in seconds.items():
        means = {w: statistics.fmean(by_round[r] for r in rs) * 1e3 for w, rs in WINDOWS.items()}
        early, late = means.values()
        out[name] = {"ms_per_move": means, "late_over_early": late / early}
    step = out["step"]["ms_per_move"]
    for name in CHECKS[:2]:
        whole = out[name]["ms_per_move"]
        out[name]["over_step"] = {w: whole[w] / step[w] for w in WINDOWS}
    return out


def report(summary: dict[str, Any], repeat: int) -> str:
    early, late = WINDOWS
    header = f"{'check, per buyer move':<28}{early + ' ms':>17}{late + ' ms':>18}{'late/early':>12}"
    lines = [header, "-" * len(header)]
    for name in CHECKS:
        row = summary[name]
        ms = row["ms_per_move"]
        lines.append(
            f"{name:<28}{ms[early]:>17.4f}{ms[late]:>18.4f}{row['late_over_early']:>12.2f}"
        )
    lines.append("")
    for name in CHECKS[:2]:
        ratio = summary[name]["over_step"]
        lines.append(f"{name} ÷ step: {ratio[early]:.1f}× in {early}, {ratio[late]:.1f}× in {late}")
    lines.append(
        f"(the fastest of {repeat} runs per move, averaged over the window's 10 buyer moves; "
        f"a {ROUNDS}-round policy, every buyer offer countered; Python {sys.version.split()[0]})"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=5, help="runs of each check per move")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    summary = summarize(measure(args.repeat))
    if args.json:
        print(json.dumps({"repeat": args.repeat, "rounds": ROUNDS, "checks": summary}, indent=2))
    else:
        print(report(summary, args.repeat))


if __name__ == "__main__":
    main()

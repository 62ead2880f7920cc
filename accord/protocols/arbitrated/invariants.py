"""The invariants I1 to I7 of spec/arbitrated-rest.md: over a whole log for the receipt, and
step by step for the ones the server keeps, against what the state already holds, so that a
move costs the same in round 100 as in round 1.

Both read a run of envelopes with the same rules (`_broken_in_run`); a step's run starts where
its state ends (its `seq`, each side's last net price), a log's at the beginning."""

from collections.abc import Mapping, Sequence
from typing import Any, Final

from accord.core.chain import ChainError, links_on, verify_chain
from accord.core.commit import is_opening
from accord.core.envelope import Envelope
from accord.protocols.arbitrated.arbiter import evaluate
from accord.protocols.arbitrated.state import BUYER, Phase, SessionState

OFFERS: Final = frozenset({"offer.propose", "offer.counter"})
I1: Final = "I1_bounded_rounds"
I2: Final = "I2_same_public_information"
I3: Final = "I3_commitments_unchanged"
I4: Final = "I4_monotonic_concession"
I5: Final = "I5_verdict_for_every_offer"
I6: Final = "I6_signed_artifact"
I7: Final = "I7_hash_chain"
SERVER_KEPT: Final = (I1, I2, I4, I5, I7)
"""Kept on every step: a step that breaks one is a fault of the server's, never recorded. I3
is the revealing party's to keep and I6 is kept by signing, so both are reported instead."""


def _broken_in_run(
    state: SessionState, run: Sequence[Envelope], last_t: Mapping[str, int]
) -> set[str]:
    """I1, I2, I4 and I5 in `run`, given each side's last scored net price before it: every
    offer's round within the rules; an evaluation right after every offer, equal to the
    arbiter's score of it from the attested inputs; the buyer's net price never falling and
    the merchant's never rising."""
    broken: set[str] = set()
    last = dict(last_t)
    for index, offer in enumerate(run):
        if offer.type not in OFFERS:
            continue
        if offer.payload["round"] > state.max_rounds:
            broken.add(I1)
        if index + 1 >= len(run) or run[index + 1].type != "arbitration.evaluate":
            broken.add(I5)
            continue
        rescored = evaluate(state, offer.payload["terms"])
        evaluated = run[index + 1].payload
        if (rescored.verdict, rescored.fairness_score, rescored.t_minor) != (
            evaluated["verdict"],
            evaluated["fairness_score"],
            evaluated["t_minor"],
        ):
            broken.add(I2)
        role, t = offer.sender["role"], rescored.t_minor
        if t is None:
            continue
        if role in last and (t < last[role] if role == BUYER else t > last[role]):
            broken.add(I4)
        last[role] = t
    return broken


def last_net_prices(state: SessionState) -> dict[str, int]:
    """Each side's last scored net price `t`, as the state keeps it for I4."""
    last = {"buyer": state.buyer_last_t, "merchant": state.merchant_last_t}
    return {role: t for role, t in last.items() if t is not None}


def broken_invariants(
    before: SessionState | None, after: SessionState, appended: Sequence[Envelope]
) -> list[str]:
    """The server-kept invariants a step that appends `appended` to `before`'s log would
    break, in `SERVER_KEPT` order. Reads only the step's own envelopes: the rules and the
    attested inputs never change after the open, and `before` holds where its log ends."""
    seq = 0 if before is None else before.seq + 1
    last_t = {} if before is None else last_net_prices(before)
    broken = _broken_in_run(after, appended, last_t)
    if not links_on(appended, seq=seq):
        broken.add(I7)
    return [name for name in SERVER_KEPT if name in broken]


def invariants(state: SessionState, log: Sequence[Envelope]) -> dict[str, bool]:
    """I1 bounded rounds; I2 every offer scored from the same attested inputs whoever made it
    (re-scored here); I3 commitments unchanged (every reveal opens its commitment); I4 the
    buyer's net price never falls and the merchant's never rises; I5 a verdict right after
    every offer; I6 an agreement only with the arbiter's signature (set when signing); I7 the
    hash chain."""
    try:
        verify_chain([e.to_json() for e in log])
        chain_ok = True
    except ChainError:
        chain_ok = False
    broken = _broken_in_run(state, log, {})
    commitments = state.commitments
    reveals_match = all(is_opening(commitments[r["party"]], r["private"]) for r in state.reveals)
    return {
        I1: I1 not in broken,
        I2: I2 not in broken,
        I3: reveals_match,
        I4: I4 not in broken,
        I5: I5 not in broken,
        I6: state.phase is not Phase.AGREED,
        I7: chain_ok,
    }


def reveals_of(state: SessionState) -> list[dict[str, Any]]:
    """The reveals as a receipt lists them: each with its commitment and whether it opens it."""
    commitments = state.commitments
    return [
        {
            "party": r["party"],
            "commitment": commitments[r["party"]],
            "matches": is_opening(commitments[r["party"]], r["private"]),
            "private": r["private"],
        }
        for r in state.reveals
    ]

"""Folding a session's envelopes into its state; `apply_private` for the merchant's records
(its policy at open and its commitment's nonce) and the reveals after the end."""

from collections.abc import Iterable, Mapping
from typing import Any

from accord.core.envelope import Envelope
from accord.core.protocol import fold
from accord.protocols.arbitrated.state import (
    MerchantPrivate,
    Phase,
    SessionState,
    Standing,
    VerdictRecord,
)


def apply(state: SessionState | None, envelope: Envelope) -> SessionState:
    payload = envelope.payload
    if envelope.type == "session.accept":
        assert state is None, "session.accept opens the log"
        return SessionState(
            session_id=payload["session_id"],
            sku=payload["sku"],
            created_at=envelope.ts,
            updated_at=envelope.ts,
            seq=envelope.seq,
            rules=payload["session_rules"],
            attested=payload["attested"],
            parties=payload["parties"],
            turn_started_at=envelope.ts,
        )
    assert state is not None, "a session's log starts with session.accept"
    base: dict[str, Any] = {"seq": envelope.seq, "updated_at": envelope.ts}
    match envelope.type:
        case "offer.propose" | "offer.counter":
            role = envelope.sender["role"]
            standing = Standing(
                proposer=role,
                round=payload["round"],
                terms=payload["terms"],
                t_minor=None,
                w_minor=None,
            )
            turn = role == "merchant"
            return state.model_copy(
                update=base
                | {
                    "offer_on_table": standing,
                    "round": max(state.round, payload["round"]),
                    "your_turn": turn,
                    "phase": Phase.NEGOTIATING,
                    "turn_started_at": envelope.ts if turn else state.turn_started_at,
                }
            )
        case "arbitration.evaluate":
            return _evaluated(state, payload, base)
        case "arbitration.reject":
            verdicts = state.verdicts
            if verdicts:
                verdicts = (*verdicts[:-1], verdicts[-1].model_copy(update={"outcome": "rejected"}))
            return state.model_copy(
                update=base
                | {
                    "verdicts": verdicts,
                    "offer_on_table": None,
                    "phase": Phase.CORRECTIVE,
                    "your_turn": True,
                    "turn_started_at": envelope.ts,
                }
            )
        case "session.agree":
            verdicts = state.verdicts
            if verdicts:
                verdicts = (*verdicts[:-1], verdicts[-1].model_copy(update={"outcome": "accepted"}))
            return state.model_copy(
                update=base
                | {
                    "phase": Phase.AGREED,
                    "your_turn": False,
                    "final_terms": payload["final_terms"],
                    "accepted_by": payload["accepted_by"],
                    "verdicts": verdicts,
                }
            )
        case "session.close":
            verdicts = state.verdicts
            if payload["reason"] == "unfair_offers" and verdicts:
                # The refused corrective offer: the arbiter refused it by closing the session.
                verdicts = (*verdicts[:-1], verdicts[-1].model_copy(update={"outcome": "rejected"}))
            return state.model_copy(
                update=base
                | {
                    "verdicts": verdicts,
                    "phase": Phase.CLOSED,
                    "your_turn": False,
                    "close": {"reason": payload["reason"], "detail": payload.get("detail")},
                }
            )
    raise AssertionError(f"unknown session envelope type {envelope.type!r}")


def _evaluated(
    state: SessionState, payload: Mapping[str, Any], base: dict[str, Any]
) -> SessionState:
    standing = state.offer_on_table
    assert standing is not None, "the arbiter evaluates the offer just made"
    verdict = payload["verdict"]
    record = VerdictRecord(
        round=payload["round"],
        verdict=verdict,
        fairness_score=payload.get("fairness_score"),
        price_minor=payload["price_minor"],
        outcome="unenforced" if verdict == "unscoreable" else "pending",
        proposer=standing.proposer,
    )
    t_minor, w_minor = payload.get("t_minor"), payload.get("w_minor")
    update = base | {
        "verdicts": (*state.verdicts, record),
        "offer_on_table": standing.model_copy(update={"t_minor": t_minor, "w_minor": w_minor}),
    }
    if t_minor is not None:
        key = "buyer_last_t" if standing.proposer == "buyer" else "merchant_last_t"
        update[key] = t_minor
    return state.model_copy(update=update)


def apply_private(state: SessionState, party: str, envelope: Envelope) -> SessionState:
    payload = envelope.payload
    match envelope.type:
        case "merchant.context":
            return state.model_copy(update={"merchant": MerchantPrivate.model_validate(payload)})
        case "party.reveal":
            return state.model_copy(update={"reveals": (*state.reveals, dict(payload))})
        case "handoff.published":
            return state.model_copy(update={"handoff": dict(payload)})
        case "handoff.awaited":
            return state
    raise AssertionError(f"unknown private record type {envelope.type!r} of {party}")


def replay(public: Iterable[Envelope], private: Iterable[tuple[str, Envelope]]) -> SessionState:
    state = fold(apply, None, public)
    if state is None:
        raise ValueError("a session's log cannot be empty")
    for party, record in private:
        state = apply_private(state, party, record)
    return state

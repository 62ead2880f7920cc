"""An arbitrated session's receipt, made from its log (receipts.md; the schema's Receipt), with
the invariants I1 to I7 of spec/arbitrated-rest.md checked on the log itself."""

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from accord.core.chain import ChainError, verify_chain
from accord.core.commit import commit, is_opening
from accord.core.envelope import Envelope
from accord.protocols.arbitrated import fairness
from accord.protocols.arbitrated.state import OANP_VERSION, PROTOCOL, Phase, SessionState
from accord.trust.receipts import ReceiptBody, log_binding, report_hash

OFFERS = ("offer.propose", "offer.counter")


def attested_of(state: SessionState) -> fairness.Attested:
    attested = state.attested
    return fairness.Attested(
        currency=attested["t_target"]["currency"],
        t_target_minor=attested["t_target"]["amount_minor"],
        inclusion_values={k: v["amount_minor"] for k, v in attested["inclusion_values"].items()},
    )


def utilities_of(state: SessionState) -> dict[str, Decimal]:
    return {k: Decimal(v) for k, v in state.buyer_utilities.items()}


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
    offers = [(i, e) for i, e in enumerate(log) if e.type in OFFERS]
    bounded = all(e.payload["round"] <= state.max_rounds for _, e in offers)
    scored = all(i + 1 < len(log) and log[i + 1].type == "arbitration.evaluate" for i, _ in offers)
    same_inputs, monotonic = True, True
    last_t: dict[str, int] = {}
    attested, utilities = attested_of(state), utilities_of(state)
    band = Decimal(state.rules["fair_band"])
    for i, offer in offers:
        if i + 1 >= len(log) or log[i + 1].type != "arbitration.evaluate":
            continue
        terms = offer.payload["terms"]
        rescored = fairness.score(
            state.rules["fairness_profile"],
            price_minor=terms["price"]["amount_minor"],
            currency=terms["price"]["currency"],
            inclusions=[item["kind"] for item in terms.get("inclusions", [])],
            utilities=utilities,
            attested=attested,
            band=band,
        )
        evaluated = log[i + 1].payload
        same_inputs &= (
            rescored.verdict == evaluated["verdict"]
            and rescored.fairness_score == evaluated["fairness_score"]
            and rescored.t_minor == evaluated["t_minor"]
        )
        role, t = offer.sender["role"], rescored.t_minor
        if t is not None and role in last_t:
            monotonic &= t >= last_t[role] if role == "buyer" else t <= last_t[role]
        if t is not None:
            last_t[role] = t
    commitments = {
        "buyer": state.parties["buyer"]["commitment"],
        "merchant": state.parties["merchant"]["commitment"],
    }
    reveals_match = all(is_opening(commitments[r["party"]], r["private"]) for r in state.reveals)
    return {
        "I1_bounded_rounds": bounded,
        "I2_same_public_information": same_inputs,
        "I3_commitments_unchanged": reveals_match,
        "I4_monotonic_concession": monotonic,
        "I5_verdict_for_every_offer": scored,
        "I6_signed_artifact": state.phase is not Phase.AGREED,
        "I7_hash_chain": chain_ok,
    }


def reveals_of(state: SessionState) -> list[dict[str, Any]]:
    commitments = {
        "buyer": state.parties["buyer"]["commitment"],
        "merchant": state.parties["merchant"]["commitment"],
    }
    return [
        {
            "party": r["party"],
            "commitment": commitments[r["party"]],
            "matches": is_opening(commitments[r["party"]], r["private"]),
            "private": r["private"],
        }
        for r in state.reveals
    ]


def build_receipt(
    state: SessionState, log: Sequence[Envelope], *, arbiter_id: str, retention_days: int
) -> ReceiptBody:
    if not state.is_final:
        raise ValueError("only an ended session has a receipt")
    wire = [e.to_json() for e in log]
    rules = state.rules
    members: dict[str, Any] = {
        "oanp_version": OANP_VERSION,
        "session_id": state.session_id,
        "protocol": PROTOCOL,
        "state": str(state.phase),
        "enforcement": "arbitrated",
        "fairness_profile": rules["fairness_profile"],
        "rules": {
            "max_rounds": rules["max_rounds"],
            "round_timeout_seconds": rules["round_timeout_seconds"],
            "fairness_profile": rules["fairness_profile"],
            "audit_retention_days": retention_days,
            "fair_band": rules["fair_band"],
        },
        "attested": state.attested,
        "arbiter": {"agent_id": arbiter_id, "relationship": "independent"},
        "verdicts": [v.model_dump(mode="json", exclude={"proposer"}) for v in state.verdicts],
        "final_terms": state.final_terms,
        "invariants": invariants(state, log),
        "chain": {"head": commit(wire[-1]), "length": len(wire), "retention_days": retention_days},
        "mode": state.mode,
        "reveals": reveals_of(state),
    }
    if state.phase is not Phase.AGREED:
        return ReceiptBody(members, None)
    # I6: an agreement's receipt is the signed one; the report signed below says so.
    members["invariants"]["I6_signed_artifact"] = True
    agreed = log[-1].payload
    signed = {
        "final_terms": state.final_terms,
        "session": {
            "session_id": state.session_id,
            "oanp_version": OANP_VERSION,
            "protocol": PROTOCOL,
            "arbiter_agent_id": arbiter_id,
            "fairness_profile": rules["fairness_profile"],
            "rounds_completed": agreed["round"],
            **log_binding(wire),
            "report_hash": report_hash(members),
            "buyer_commitment": state.parties["buyer"]["commitment"],
            "merchant_commitment": state.parties["merchant"]["commitment"],
            "attested_source": state.attested["source"],
        },
    }
    return ReceiptBody(members, signed)

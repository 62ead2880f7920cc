"""An arbitrated session's receipt, made from its log (receipts.md; the schema's Receipt), with
the invariants I1 to I7 of spec/arbitrated-rest.md checked on the log itself."""

from collections.abc import Sequence
from typing import Any

from accord.core.commit import commit
from accord.core.envelope import Envelope
from accord.protocols.arbitrated.invariants import invariants as invariants
from accord.protocols.arbitrated.invariants import reveals_of as reveals_of
from accord.protocols.arbitrated.state import OANP_VERSION, PROTOCOL, Phase, SessionState
from accord.trust.receipts import ReceiptBody, log_binding, report_hash


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

"""An intro negotiation's receipt, made from its log alone (intro-api.md, Log and receipt;
receipts.md), so the same log always yields the same signed payload: the accepted proposal,
signed once at the `accept`; a closed negotiation's receipt is unsigned."""

from collections.abc import Sequence
from typing import Any, Final

from accord.core.chain import ChainError, verify_chain
from accord.core.commit import commit
from accord.core.envelope import Envelope
from accord.protocols.intro.invariants import invariants
from accord.protocols.intro.state import PROTOCOL, SEATS, Outcome
from accord.trust.receipts import ReceiptBody, log_binding, report_hash

OANP_VERSION: Final = "0.1"
ENDINGS: Final = {"negotiation.agreed": Outcome.AGREED, "negotiation.closed": Outcome.CLOSED}


def build_receipt(log: Sequence[Envelope], *, arbiter_id: str, retention_days: int) -> ReceiptBody:
    """The receipt of a settled negotiation. Raises ValueError for a log that has not ended."""
    if not log or log[-1].type not in ENDINGS:
        raise ValueError("only a settled negotiation has a receipt")
    wire = [e.to_json() for e in log]
    try:
        head = verify_chain(wire)
    except ChainError:
        head = commit(wire[-1])
    opened, last = log[0].payload, log[-1]
    outcome = ENDINGS[last.type]
    members: dict[str, Any] = {
        "oanp_version": OANP_VERSION,
        "session_id": opened["negotiation_id"],
        "protocol": PROTOCOL,
        "state": str(outcome),
        "enforcement": "bilateral",
        "arbiter": {"agent_id": arbiter_id, "relationship": "independent"},
        "verdicts": [],
        "final_terms": None,
        "invariants": invariants(log),
        "chain": {"head": head, "length": len(log), "retention_days": retention_days},
        "mode": "live",
        "reveals": [],
    }
    if outcome is Outcome.CLOSED:
        return ReceiptBody(members, None)
    final_terms = last.payload["final_terms"]
    members["final_terms"] = final_terms
    signed = {
        "final_terms": final_terms,
        "session": {
            "session_id": opened["negotiation_id"],
            "oanp_version": OANP_VERSION,
            "protocol": PROTOCOL,
            "arbiter_agent_id": arbiter_id,
            **log_binding(wire),
            "report_hash": report_hash(members),
            "opportunity_id": opened["opportunity_id"],
            "negotiation_id": opened["negotiation_id"],
            "seats": [str(s) for s in SEATS],
            "rounds_completed": log[-2].payload["round"],
        },
    }
    return ReceiptBody(members, signed)

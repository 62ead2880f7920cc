"""A room's receipt, made from its log alone (receipts.md, Receipt), so the same log always
yields the same signed payload. Signing is the trust layer's; this says what is signed: the
terms, the room, the whole log and the report (docs/receipts.md, What is signed)."""

from collections.abc import Sequence
from typing import Any, Final

from accord.core.chain import ChainError, verify_chain
from accord.core.commit import commit
from accord.core.envelope import Envelope
from accord.protocols.rooms.state import PROTOCOL, Status
from accord.trust.receipts import ReceiptBody, log_binding, report_hash

OANP_VERSION: Final = "0.1"
FINAL_TYPES: Final = frozenset({"room.agreed", "room.expired", "move.reject", "move.cancel"})


def _final_state(log: Sequence[Envelope]) -> Status:
    last = log[-1].type
    if last == "room.agreed":
        return Status.AGREED
    if last == "room.expired":
        return Status.EXPIRED
    return Status.CLOSED


def _approvals(log: Sequence[Envelope], subject_hash: str) -> list[dict[str, Any]]:
    """The approvals of the agreed terms since they were last put on the table."""
    approvals: list[dict[str, Any]] = []
    for envelope in log:
        if envelope.type in ("move.offer", "move.counter"):
            approvals = []
        elif envelope.type == "move.approve" and envelope.payload["subject_hash"] == subject_hash:
            approvals.append(
                {
                    "seat": envelope.sender["role"],
                    "subject_hash": subject_hash,
                    "seq": envelope.seq,
                    "via": envelope.sender["via"],
                }
            )
    return approvals


def build_receipt(log: Sequence[Envelope], *, arbiter_id: str, retention_days: int) -> ReceiptBody:
    """The receipt of a final room. Raises ValueError for a log that has not ended."""
    if not log or log[-1].type not in FINAL_TYPES:
        raise ValueError("only a final room has a receipt")
    wire = [e.to_json() for e in log]
    try:
        head = verify_chain(wire)
        chain_ok = True
    except ChainError:
        head, chain_ok = commit(wire[-1]), False
    opened, joined = log[0].payload, next((e for e in log if e.type == "room.joined"), None)
    commitments = {"opener": opened["opener_limits_commitment"]}
    if joined is not None:
        commitments["joiner"] = joined.payload["joiner_limits_commitment"]
    state = _final_state(log)
    finals = [e for e in log if e.type in FINAL_TYPES]
    members: dict[str, Any] = {
        "oanp_version": OANP_VERSION,
        "session_id": opened["room_id"],
        "protocol": PROTOCOL,
        "state": str(state),
        "enforcement": "bilateral",
        "arbiter": {"agent_id": arbiter_id, "relationship": "independent"},
        "verdicts": [],
        "final_terms": None,
        "chain": {"head": head, "length": len(log), "retention_days": retention_days},
        "mode": "live",
        "reveals": [],
    }
    approvals = _approvals(log, log[-1].payload["subject_hash"]) if state is Status.AGREED else []
    members["invariants"] = {
        "hash_chain": chain_ok,
        "single_final_state": len(finals) == 1 and finals[0] is log[-1],
        "limits_committed": len(commitments) == (2 if joined is not None else 1),
        "two_approvals_same_terms": state is not Status.AGREED
        or sorted(a["seat"] for a in approvals) == ["joiner", "opener"],
    }
    if state is not Status.AGREED:
        return ReceiptBody(members, None)
    agreed = log[-1].payload
    members["final_terms"] = agreed["terms"]
    signed = {
        "final_terms": agreed["terms"],
        "session": {
            "session_id": opened["room_id"],
            "oanp_version": OANP_VERSION,
            "protocol": PROTOCOL,
            "arbiter_agent_id": arbiter_id,
            **log_binding(wire),
            "report_hash": report_hash(members),
            "subject_hash": agreed["subject_hash"],
            "approvals": approvals,
            "limit_commitments": commitments,
        },
    }
    return ReceiptBody(members, signed)

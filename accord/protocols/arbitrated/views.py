"""What the buyer (and the merchant's secret key) sees of a session: the schema's SessionView.

The merchant's private record (its floor, its policy, its commitment's nonce) never enters a
view; the floor leaves the server only in the merchant's own reveal."""

from collections.abc import Sequence
from typing import Any

from accord.core.envelope import Envelope
from accord.protocols.arbitrated.state import Phase, SessionState


def _verdict(state: SessionState) -> dict[str, Any] | None:
    if not state.verdicts:
        return None
    last = state.verdicts[-1]
    return last.model_dump(mode="json", exclude={"proposer"})


def session_view(
    state: SessionState,
    *,
    events: Sequence[Envelope] = (),
    base_url: str,
    log: Sequence[Envelope] | None = None,
) -> dict[str, Any]:
    """`events` are the envelopes the call produced; `log` (GET only) the whole chain."""
    standing = state.offer_on_table
    view: dict[str, Any] = {
        "session_id": state.session_id,
        "mode": state.mode,
        "sku": state.sku,
        "state": str(state.phase),
        "round": state.round,
        "max_rounds": state.max_rounds,
        "your_turn": state.your_turn,
        "corrective": state.phase is Phase.CORRECTIVE,
        "offer_on_table": {"proposer": standing.proposer, "terms": standing.terms}
        if standing is not None and not state.is_final
        else None,
        "last_verdict": _verdict(state),
        "close": state.close,
        "events": [e.to_json() for e in events],
        "receipt": f"{base_url}/v1/sessions/{state.session_id}/receipt" if state.is_final else None,
    }
    if log is not None:
        view["log"] = [e.to_json() for e in log]
    return view


def session_summary(state: SessionState) -> dict[str, Any]:
    """One row of `GET /v1/sessions`."""
    return {
        "session_id": state.session_id,
        "sku": state.sku,
        "state": str(state.phase),
        "mode": state.mode,
        "created_at": state.created_at,
        "updated_at": state.updated_at,
    }

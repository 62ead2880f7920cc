"""Arbitrated sessions as a negotiation table (`accord.core.protocol.Table`): the buyer's moves
and the merchant's actions decided in the spec's check order, with the buyer's silence past its
timeout recorded first (spec/arbitrated-rest.md, Session flow)."""

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Final

from accord.core.envelope import Envelope
from accord.core.protocol import Context, Decision, Seen
from accord.core.refusals import Refusal, RefusalCode
from accord.core.step import after_expiry
from accord.protocols.arbitrated import apply, decide, invariants
from accord.protocols.arbitrated.handoff import discount_code
from accord.protocols.arbitrated.moves import (
    AcceptMove,
    Actor,
    BuyerMove,
    HandoffRequest,
    MerchantMove,
    OfferMove,
    RejectMove,
    RevealMove,
    RevealRequest,
)
from accord.protocols.arbitrated.receipt import build_receipt
from accord.protocols.arbitrated.state import (
    BUYER,
    MERCHANT,
    PROTOCOL,
    Mode,
    Phase,
    SessionState,
    timeout_at,
)
from accord.protocols.arbitrated.views import session_view
from accord.trust.receipts import ReceiptBody

BUYER_MOVES: Final = (OfferMove, AcceptMove, RejectMove, RevealMove)
MERCHANT_MOVES: Final = (HandoffRequest, RevealRequest)
SESSION_NOT_FOUND: Final = Refusal(RefusalCode.SESSION_NOT_FOUND, "No such session for this key.")


def _wrong_actor(move: BuyerMove | MerchantMove, actor: Actor) -> Refusal | None:
    """A merchant key may read a session, never move in it; a session token may not act for
    the merchant."""
    if actor == BUYER and not isinstance(move, BUYER_MOVES):
        return Refusal(
            RefusalCode.FORBIDDEN,
            "Only the merchant's secret key may do that.",
            {"allowed": ["secret"]},
        )
    if actor == MERCHANT and not isinstance(move, MERCHANT_MOVES):
        return Refusal(RefusalCode.FORBIDDEN, "Only this session's token may do that.")
    return None


class ArbitratedTable:
    """`decide(state, move, actor, context)` takes the buyer's `OfferMove`, `AcceptMove`,
    `RejectMove` and `RevealMove` as "buyer", and the merchant's `HandoffRequest` and
    `RevealRequest` as "merchant". `context.entropy` (at least 10 bytes) makes the discount
    code of an automatic hand-off."""

    name: str = PROTOCOL
    state_type: type[SessionState] = SessionState
    tail_size = 0
    not_found: Refusal = SESSION_NOT_FOUND

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url

    def decide(
        self,
        state: SessionState,
        move: BuyerMove | MerchantMove,
        actor: Actor,
        context: Context,
    ) -> Decision | Refusal:
        """forbidden (the move is not the actor's) → the timeout, when due, is recorded and
        the move decided on the closed session (most are refused session_ended; a reveal
        comes after it) → the move, in its own check order."""
        if (refusal := _wrong_actor(move, actor)) is not None:
            return refusal
        expired = decide.expire(state, now=context.now)
        if expired is None:
            return self._decide(state, move, context)
        return after_expiry(self, state, expired, context, lambda s: self._decide(s, move, context))

    def _decide(
        self, state: SessionState, move: BuyerMove | MerchantMove, context: Context
    ) -> Decision | Refusal:
        if isinstance(move, MERCHANT_MOVES):
            return decide.decide_merchant(state, move, now=context.now)
        code = discount_code(context.entropy)
        return decide.decide_move(state, move, now=context.now, handoff_code=code)

    def apply(self, state: SessionState | None, envelope: Envelope, seen: Seen) -> SessionState:
        return apply.apply(state, envelope)

    def seen_key(self, envelope: Envelope) -> str | None:
        return None  # a session's rules need nothing from its log beyond its state

    def restore(self, stored: str, tail: Sequence[Envelope]) -> SessionState:
        return SessionState.model_validate_json(stored)

    def dump(self, state: SessionState) -> str:
        return state.model_dump_json()

    def apply_private(self, state: SessionState, party: str, record: Envelope) -> SessionState:
        return apply.apply_private(state, party, record)

    def expire(self, state: SessionState, now: datetime) -> Decision | None:
        return decide.expire(state, now=now)

    def is_final(self, state: SessionState) -> bool:
        return state.is_final

    def is_agreed(self, state: SessionState) -> bool:
        return state.phase is Phase.AGREED

    def expires_at(self, state: SessionState) -> str | None:
        return timeout_at(state)

    def view(self, state: SessionState, party: str) -> dict[str, Any]:
        """The SessionView, the same for the buyer and the merchant's secret key, with
        `events` empty: a caller puts there the envelopes its call appended, and the whole
        chain in `log` on a plain read."""
        return session_view(state, base_url=self.base_url)

    def notice_fields(self, negotiation_id: str, state: SessionState) -> Mapping[str, Any]:
        return {"session_id": negotiation_id}

    def scope(self, state: SessionState) -> str | None:
        """The session's tenant and mode: the merchant's secret key follows all of them."""
        if state.merchant is None:
            return None
        return tenant_scope(state.merchant.tenant_id, state.merchant.mode)

    def broken_invariants(
        self, before: SessionState | None, after: SessionState, appended: Sequence[Envelope]
    ) -> Sequence[str]:
        return invariants.broken_invariants(before, after, appended)

    def receipt(
        self,
        state: SessionState,
        log: Sequence[Envelope],
        *,
        arbiter_id: str,
        retention_days: int,
    ) -> ReceiptBody:
        return build_receipt(state, log, arbiter_id=arbiter_id, retention_days=retention_days)

    def signing_mode(self, state: SessionState) -> Mode:
        return state.mode

    def served_receipt(self, state: SessionState, receipt: dict[str, Any]) -> dict[str, Any]:
        """The stored receipt with the reveals made since: they come after the signature,
        and I3 (every reveal opens its commitment) is judged on them, outside what is signed."""
        reveals = invariants.reveals_of(state)
        held = all(r["matches"] for r in reveals)
        kept = receipt["invariants"] | {invariants.I3: held}
        return receipt | {"reveals": reveals, "invariants": kept}


def tenant_scope(tenant_id: str, mode: str) -> str:
    """The scope a tenant's sessions in one mode are followed under (its secret key's
    audience)."""
    return f"tenant:{tenant_id}:{mode}"

"""Arbitrated sessions as a table of the kernel (`accord.core.protocol.Table`): the buyer's
moves and the merchant's two actions, over the pure rules of `decide`."""

import base64
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal, assert_never

from accord.core.envelope import Envelope
from accord.core.protocol import Context, Decision, Mode
from accord.core.refusals import Refusal, RefusalCode
from accord.core.step import after_expiry
from accord.protocols.arbitrated import decide
from accord.protocols.arbitrated.apply import apply, apply_private
from accord.protocols.arbitrated.moves import AcceptMove, OfferMove, RejectMove, RevealMove
from accord.protocols.arbitrated.receipt import build_receipt, invariants, reveals_of
from accord.protocols.arbitrated.state import PROTOCOL, Phase, SessionState, timeout_at
from accord.protocols.arbitrated.views import session_view
from accord.trust.receipts import ReceiptBody

CODE_BYTES: Final = 10

SERVER_KEPT: Final = (
    "I1_bounded_rounds",
    "I2_same_public_information",
    "I4_monotonic_concession",
    "I5_verdict_for_every_offer",
    "I7_hash_chain",
)

BuyerMove = OfferMove | AcceptMove | RejectMove | RevealMove
Actor = Literal["buyer", "merchant"]


@dataclass(frozen=True)
class PublishHandoff:
    """The merchant's hand-off for an agreed session (policies that publish by hand)."""

    handoff: Mapping[str, Any]


@dataclass(frozen=True)
class MerchantReveal:
    """The merchant opens the commitment the server made for it."""


SessionMove = BuyerMove | PublishHandoff | MerchantReveal


def discount_code(entropy: bytes) -> str:
    """At least 80 bits of entropy, grouped for people: ACC-7F3K-9QXM-2WPD-H4TA."""
    assert len(entropy) >= CODE_BYTES, "the kernel draws at least 10 bytes"
    letters = base64.b32encode(entropy[:CODE_BYTES]).decode()
    return "ACC-" + "-".join(letters[i : i + 4] for i in range(0, 16, 4))


class ArbitratedTable:
    name = PROTOCOL
    state_type = SessionState
    not_found = Refusal(RefusalCode.SESSION_NOT_FOUND, "No such session for this key.")

    def __init__(self, *, base_url: str) -> None:
        self.base_url = base_url

    def decide(
        self, state: SessionState, move: SessionMove, actor: Actor, context: Context
    ) -> Decision | Refusal:
        """A timeout due closes the session first; then the move, on what it leads to."""
        now = context.now
        rule: Callable[[SessionState], Decision | Refusal]
        match move:
            case OfferMove() | AcceptMove() | RejectMove() | RevealMove():
                code = discount_code(context.entropy)

                def rule(s: SessionState) -> Decision | Refusal:
                    return decide.decide_move(s, move, now=now, handoff_code=code)

            case PublishHandoff(handoff):

                def rule(s: SessionState) -> Decision | Refusal:
                    return decide.publish_handoff(s, handoff)

            case MerchantReveal():
                rule = decide.merchant_reveal
            case _:
                assert_never(move)
        due = self.expire(state, now)
        return rule(state) if due is None else after_expiry(self, state, due, context, rule)

    def apply(self, state: SessionState | None, envelope: Envelope) -> SessionState:
        return apply(state, envelope)

    def apply_private(self, state: SessionState, party: str, record: Envelope) -> SessionState:
        return apply_private(state, party, record)

    def expire(self, state: SessionState, now: datetime) -> Decision | None:
        return decide.expire(state, now=now)

    def is_final(self, state: SessionState) -> bool:
        return state.is_final

    def is_agreed(self, state: SessionState) -> bool:
        return state.phase is Phase.AGREED

    def expires_at(self, state: SessionState) -> str | None:
        return timeout_at(state)

    def view(self, state: SessionState, party: str) -> dict[str, Any]:
        return session_view(state, base_url=self.base_url)

    def notice_fields(self, negotiation_id: str, state: SessionState) -> Mapping[str, Any]:
        return {"session_id": negotiation_id}

    def scope(self, state: SessionState) -> str | None:
        return f"tenant:{state.merchant.tenant_id}:{state.mode}" if state.merchant else None

    def broken_invariants(
        self, before: SessionState | None, after: SessionState, appended: Sequence[Envelope]
    ) -> Sequence[str]:
        return ()  # checked against the whole log by the sessions service, until incremental

    def receipt(
        self,
        state: SessionState,
        log: Sequence[Envelope],
        *,
        arbiter_id: str,
        retention_days: int,
    ) -> ReceiptBody:
        body = build_receipt(state, log, arbiter_id=arbiter_id, retention_days=retention_days)
        if body.signed_payload is not None:
            body.members["invariants"]["I6_signed_artifact"] = True
        return body

    def signing_mode(self, state: SessionState) -> Mode:
        return "test" if state.mode == "test" else "live"

    def served_receipt(self, state: SessionState, receipt: dict[str, Any]) -> dict[str, Any]:
        """Reveals come after the signature; I3 (a reveal must open its commitment) is judged
        on them, outside the signed payload."""
        reveals = reveals_of(state)
        held = all(r["matches"] for r in reveals)
        kept = receipt["invariants"] | {"I3_commitments_unchanged": held}
        return receipt | {"reveals": reveals, "invariants": kept}


def broken(state: SessionState, log: Sequence[Envelope]) -> list[str]:
    kept = invariants(state, log)
    return sorted(n for n in SERVER_KEPT if not kept[n])

"""A builder for the arbitrated session rules: a `Session` that opens from a policy dict and a
request, then runs every move through `ArbitratedTable` on the in-memory `Log` of
`accord.core.step`, the step the server runs, with a fixed clock that moves only when a test
says so (spec/arbitrated-rest.md, Session flow)."""

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Final

from accord.core.chain import verify_chain
from accord.core.envelope import Envelope
from accord.core.protocol import Context, Decision
from accord.core.refusals import Refusal
from accord.core.step import Log
from accord.protocols.arbitrated import decide
from accord.protocols.arbitrated.apply import replay
from accord.protocols.arbitrated.handoff import claim, discount_code
from accord.protocols.arbitrated.moves import (
    AcceptMove,
    Actor,
    BuyerMove,
    HandoffRequest,
    MerchantMove,
    OfferMove,
    OpenSessionRequest,
    RejectMove,
    RevealMove,
    RevealRequest,
)
from accord.protocols.arbitrated.policy import Policy, policy_problems
from accord.protocols.arbitrated.state import HandoffRecord, SessionState
from accord.protocols.arbitrated.table import ArbitratedTable
from accord.protocols.arbitrated.views import session_view

START = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
BASE_URL = "https://accord.test"
SESSION_ID = "ses_test"
TENANT_ID = "ten_test"
MERCHANT_NONCE = "nonce-merchant-Qm9vZ2xlLXNlY3JldC1ub25jZQ"
ENTROPY: Final = bytes(range(32))
HANDOFF_CODE: Final = discount_code(ENTROPY)
TABLE: Final = ArbitratedTable(BASE_URL)


def policy(**overrides: Any) -> dict[str, Any]:
    """A valid policy dict, as the store keeps it. By default: list 49900, reference 41900
    (band 0.05: fair_low 39905, fair_high 44105), floor 38000 (so fair_low is the
    reservation), a default `warranty` worth 3900 and an optional `case` worth 3901."""
    members: dict[str, Any] = {
        "sku": "sku-headphones",
        "description": "Noise-cancelling headphones",
        "currency": "EUR",
        "list_price_minor": 49900,
        "reference_price_minor": 41900,
        "floor_minor": 38000,
        "inclusions": [
            {"kind": "warranty", "value_minor": 3900, "included_by_default": True},
            {"kind": "case", "value_minor": 3901, "included_by_default": False},
        ],
        "concession": {"style": "linear"},
        "max_rounds": 6,
        "round_timeout_seconds": 600,
        "fair_band": "0.05",
        "handoff": {
            "kind": "discount_code",
            "checkout_url": "https://shop.example.com/checkout",
            "ttl_seconds": 3600,
            "publish": "automatic",
        },
        "active": True,
    }
    members |= overrides
    model = Policy.model_validate(members)
    assert policy_problems(model) == {}, policy_problems(model)
    return model.model_dump(mode="json")


def request(
    *,
    sku: str = "sku-headphones",
    commitment: str | None = None,
    fairness_profile: str = "default/v0.1",
    **declared: Any,
) -> OpenSessionRequest:
    """An open request; `declared` are the buyer's declared members (max_rounds, utilities…)."""
    buyer: dict[str, Any] = {"agent_id": "agent:buyer", "declared": declared}
    if commitment is not None:
        buyer["commitment"] = commitment
    return OpenSessionRequest.model_validate(
        {"sku": sku, "buyer": buyer, "fairness_profile": fairness_profile}
    )


@dataclass(frozen=True)
class Step:
    """One accepted step: the state before it, after it, and the envelopes it appended."""

    before: SessionState | None
    after: SessionState
    appended: tuple[Envelope, ...]


@dataclass
class Session:
    """One session on the table's real rules and a real chain: every accepted decision is
    appended and folded; a refusal leaves everything as it was. After each step the chain
    verifies, the state is the fold of the records, and no server-kept invariant is broken
    (the server refuses to record such a step)."""

    policy: dict[str, Any] = field(default_factory=policy)
    nonce: str = MERCHANT_NONCE
    negotiation: Log[SessionState] = field(default_factory=lambda: Log(TABLE, START))
    events: list[Envelope] = field(default_factory=list)
    """The public envelopes the last accepted call appended."""
    steps: list[Step] = field(default_factory=list)

    # -- driving the session -------------------------------------------------------------

    def try_open(self, body: OpenSessionRequest | None = None) -> Decision | Refusal:
        assert self.state is None, "a session opens once"
        return self._record(
            decide.open_session(
                request() if body is None else body,
                Policy.model_validate(self.policy),
                session_id=SESSION_ID,
                tenant_id=TENANT_ID,
                mode="test",
                nonce=self.nonce,
                now=self.now,
            )
        )

    def open(self, body: OpenSessionRequest | None = None) -> Decision:
        return accepted(self.try_open(body))

    def try_move(self, move: BuyerMove) -> Decision | Refusal:
        return self.decide(move, "buyer")

    def try_offer(self, price_minor: int, *inclusions: str) -> Decision | Refusal:
        return self.try_move(
            OfferMove(type="offer", price_minor=price_minor, inclusions=list(inclusions))
        )

    def offer(self, price_minor: int, *inclusions: str) -> Decision:
        return accepted(self.try_offer(price_minor, *inclusions))

    def try_accept(self) -> Decision | Refusal:
        return self.try_move(AcceptMove(type="accept"))

    def accept(self) -> Decision:
        return accepted(self.try_accept())

    def try_reject(self, reason: str | None = None) -> Decision | Refusal:
        return self.try_move(RejectMove(type="reject", reason=reason))

    def reject(self, reason: str | None = None) -> Decision:
        return accepted(self.try_reject(reason))

    def try_reveal(self, private: Mapping[str, Any]) -> Decision | Refusal:
        return self.try_move(RevealMove(type="reveal", private=dict(private)))

    def try_merchant_reveal(self) -> Decision | Refusal:
        return self.decide(RevealRequest(), "merchant")

    def try_publish(self, **handoff: Any) -> Decision | Refusal:
        """The merchant's hand-off: `kind`, `value`, `checkout_url`, `expires_at`."""
        return self.decide(HandoffRequest.model_validate(handoff), "merchant")

    def claim(self) -> HandoffRecord | Refusal:
        return claim(self.current)

    def expire(self) -> Decision | None:
        decision = TABLE.expire(self.current, self.now)
        if decision is not None:
            self._record(decision)
        return decision

    def advance_time(self, **delta: float) -> None:
        self.negotiation.now += timedelta(**delta)

    # -- reading it ----------------------------------------------------------------------

    @property
    def now(self) -> datetime:
        return self.negotiation.now

    @property
    def state(self) -> SessionState | None:
        return self.negotiation.state

    @state.setter
    def state(self, state: SessionState) -> None:
        self.negotiation.state = state

    @property
    def current(self) -> SessionState:
        assert self.state is not None, "open the session first"
        return self.state

    @property
    def log(self) -> list[Envelope]:
        return self.negotiation.envelopes

    @property
    def private(self) -> list[tuple[str, Envelope]]:
        return self.negotiation.private

    @property
    def types(self) -> list[str]:
        return [e.type for e in self.log]

    @property
    def event_types(self) -> list[str]:
        return [e.type for e in self.events]

    def of_type(self, kind: str) -> list[Envelope]:
        return [e for e in self.log if e.type == kind]

    def private_of(self, party: str) -> list[Envelope]:
        return [record for p, record in self.private if p == party]

    def view(self, *, with_log: bool = True) -> dict[str, Any]:
        return session_view(
            self.current, events=self.events, base_url=BASE_URL, log=self.log if with_log else None
        )

    def buyer_visible_json(self) -> str:
        """Everything a buyer can read: the view with the whole chain, and every envelope."""
        public = [self.view(), [e.to_json() for e in self.log]]
        return json.dumps(public, ensure_ascii=False, sort_keys=True)

    # -- the step ------------------------------------------------------------------------

    def decide(self, move: BuyerMove | MerchantMove, actor: Actor) -> Decision | Refusal:
        """Any move by either party, as the table decides it."""
        return self._record(TABLE.decide(self.current, move, actor, Context(self.now, ENTROPY)))

    def _record(self, result: Decision | Refusal) -> Decision | Refusal:
        if isinstance(result, Refusal):
            return result
        before, length = self.state, len(self.log)
        recorded = self.negotiation.record(result)
        appended = tuple(self.log[length:])
        self.events = list(appended)
        self.steps.append(Step(before, self.current, appended))
        # The log is the truth: the chain verifies and the state is its fold.
        verify_chain([e.to_json() for e in self.log])
        assert replay(self.log, self.private) == self.current
        broken = TABLE.broken_invariants(before, self.current, appended)
        assert not broken, f"the server would refuse to record this step: {broken}"
        return recorded


def accepted(result: Decision | Refusal) -> Decision:
    assert not isinstance(result, Refusal), f"refused: {result.code} {result.details}"
    return result


def refused(result: Decision | Refusal) -> Refusal:
    assert isinstance(result, Refusal), f"accepted: {[d.type for d in result.public]}"
    return result

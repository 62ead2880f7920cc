"""A builder for the arbitrated session rules: a `Session` that opens from a policy dict and a
request, then decides, links and folds every move like the application layer does, with a
fixed clock that moves only when a test says so (spec/arbitrated-rest.md, Session flow)."""

import itertools
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from accord.core.chain import ChainHead, advance, link, verify_chain
from accord.core.envelope import Envelope
from accord.core.protocol import Decision
from accord.core.refusals import Refusal
from accord.core.times import format_time
from accord.protocols.arbitrated import decide
from accord.protocols.arbitrated.apply import apply, apply_private, replay
from accord.protocols.arbitrated.moves import (
    AcceptMove,
    OfferMove,
    OpenSessionRequest,
    RejectMove,
    RevealMove,
)
from accord.protocols.arbitrated.policy import Policy, policy_problems
from accord.protocols.arbitrated.state import SessionState
from accord.protocols.arbitrated.views import session_view

START = datetime(2026, 11, 30, 12, 0, 0, tzinfo=UTC)
BASE_URL = "https://accord.test"
SESSION_ID = "ses_test"
TENANT_ID = "ten_test"
MERCHANT_NONCE = "nonce-merchant-Qm9vZ2xlLXNlY3JldC1ub25jZQ"
HANDOFF_CODE = "ACC-TEST-CODE-0000-0000"

BuyerMove = OfferMove | AcceptMove | RejectMove | RevealMove


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


@dataclass
class Session:
    """One session driven through the pure protocol: every accepted decision is numbered,
    linked into envelopes (the public log, and each party's private records) and folded into
    the state; a refusal leaves everything as it was."""

    policy: dict[str, Any] = field(default_factory=policy)
    now: datetime = START
    nonce: str = MERCHANT_NONCE
    state: SessionState | None = None
    log: list[Envelope] = field(default_factory=list)
    private: list[tuple[str, Envelope]] = field(default_factory=list)
    events: list[Envelope] = field(default_factory=list)
    """The public envelopes the last accepted call appended."""
    head: ChainHead = field(default_factory=ChainHead)
    private_heads: dict[str, ChainHead] = field(default_factory=dict)
    _ids: Iterator[int] = field(default_factory=itertools.count)

    # -- driving the session -------------------------------------------------------------

    def try_open(self, body: OpenSessionRequest | None = None) -> Decision | Refusal:
        assert self.state is None, "a session opens once"
        return self._record(
            decide.open_session(
                request() if body is None else body,
                self.policy,
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
        return self._record(
            decide.decide_move(self.current, move, now=self.now, handoff_code=HANDOFF_CODE)
        )

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
        return self._record(decide.merchant_reveal(self.current))

    def expire(self) -> Decision | None:
        decision = decide.expire(self.current, now=self.now)
        if decision is not None:
            self._record(decision)
        return decision

    def advance_time(self, **delta: float) -> None:
        self.now += timedelta(**delta)

    # -- reading it ----------------------------------------------------------------------

    @property
    def current(self) -> SessionState:
        assert self.state is not None, "open the session first"
        return self.state

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

    # -- the machinery -------------------------------------------------------------------

    def _record(self, result: Decision | Refusal) -> Decision | Refusal:
        if isinstance(result, Refusal):
            return result
        ts = format_time(self.now)
        events: list[Envelope] = []
        for draft in result.public:
            envelope = link(self.head, draft, ts=ts, message_id=f"msg_{next(self._ids)}")
            self.head = advance(envelope)
            self.log.append(envelope)
            events.append(envelope)
            self.state = apply(self.state, envelope)
        for item in result.private:
            head = self.private_heads.get(item.party, ChainHead())
            record = link(head, item.draft, ts=ts, message_id=f"msg_{next(self._ids)}")
            self.private_heads[item.party] = advance(record)
            self.private.append((item.party, record))
            self.state = apply_private(self.current, item.party, record)
        self.events = events
        # The log is the truth: the chain verifies and the state is its fold.
        verify_chain([e.to_json() for e in self.log])
        assert replay(self.log, self.private) == self.state
        return result


def accepted(result: Decision | Refusal) -> Decision:
    assert not isinstance(result, Refusal), f"refused: {result.code} {result.details}"
    return result


def refused(result: Decision | Refusal) -> Refusal:
    assert isinstance(result, Refusal), f"accepted: {[d.type for d in result.public]}"
    return result

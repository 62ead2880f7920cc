"""What the server answers, as frozen models (spec/rooms-api.md, spec/arbitrated-rest.md).

Results are read, not policed: `extra="allow"` keeps members a newer server adds, so it breaks
no client, and every model keeps the JSON it was read from (`to_json()`), so a program can
pass on exactly what the server said. Secrets (tokens, a hand-off's value) stay out of `repr`.
"""

import copy
from datetime import datetime
from typing import Any, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    model_validator,
)


class Model(BaseModel):
    """A result: frozen, open to new members, and holding the JSON it came from."""

    model_config = ConfigDict(frozen=True, extra="allow")

    _json: dict[str, Any] = PrivateAttr(default={})
    """A default, not a `default_factory`: pydantic inspects a factory's signature for every
    instance, and a room's answer holds some fifty models (its moves)."""

    @model_validator(mode="wrap")
    @classmethod
    def _keep_json(cls, data: Any, handler: ModelWrapValidatorHandler[Self]) -> Self:
        model = handler(data)
        if isinstance(data, dict):
            model._json = data
        return model

    def to_json(self) -> dict[str, Any]:
        """The object exactly as the server sent it (a copy: changing it changes nothing)."""
        return copy.deepcopy(self._json)


# -- shared ---------------------------------------------------------------------------------


class Money(Model):
    """An amount in the minor unit of its ISO 4217 currency (cents for EUR)."""

    amount_minor: int
    currency: str


class Envelope(Model):
    """One entry of a public log, linked to the one before by `prev_hash`."""

    seq: int
    ts: datetime
    type: str
    sender: dict[str, Any]
    payload: dict[str, Any]
    message_id: str | None = None
    prev_hash: str | None = None


class Log(Model):
    """A negotiation's whole public log, oldest first."""

    envelopes: list[Envelope]


class Signature(Model):
    """Whether a receipt is signed, and why."""

    status: str
    reason: str


class Chain(Model):
    """The log a receipt covers: its last envelope's hash and its length."""

    head: str
    length: int
    retention_days: int | None = None


class Receipt(Model):
    """A final negotiation's receipt: signed for an agreement, unsigned for a close or an
    expiry. Check it offline with `client.receipts.verify(receipt, jwks=…)`."""

    session_id: str
    protocol: str
    state: str
    mode: str
    artifact: dict[str, Any] | None = Field(description="The detached JWS: {protected, signature}.")
    signed_payload: dict[str, Any] | None
    jwks: dict[str, Any]
    signature: Signature
    chain: Chain
    final_terms: dict[str, Any] | None = None

    @property
    def is_signed(self) -> bool:
        return self.artifact is not None


class Jwks(Model):
    """A server's receipt signing keys: pin them, fetched over a channel you trust."""

    keys: list[dict[str, Any]]


class Event(Model):
    """One Server-Sent Event: `event` is `envelope` or `notification`; `id` is the store's
    event number, which a stream resumes after."""

    id: int
    event: str
    data: dict[str, Any]

    @property
    def type(self) -> str | None:
        """The envelope's or the notification's type (`move.counter`, `your_turn`…)."""
        kind = self.data.get("type")
        return kind if isinstance(kind, str) else None


# -- rooms ----------------------------------------------------------------------------------


class Table(Model):
    """The terms on the table, their hash (what approve quotes) and who proposed them."""

    terms: dict[str, Any]
    subject_hash: str
    proposed_by: str


class Approval(Model):
    """A seat's approval of the terms on the table."""

    seat: str
    subject_hash: str


class PendingConfirmation(Model):
    """The seat's move that waits for its owner, as the view names it."""

    id: str
    type: str
    subject_hash: str | None = None


class RoomMove(Model):
    """One move in a room's view (the last 50 are shown)."""

    seq: int
    seat: str
    type: str
    at: datetime
    terms: dict[str, Any] | None = None
    subject_hash: str | None = None
    message: str | None = None
    deadline: datetime | None = None


class Room(Model):
    """A room as one seat sees it (RoomView): never the other seat's limits or tokens."""

    room_id: str
    name: str
    title: str
    seq: int
    state: str
    seat: str
    your_turn: bool
    turn: str | None
    available_moves: list[str] = Field(default_factory=list)
    """What this seat may do now (`offer`, `counter`, `approve`…); empty once the room ends."""
    subject_schema: dict[str, Any]
    table: Table | None
    approvals: list[Approval]
    pending_confirmation: PendingConfirmation | None
    deadline: datetime | None
    expires_at: datetime | None
    circling: bool
    limits_compatible: bool | None
    incompatible_fields: list[str]
    outside_your_limits: list[str]
    your_limits: dict[str, Any]
    moves: list[RoomMove]
    moves_total: int
    receipt_url: str | None
    created_at: datetime
    updated_at: datetime

    @property
    def is_final(self) -> bool:
        return self.state in ("agreed", "closed", "expired")


class LimitsOpening(Model):
    """A seat's opening of its limits commitment, given once: keep it to prove the limits."""

    nonce: str = Field(repr=False)
    limits: dict[str, Any]


class Invite(Model):
    """The single-use invite for the other party: pass on its token or its URL."""

    token: str = Field(repr=False)
    url: str = Field(repr=False)
    expires_at: datetime


class Joined(Model):
    """The answer to a join: the seat's two tokens, shown this once."""

    room: Room
    seat_token: str = Field(repr=False)
    owner_token: str = Field(repr=False)
    limits_opening: LimitsOpening


class Opened(Joined):
    """The answer to an open: a join's, and the invite for the other party."""

    invite: Invite


class RoomSummary(Model):
    """A room as `rooms.list` names it, for one seat."""

    room_id: str
    name: str
    seat: str
    state: str
    your_turn: bool
    deadline: datetime | None


class RoomList(Model):
    """The rooms some tokens open, one row per seat."""

    rooms: list[RoomSummary]


class ConfirmationField(Model):
    """One field of the terms a waiting move would settle on."""

    name: str
    label: str
    type: str
    value: Any
    outside_your_limits: bool


class Confirmation(Model):
    """A move the seat's agent asked for, waiting for the owner to confirm or decline."""

    id: str
    type: str
    requested_at: datetime
    subject_hash: str | None
    message: str | None
    terms: dict[str, Any] | None
    fields: list[ConfirmationField]
    outside_your_limits: list[str]


class Confirmations(Model):
    confirmations: list[Confirmation]


class Applied(Model):
    """The move is in the log (200)."""

    room: Room
    move: Envelope


class AwaitingOwner(Model):
    """An agent's approve, reject or cancel waits for the seat's owner (202)."""

    room: Room
    confirmation: Confirmation


class Decided(Model):
    """The owner confirmed or declined a waiting move."""

    room: Room


# -- arbitrated sessions --------------------------------------------------------------------


class Terms(Model):
    """A session's terms: a price and what it includes."""

    price: Money
    inclusions: list[dict[str, Any]] = Field(default_factory=list)


class OfferOnTable(Model):
    """The offer a buyer may accept, and who made it."""

    proposer: str
    terms: Terms


class Verdict(Model):
    """The arbiter's verdict on one offer."""

    round: int
    verdict: str
    fairness_score: str | None
    price_minor: int
    outcome: str


class Close(Model):
    """Why a session closed without an agreement."""

    reason: str
    detail: str | None = None


class SessionView(Model):
    """A session as the buyer (or the merchant's secret key) sees it: `events` are the
    envelopes this call produced; `log` (reads only) the whole chain."""

    session_id: str
    mode: str
    sku: str
    state: str
    round: int
    max_rounds: int
    your_turn: bool
    corrective: bool
    offer_on_table: OfferOnTable | None
    last_verdict: Verdict | None
    close: Close | None
    events: list[Envelope] = Field(default_factory=list)
    receipt: str | None = None
    log: list[Envelope] | None = None
    session_token: str | None = Field(None, repr=False)
    duplicate: bool = False

    @property
    def is_final(self) -> bool:
        return self.state in ("agreed", "closed")


class SessionSummary(Model):
    """A session as a merchant's list names it."""

    session_id: str
    sku: str
    state: str
    mode: str
    created_at: datetime
    updated_at: datetime


class SessionList(Model):
    """A merchant's latest sessions, newest first."""

    sessions: list[SessionSummary]


class LinkCode(Model):
    """A one-time link that hands on a person's credential (an hour): open `web_url` in the
    browser that should hold it. `code` is a bearer secret."""

    code: str = Field(repr=False)
    web_url: str = Field(repr=False)
    telegram_url: str | None = Field(None, repr=False)
    expires_at: datetime


class Handoff(Model):
    """What the buyer receives after an agreement; `value` is a bearer secret."""

    kind: str
    value: str = Field(repr=False)
    checkout_url: str
    expires_at: datetime


class Reveals(Model):
    """The private sets revealed after a session, and whether each opens its commitment."""

    reveals: list[dict[str, Any]]


class Me(Model):
    """Who a merchant key belongs to: its tenant, mode and kind."""

    tenant_id: str
    mode: str
    key_kind: str


class CatalogueItem(Model):
    """A SKU a merchant offers, as buyers see it."""

    sku: str
    description: str
    list_price_minor: int
    currency: str
    inclusions: list[str]


class Catalogue(Model):
    """A merchant's active SKUs."""

    items: list[CatalogueItem]


class Policy(Model):
    """A merchant's stored policy for one SKU; `floor_minor` is its own and private."""

    sku: str
    description: str
    currency: str
    list_price_minor: int
    reference_price_minor: int
    floor_minor: int = Field(repr=False)
    inclusions: list[dict[str, Any]]
    concession: dict[str, Any]
    max_rounds: int
    round_timeout_seconds: int
    fair_band: str
    handoff: dict[str, Any]
    active: bool


class PolicyList(Model):
    """A merchant's policies in its key's mode."""

    policies: list[Policy]

"""Arbitrated session state: folded from the public log and the merchant's private records
(spec/arbitrated-rest.md, Session flow).

What the log publishes at open (the rules, the attested inputs, the parties) is typed with
`TypedDict`s: they are validated like models, and stay the plain JSON objects the envelopes,
the stored state and the receipt carry, member for member and in the same order."""

from collections.abc import Mapping
from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Final, Literal, NotRequired

from pydantic import BaseModel, ConfigDict, with_config
from typing_extensions import TypedDict  # pydantic validates this one before Python 3.12

from accord.core.times import format_time, parse_time
from accord.protocols.arbitrated.policy import HandoffKind, Policy

PROTOCOL: Final = "arbitrated"
OANP_VERSION: Final = "0.1"
MERCHANT: Final = "merchant"
BUYER: Final = "buyer"
ARBITER: Final[Mapping[str, str]] = {"role": "arbiter"}
"""The sender of the arbiter's envelopes and of the records it writes for the parties."""


class Phase(StrEnum):
    NEGOTIATING = "negotiating"
    CORRECTIVE = "corrective"
    AGREED = "agreed"
    CLOSED = "closed"


FINAL: Final = frozenset({Phase.AGREED, Phase.CLOSED})
Role = Literal["buyer", "merchant"]
Mode = Literal["test", "live"]
CloseReason = Literal["rejected", "max_rounds", "unfair_offers", "timeout"]
_RECORD: Final = ConfigDict(extra="forbid")


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


@with_config(_RECORD)
class Money(TypedDict):
    amount_minor: int
    currency: str


@with_config(_RECORD)
class Rules(TypedDict):
    """`session_rules` of `session.accept`."""

    max_rounds: int
    fair_band: str
    round_timeout_seconds: int
    fairness_profile: str


@with_config(_RECORD)
class Attestation(TypedDict):
    """`attested` of `session.accept`: what the arbiter scores every offer with."""

    list_price: Money
    inclusion_values: dict[str, Money]
    t_target: Money
    source: str
    captured_at: str


@with_config(_RECORD)
class DeclaredRecord(TypedDict):
    """The buyer's declared members as published: the request's, without the unset ones."""

    max_rounds: int
    currency: NotRequired[str]
    inclusions: list[str]
    utilities: dict[str, str]
    non_price_preferences: list[str]


@with_config(_RECORD)
class BuyerParty(TypedDict):
    agent_id: str
    declared: DeclaredRecord
    commitment: str
    commitment_by: Literal["buyer", "server"]


@with_config(_RECORD)
class MerchantParty(TypedDict):
    agent_id: str
    commitment: str
    """`commit({nonce, floor_minor})`, made by the server for the merchant."""


@with_config(_RECORD)
class Parties(TypedDict):
    buyer: BuyerParty
    merchant: MerchantParty


@with_config(_RECORD)
class Close(TypedDict):
    reason: CloseReason
    detail: str | None


@with_config(_RECORD)
class Reveal(TypedDict):
    party: Role
    private: dict[str, Any]


@with_config(_RECORD)
class HandoffRecord(TypedDict):
    """A published hand-off, exactly as the buyer's claim returns it."""

    kind: HandoffKind
    value: str
    checkout_url: str
    expires_at: str


class Standing(Frozen):
    """An offer on the table, with what the arbiter made of it."""

    proposer: Role
    round: int
    terms: dict[str, Any]
    t_minor: int | None
    w_minor: int | None


class VerdictRecord(Frozen):
    round: int
    verdict: str
    fairness_score: str | None
    price_minor: int
    outcome: Literal["pending", "rejected", "accepted", "unenforced"]
    proposer: Role


class MerchantPrivate(Frozen):
    """What only the merchant (and the server acting for it) knows: its policy at open, with
    the floor, and the nonce of its commitment `commit({nonce, floor_minor})`."""

    tenant_id: str
    mode: Mode
    nonce: str
    policy: Policy


class SessionState(Frozen):
    session_id: str
    sku: str
    created_at: str
    updated_at: str
    seq: int
    rules: Rules
    attested: Attestation
    parties: Parties
    phase: Phase = Phase.NEGOTIATING
    round: int = 0
    your_turn: bool = False
    offer_on_table: Standing | None = None
    verdicts: tuple[VerdictRecord, ...] = ()
    buyer_last_t: int | None = None
    merchant_last_t: int | None = None
    close: Close | None = None
    final_terms: dict[str, Any] | None = None
    accepted_by: Role | None = None
    turn_started_at: str
    reveals: tuple[Reveal, ...] = ()
    merchant: MerchantPrivate | None = None
    handoff: HandoffRecord | None = None
    """The hand-off once published: a bearer secret, only ever in the claim's answer."""

    @property
    def is_final(self) -> bool:
        return self.phase in FINAL

    @property
    def max_rounds(self) -> int:
        return self.rules["max_rounds"]

    @property
    def mode(self) -> Mode:
        return self.merchant.mode if self.merchant else "live"

    @property
    def buyer_utilities(self) -> dict[str, str]:
        return dict(self.parties["buyer"]["declared"]["utilities"])

    @property
    def commitments(self) -> dict[Role, str]:
        return {
            "buyer": self.parties["buyer"]["commitment"],
            "merchant": self.parties["merchant"]["commitment"],
        }


def timeout_at(state: SessionState) -> str | None:
    """When the buyer's silence closes the session (`round_timeout_seconds` after its turn
    began); None when it is not the buyer's turn or the session has ended."""
    if state.is_final or not state.your_turn:
        return None
    seconds = state.rules["round_timeout_seconds"]
    return format_time(parse_time(state.turn_started_at) + timedelta(seconds=seconds))


def is_timed_out(state: SessionState, now: datetime) -> bool:
    """Silence *past* the timeout: at the very second it falls due the buyer may still move."""
    due = timeout_at(state)
    return due is not None and due < format_time(now)

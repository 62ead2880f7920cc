"""Arbitrated session state: folded from the public log and the merchant's private records
(spec/arbitrated-rest.md, Session flow)."""

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict

from accord.core.times import format_time, parse_time

PROTOCOL: Final = "arbitrated"
OANP_VERSION: Final = "0.1"
MERCHANT: Final = "merchant"
BUYER: Final = "buyer"


class Phase(StrEnum):
    NEGOTIATING = "negotiating"
    CORRECTIVE = "corrective"
    AGREED = "agreed"
    CLOSED = "closed"


FINAL: Final = frozenset({Phase.AGREED, Phase.CLOSED})
Role = Literal["buyer", "merchant"]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


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
    mode: Literal["test", "live"]
    nonce: str
    policy: dict[str, Any]


class SessionState(Frozen):
    session_id: str
    sku: str
    created_at: str
    updated_at: str
    seq: int
    rules: dict[str, Any]
    attested: dict[str, Any]
    parties: dict[str, Any]
    phase: Phase = Phase.NEGOTIATING
    round: int = 0
    your_turn: bool = False
    offer_on_table: Standing | None = None
    verdicts: tuple[VerdictRecord, ...] = ()
    buyer_last_t: int | None = None
    merchant_last_t: int | None = None
    close: dict[str, Any] | None = None
    final_terms: dict[str, Any] | None = None
    accepted_by: Role | None = None
    turn_started_at: str
    reveals: tuple[dict[str, Any], ...] = ()
    merchant: MerchantPrivate | None = None
    handoff: dict[str, Any] | None = None
    """The hand-off once published: a bearer secret, only ever in the claim's answer."""

    @property
    def is_final(self) -> bool:
        return self.phase in FINAL

    @property
    def max_rounds(self) -> int:
        return int(self.rules["max_rounds"])

    @property
    def mode(self) -> str:
        return self.merchant.mode if self.merchant else "live"

    @property
    def buyer_utilities(self) -> dict[str, str]:
        declared = self.parties["buyer"].get("declared") or {}
        return dict(declared.get("utilities") or {})


def timeout_at(state: SessionState) -> str | None:
    """When the buyer's silence closes the session (`round_timeout_seconds` after its turn
    began); None when it is not the buyer's turn or the session has ended."""
    if state.is_final or not state.your_turn:
        return None
    seconds = int(state.rules["round_timeout_seconds"])
    return format_time(parse_time(state.turn_started_at) + timedelta(seconds=seconds))


def is_timed_out(state: SessionState, now: datetime) -> bool:
    """Silence *past* the timeout: at the very second it falls due the buyer may still move."""
    due = timeout_at(state)
    return due is not None and due < format_time(now)

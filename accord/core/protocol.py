"""The protocol interface: what a negotiation table implements, pure, with time and entropy
passed in. The kernel (`accord/core/step.py` in memory, `accord/app/negotiations.py` on the
store) numbers, links, stores, signs and delivers what a table decided; a table holds the rules.

Adding a table is a protocol package implementing `Table`, its views and credentials, and one
line in `accord/protocols/registry.py`.
"""

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from accord.core.envelope import Draft, Envelope
from accord.core.refusals import Refusal

S = TypeVar("S", bound=BaseModel)
R = TypeVar("R")
A = TypeVar("A")
Mode = Literal["test", "live"]


@dataclass(frozen=True)
class PrivateDraft:
    """A record for one party's private log, which the other side never reads."""

    party: str
    draft: Draft


@dataclass(frozen=True)
class Notice:
    """A notification for one party's stream (`owner_only` keeps it from the agent)."""

    party: str
    type: str
    data: Mapping[str, Any] = field(default_factory=dict)
    owner_only: bool = False


@dataclass(frozen=True)
class Decision:
    """What to append. With `refusal`, the kernel appends the rest and then refuses: a move
    that finds an expiry due records the expiry and is refused, so the check order stays in
    the protocol. The client's `message_id` names public draft `message_at`."""

    public: Sequence[Draft] = ()
    private: Sequence[PrivateDraft] = ()
    notices: Sequence[Notice] = ()
    refusal: Refusal | None = None
    message_at: int = 0

    @property
    def is_empty(self) -> bool:
        return not (self.public or self.private or self.notices)


Seen = Callable[[str], bool]
"""Whether a negotiation's log already holds an envelope with this `Table.seen_key`. The set
grows with the log, so the kernel keeps it beside the state (one row per key), never in it:
what a move stores stays the size of the move."""


def never_seen(_key: str) -> bool:
    """The set of a negotiation that has no log yet."""
    return False


@dataclass(frozen=True)
class Context:
    """What a decision may depend on besides the state and the move: the time, fresh bytes
    of entropy for nonces and codes (the kernel draws them; a protocol never does), and what
    the log has seen."""

    now: datetime
    entropy: bytes = b""
    seen: Seen = never_seen


class ReceiptContent(Protocol):
    """What a table makes of its log for a receipt: every member but the signature's;
    `signed_payload` is None when nothing was agreed."""

    @property
    def members(self) -> dict[str, Any]: ...
    @property
    def signed_payload(self) -> dict[str, Any] | None: ...


class Table(Protocol[S]):
    """A negotiation table: its state type, how envelopes fold into it, when it ends, what its
    receipt holds. Moves are decided by `decide`, whose move and actor types are the table's."""

    name: str
    """The protocol's name in the store and in receipts."""
    tail_size: int
    """How many of the log's last envelopes `restore` needs besides the stored state."""
    state_type: type[S]
    not_found: Refusal
    """What a caller is told for an id that is not one of this table's negotiations."""

    def decide(self, state: S, move: Any, actor: Any, context: Context) -> Decision | Refusal:
        """Checks in the table's check order; expiry due is recorded, then refused."""
        ...

    def apply(self, state: S | None, envelope: Envelope, seen: Seen) -> S:
        """Fold one envelope; `seen` answers for the log before it."""
        ...

    def seen_key(self, envelope: Envelope) -> str | None:
        """The key under which the log remembers this envelope for `Seen`, or None."""
        ...

    def restore(self, stored: str, tail: Sequence[Envelope]) -> S:
        """The state from its stored form (`dump`) and the last `tail_size` envelopes."""
        ...

    def dump(self, state: S) -> str:
        """The stored form of a state: what the log's tail and `Seen` give back is left out."""
        ...

    def apply_private(self, state: S, party: str, record: Envelope) -> S: ...
    def expire(self, state: S, now: datetime) -> Decision | None:
        """What to append when the negotiation's time ran out at `now`; None when it has not."""
        ...

    def is_final(self, state: S) -> bool: ...
    def is_agreed(self, state: S) -> bool: ...
    def expires_at(self, state: S) -> str | None: ...
    def view(self, state: S, party: str) -> dict[str, Any]:
        """The state as one party may see it: the only way state leaves the table."""
        ...

    def notice_fields(self, negotiation_id: str, state: S) -> Mapping[str, Any]:
        """Members every notification of this negotiation carries (ids, names)."""
        ...

    def scope(self, state: S) -> str | None:
        """An audience beyond the seats that follows this negotiation's events (a tenant and
        mode), or None."""
        ...

    def broken_invariants(
        self, before: S | None, after: S, appended: Sequence[Envelope]
    ) -> Sequence[str]:
        """Invariants the server keeps on every step that `appended` would break; a step that
        breaks one is a fault of the server's and is never recorded."""
        ...

    def receipt(
        self, state: S, log: Sequence[Envelope], *, arbiter_id: str, retention_days: int
    ) -> ReceiptContent: ...
    def signing_mode(self, state: S) -> Mode:
        """The key an agreement is signed with."""
        ...

    def served_receipt(self, state: S, receipt: dict[str, Any]) -> dict[str, Any]:
        """The receipt as served: the stored one, with what comes after the signature."""
        ...


def fold(apply: Callable[[A, R], A], initial: A, records: Iterable[R]) -> A:
    """The one fold: the application layer, projections and tests all rebuild state with it."""
    state = initial
    for record in records:
        state = apply(state, record)
    return state


@runtime_checkable
class CatchesUp(Protocol[S]):
    """A table whose log tail can be carried on from an earlier state (the kernel's cache),
    so that a process that did not make the latest moves reads only those moves."""

    def restore_since(self, stored: str, earlier: S, newer: Sequence[Envelope]) -> S:
        """The state from its stored form, `earlier` (the state at an earlier point of the
        same log) and the envelopes appended since: the same as `restore` gives."""
        ...

"""The one step of every negotiation: link a decision's drafts into envelopes, encode each once,
and fold them into the state. The store's ledger and the in-memory `Log` both run it, so the
server and a simulation can never drift apart."""

import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from accord.core.chain import ChainHead, link
from accord.core.commit import commit_bytes
from accord.core.envelope import Envelope
from accord.core.jsonio import canonical
from accord.core.protocol import Context, Decision, Notice, Seen, Table, never_seen
from accord.core.refusals import Refusal
from accord.core.times import format_time

S = TypeVar("S", bound=BaseModel)


@dataclass(frozen=True)
class Linked:
    """An envelope with its canonical bytes: stored, hashed and streamed alike."""

    envelope: Envelope
    body: bytes


@dataclass(frozen=True)
class Stepped(Generic[S]):
    state: S
    head: ChainHead
    public: tuple[Linked, ...]
    private: tuple[tuple[str, Linked], ...]
    private_heads: dict[str, ChainHead]
    seen: tuple[str, ...] = ()
    """The `Seen` keys the public envelopes added."""


def step(
    table: Table[S],
    state: S | None,
    head: ChainHead,
    decision: Decision,
    *,
    ts: str,
    new_id: Callable[[], str],
    private_head: Callable[[str], ChainHead],
    message_id: str | None = None,
    seen: Seen = never_seen,
) -> Stepped[S]:
    """`message_id` names the client's public envelope (`decision.message_at`); the rest get
    `new_id()`. `private_head(party)` is where that party's private log ends; `seen` answers
    for the log before this step."""
    public: list[Linked] = []
    added: list[str] = []

    def known(key: str) -> bool:
        return key in added or seen(key)

    for index, draft in enumerate(decision.public):
        envelope = link(
            head,
            draft,
            ts=ts,
            message_id=message_id if index == decision.message_at and message_id else new_id(),
        )
        body = canonical(envelope.to_json())
        head = ChainHead(envelope.seq + 1, commit_bytes(body))
        public.append(Linked(envelope, body))
        state = table.apply(state, envelope, known)
        if (key := table.seen_key(envelope)) is not None and not known(key):
            added.append(key)
    assert state is not None, "a decision that creates a negotiation appends to its log"
    heads: dict[str, ChainHead] = {}
    private: list[tuple[str, Linked]] = []
    for item in decision.private:
        party_head = heads.get(item.party) or private_head(item.party)
        record = link(party_head, item.draft, ts=ts, message_id=new_id())
        body = canonical(record.to_json())
        heads[item.party] = ChainHead(record.seq + 1, commit_bytes(body))
        private.append((item.party, Linked(record, body)))
        state = table.apply_private(state, item.party, record)
    return Stepped(state, head, tuple(public), tuple(private), heads, tuple(added))


def replay(
    table: Table[S], public: Iterable[Envelope], private: Iterable[tuple[str, Envelope]]
) -> S:
    """The state a negotiation's records fold to: its public log, then each party's private
    records (a table keeps the two in separate members, so their interleaving is moot)."""
    state: S | None = None
    seen: set[str] = set()
    for envelope in public:
        state = table.apply(state, envelope, seen.__contains__)
        if (key := table.seen_key(envelope)) is not None:
            seen.add(key)
    if state is None:
        raise ValueError(f"a {table.name} log cannot be empty")
    for party, record in private:
        state = table.apply_private(state, party, record)
    return state


def after_expiry(
    table: Table[S],
    state: S,
    due: Decision,
    context: Context,
    decide: Callable[[S], Decision | Refusal],
) -> Decision:
    """A move that finds an expiry due: the expiry is appended, and the move is decided on the
    state the expiry leads to, as if the expiry had been recorded first (refused, mostly)."""
    after = step(
        table,
        state,
        ChainHead(),
        due,
        ts=format_time(context.now),
        new_id=lambda: "msg_due",
        private_head=lambda _: ChainHead(),
        seen=context.seen,
    ).state
    decided = decide(after)
    if isinstance(decided, Refusal):
        return replace(due, refusal=decided)
    return Decision(
        public=[*due.public, *decided.public],
        private=[*due.private, *decided.private],
        notices=[*due.notices, *decided.notices],
        refusal=decided.refusal,
        message_at=len(due.public) + decided.message_at,
    )


@dataclass
class Log(Generic[S]):
    """One negotiation in memory: the real rules, a real chain, no store. Decisions are
    recorded at `now`, which moves only when its owner says so."""

    table: Table[S]
    now: datetime
    state: S | None = None
    head: ChainHead = field(default_factory=ChainHead)
    envelopes: list[Envelope] = field(default_factory=list)
    private: list[tuple[str, Envelope]] = field(default_factory=list)
    notices: list[Notice] = field(default_factory=list)
    private_heads: dict[str, ChainHead] = field(default_factory=dict)
    seen: set[str] = field(default_factory=set)
    last: Decision | None = None
    _ids: Iterator[int] = field(default_factory=itertools.count)

    @property
    def current(self) -> S:
        assert self.state is not None, "the negotiation has not begun"
        return self.state

    def record(
        self, result: Decision | Refusal, *, message_id: str | None = None
    ) -> Decision | Refusal:
        """Append an accepted decision; a refusal leaves everything as it was. A decision
        that carries a refusal is appended and its refusal returned."""
        if isinstance(result, Refusal):
            return result
        stepped = step(
            self.table,
            self.state,
            self.head,
            result,
            ts=format_time(self.now),
            new_id=lambda: f"msg_{next(self._ids)}",
            private_head=lambda party: self.private_heads.get(party, ChainHead()),
            message_id=message_id,
            seen=self.seen.__contains__,
        )
        self.state, self.head = stepped.state, stepped.head
        self.seen.update(stepped.seen)
        self.envelopes += [linked.envelope for linked in stepped.public]
        self.private += [(party, linked.envelope) for party, linked in stepped.private]
        self.private_heads |= stepped.private_heads
        self.notices += result.notices
        self.last = result
        return result.refusal if result.refusal is not None else result

    def decide(self, move: Any, actor: Any, *, entropy: bytes = b"") -> Decision | Refusal:
        """One move by `actor`, decided by the table's own rules and recorded."""
        context = Context(self.now, entropy, self.seen.__contains__)
        return self.record(self.table.decide(self.current, move, actor, context))

    def expire(self) -> Decision | None:
        decision = self.table.expire(self.current, self.now)
        if decision is not None:
            self.record(decision)
        return decision

    def view(self, party: str) -> dict[str, Any]:
        return self.table.view(self.current, party)

    @property
    def types(self) -> Sequence[str]:
        return [e.type for e in self.envelopes]

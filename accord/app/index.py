"""The discovery index of this process: built from the store on first use (the server asks
at startup), then kept current by the intents service after each write that commits, and, for
other processes' writes, before each question, in its transaction: the intents revised after
the latest revision the index holds (one indexed query, usually empty), and those the database
announced (`heard`), for a write that took an earlier revision number but committed later.

Writes commit in the store's order but their callers tell the index in their own, so each
intent's revision (the store's order of edits) is remembered, also for one that left the index:
an older revision arriving late never replaces a newer one. One lock serialises queries and
updates, which the lexical index needs. The ranking's model, if any, is loaded with the index,
not before: a command that never discovers never loads it.
"""

import functools
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from sqlalchemy import Connection

from accord.discovery import (
    Candidate,
    Discovery,
    IntentDoc,
    Ranking,
    constraint_from_json,
    embedder_for,
)
from accord.discovery.reach import NetworksOf
from accord.store import intents as rows
from accord.store.database import Database

T = TypeVar("T")


def intent_doc(row: rows.IntentRow) -> IntentDoc:
    members = row.members
    return IntentDoc(
        intent_id=row.id,
        principal_id=row.principal_id,
        statement=members["statement"],
        constraints=tuple(constraint_from_json(c) for c in members["constraints"]),
        visibility=members["visibility"],
        networks=frozenset(members["networks"]),
        status=row.status,  # type: ignore[arg-type]  # the store holds only valid statuses
    )


def networks_of(conn: Connection) -> NetworksOf:
    """Each principal's networks, read once per call that needs them."""
    return functools.cache(functools.partial(rows.network_ids, conn))


class IntentIndex:
    def __init__(
        self, db: Database, *, ranking: Ranking, mutual_threshold: float | None = None
    ) -> None:
        """`mutual_threshold=None` takes the one calibrated for the ranking in effect, which
        for `auto` is known only once the model is (or is not) found."""
        self._db = db
        self._ranking = ranking
        self._mutual_threshold = mutual_threshold
        self._discovery = Discovery(mutual_threshold=mutual_threshold)
        """Replaced, with the ranking's model, when the index is loaded; never asked before."""
        self._revisions: dict[str, int] = {}
        self._latest = 0
        self._loaded = False
        self._lock = threading.Lock()
        self._stale: set[str] | None = set()
        """Intents announced since they were read; None: any may have changed unheard."""
        self._stale_lock = threading.Lock()

    def heard(self, keys: frozenset[str] | None) -> None:
        """A commit's announced keys (None: the announcements may have missed some)."""
        with self._stale_lock:
            if keys is None or self._stale is None:
                self._stale = None
                return
            prefix = rows.intent_key("")
            self._stale |= {k.removeprefix(prefix) for k in keys if k.startswith(prefix)}
            self._stale.discard("")  # `follows`' own key: no intent of its own

    def follows(self) -> frozenset[str]:
        """What the notifier is to hear of: every intent (their keys share one channel)."""
        return frozenset({rows.intent_key("")})

    def _refresh(self, conn: Connection, *, writing: str | None = None) -> None:
        """Read again what was announced, before a question (under the lock). The intent a
        transaction is `writing` stays to be read after it commits: its row there is not yet
        the store's."""
        with self._stale_lock:
            stale, self._stale = self._stale, set()
        if not self._loaded:
            return
        changed = rows.intents_after(conn, self._latest)
        if stale is None:
            changed = rows.all_intents(conn)
        elif stale - {row.id for row in changed}:
            changed += rows.find_intents(conn, stale)
        for row in changed:
            if row.id == writing:
                self.heard(frozenset({rows.intent_key(row.id)}))
            else:
                self._take(row)

    def load(self) -> None:
        """Read every indexed intent from the store, once."""
        with self._lock:
            self._load()

    def _load(self) -> None:
        if self._loaded:
            return
        self._discovery = Discovery(
            mutual_threshold=self._mutual_threshold, embed=embedder_for(self._ranking)
        )
        for row in self._db.read(rows.indexed_intents):
            self._take(row)
        self._loaded = True

    def update(self, row: rows.IntentRow) -> None:
        """The intent as a committed write left it; nothing before the index is loaded (the
        load reads it from the store then)."""
        with self._lock:
            if self._loaded:
                self._take(row)

    def _take(self, row: rows.IntentRow) -> None:
        if self._revisions.get(row.id, -1) >= row.revision:
            return
        self._revisions[row.id] = row.revision
        self._latest = max(self._latest, row.revision)
        self._discovery.upsert(intent_doc(row))

    def ask(self, conn: Connection, fn: Callable[[Discovery], T]) -> T:
        """`fn` over the loaded index, alone, once what was announced is read again."""
        with self._lock:
            self._load()
            self._refresh(conn)
            return fn(self._discovery)

    def candidates(
        self, conn: Connection, intent_id: str, query: str | None, limit: int
    ) -> list[Candidate]:
        lookup = networks_of(conn)
        return self.ask(conn, lambda d: d.candidates(intent_id, lookup, query=query, limit=limit))

    def opening(self, conn: Connection, a_id: str, b_id: str) -> tuple[bool, bool] | None:
        """`(mutual, constraint_fit)` when `a` may open the pair with `b`, else None."""
        lookup = networks_of(conn)
        return self.ask(conn, lambda d: d.opening(a_id, b_id, lookup))

    def checks_as_if(
        self, conn: Connection, row: rows.IntentRow, pairs: Sequence[tuple[str, str]]
    ) -> list[tuple[bool, bool] | None]:
        """`(mutual, constraint_fit)` of each opened pair with the intent as `row` holds it,
        inside the transaction that is writing it: the index takes the row for the question
        and gives it back, so a write rolled back leaves no trace and a committed one is taken
        by `update` as usual."""
        if not pairs:  # an intent that follows no negotiation loads nothing (nor the model)
            return []
        lookup = networks_of(conn)
        with self._lock:
            self._load()
            self._refresh(conn, writing=row.id)
            discovery = self._discovery
            before = discovery.doc(row.id)
            discovery.upsert(intent_doc(row))
            try:
                return [discovery.checks(a, b, lookup) for a, b in pairs]
            finally:
                if before is None:
                    discovery.remove(row.id)
                else:
                    discovery.upsert(before)

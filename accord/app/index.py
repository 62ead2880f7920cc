"""The discovery index of this process: built from the store on first use (the server asks
at startup), then kept current by the intents service after each write that commits.

Writes commit in the store's order but their callers tell the index in their own, so each
intent's revision (the store's order of edits) is remembered, also for one that left the index:
an older revision arriving late never replaces a newer one. One lock serialises queries and
updates, which the lexical index needs.
"""

import functools
import threading
from collections.abc import Callable, Sequence
from typing import TypeVar

from sqlalchemy import Connection

from accord.discovery import Candidate, Discovery, IntentDoc, constraint_from_json
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
    def __init__(self, db: Database, *, mutual_threshold: float) -> None:
        self._db = db
        self._discovery = Discovery(mutual_threshold=mutual_threshold)
        self._revisions: dict[str, int] = {}
        self._loaded = False
        self._lock = threading.Lock()

    def load(self) -> None:
        """Read every indexed intent from the store, once."""
        with self._lock:
            self._load()

    def _load(self) -> None:
        if self._loaded:
            return
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
        self._discovery.upsert(intent_doc(row))

    def ask(self, fn: Callable[[Discovery], T]) -> T:
        """`fn` over the loaded index, alone."""
        with self._lock:
            self._load()
            return fn(self._discovery)

    def candidates(
        self, conn: Connection, intent_id: str, query: str | None, limit: int
    ) -> list[Candidate]:
        lookup = networks_of(conn)
        return self.ask(lambda d: d.candidates(intent_id, lookup, query=query, limit=limit))

    def opening(self, conn: Connection, a_id: str, b_id: str) -> tuple[bool, bool] | None:
        """`(mutual, constraint_fit)` when `a` may open the pair with `b`, else None."""
        lookup = networks_of(conn)
        return self.ask(lambda d: d.opening(a_id, b_id, lookup))

    def checks_as_if(
        self, conn: Connection, row: rows.IntentRow, pairs: Sequence[tuple[str, str]]
    ) -> list[tuple[bool, bool] | None]:
        """`(mutual, constraint_fit)` of each opened pair with the intent as `row` holds it,
        inside the transaction that is writing it: the index takes the row for the question
        and gives it back, so a write rolled back leaves no trace and a committed one is taken
        by `update` as usual."""
        lookup = networks_of(conn)
        with self._lock:
            self._load()
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

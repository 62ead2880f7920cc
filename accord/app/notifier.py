"""Wakes the event streams of this process that follow what a commit appended to.

A stream watches keys: the negotiation id of a seat, or a scope. A commit's keys wake only the
streams watching one of them, so an append to one room costs nothing to the streams of others.
On SQLite (one process) the writer's caller reports each commit with `notify`; on PostgreSQL
the database announces every process's commits (NOTIFY), and the process's one listener
reports them with `wake`, so `notify` has nothing to add there."""

import asyncio
import threading
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager

_Waiter = tuple[asyncio.AbstractEventLoop, asyncio.Event]
Heard = Callable[[frozenset[str] | None], None]


class Notifier:
    def __init__(self, *, database_notifies: bool = False) -> None:
        """`database_notifies`: every commit is announced by the database itself (PostgreSQL's
        NOTIFY, heard by the listener); then `notify` does nothing."""
        self._database_notifies = database_notifies
        self._lock = threading.Lock()
        self._by_key: dict[str, set[_Waiter]] = {}
        self._all: set[_Waiter] = set()
        self._heard: list[Heard] = []

    def subscribe(self, heard: Heard) -> None:
        """Tell `heard` too of every commit's keys (None: any may have been missed), on the
        thread that hears them: what a process keeps in memory beside the store (the discovery
        index) learns of other processes' commits this way. It must be quick."""
        self._heard.append(heard)

    @property
    def database_notifies(self) -> bool:
        return self._database_notifies

    @contextmanager
    def watch(self, keys: Collection[str]) -> Iterator[asyncio.Event]:
        """An event, set (on the running loop) whenever a commit touches one of `keys`."""
        waiter = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            self._all.add(waiter)
            for key in keys:
                self._by_key.setdefault(key, set()).add(waiter)
        try:
            yield waiter[1]
        finally:
            with self._lock:
                self._all.discard(waiter)
                for key in keys:
                    watching = self._by_key.get(key)
                    if watching is not None:
                        watching.discard(waiter)
                        if not watching:
                            del self._by_key[key]

    def notify(self, keys: Iterable[str] | None = None) -> None:
        """What a writer calls once a commit is durable, with the keys its events returned
        (`accord.store.events.insert_events`); None when they are not known, which wakes every
        stream. Safe from any thread."""
        if not self._database_notifies:
            self.wake(keys)

    def wake(self, keys: Iterable[str] | None = None) -> None:
        """Wake the streams watching any of `keys`, or every stream for None."""
        for heard in self._heard:
            heard(None if keys is None else frozenset(keys))
        with self._lock:
            if keys is None:
                waiters = list(self._all)
            else:
                waiters = list({w for key in keys for w in self._by_key.get(key, ())})
        for loop, event in waiters:
            if not loop.is_closed():
                loop.call_soon_threadsafe(event.set)

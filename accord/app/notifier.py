"""Wakes the event streams of this process that follow what a commit appended to.

A stream watches keys: the negotiation id of a seat, or a scope. A commit's keys wake only the
streams watching one of them, so an append to one room costs nothing to the streams of others.
On SQLite (one process) the writer's caller reports each commit with `notify`; on PostgreSQL
the database announces every process's commits (NOTIFY), and the process's one listener
reports them with `wake`, so `notify` has nothing to add there. The listener listens only on
the channels of the keys followed here (`channels`), so another process's commit to a room
nobody here follows wakes nothing in this process."""

import asyncio
import threading
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from accord.store.notifications import CHANNEL, channel

_Waiter = tuple[asyncio.AbstractEventLoop, asyncio.Event]
Heard = Callable[[frozenset[str] | None], None]
Follows = Callable[[], frozenset[str] | None]
"""The keys a subscriber follows now; None: every key."""


@dataclass(frozen=True)
class _Subscriber:
    heard: Heard
    follows: Follows


def _everything() -> None:
    return None


class Notifier:
    def __init__(self, *, database_notifies: bool = False) -> None:
        """`database_notifies`: every commit is announced by the database itself (PostgreSQL's
        NOTIFY, heard by the listener); then `notify` does nothing."""
        self._database_notifies = database_notifies
        self._lock = threading.Lock()
        self._by_key: dict[str, set[_Waiter]] = {}
        self._all: set[_Waiter] = set()
        self._subscribers: list[_Subscriber] = []
        self._changed: Callable[[], None] | None = None

    def subscribe(self, heard: Heard, follows: Follows = _everything) -> Callable[[], None]:
        """Tell `heard` too of the keys of commits (None: any may have been missed), on the
        thread that hears them: what a process keeps in memory beside the store (the discovery
        index) learns of other processes' commits this way. It must be quick. On PostgreSQL it
        hears of the keys `follows()` names (or of every commit, for None), and perhaps of
        others; the subscriber calls the function returned whenever `follows()` changed."""
        self._subscribers.append(_Subscriber(heard, follows))
        return self.changed

    def attach(self, changed: Callable[[], None] | None) -> None:
        """The listener's `changed`, called when the channels followed here may have changed
        (None: no listener)."""
        self._changed = changed

    def changed(self) -> None:
        if self._changed is not None:
            self._changed()

    def _followed(self) -> set[str] | None:
        """The keys the streams watch and the subscribers follow; None: every key."""
        followed: set[str] = set()
        for subscriber in self._subscribers:
            keys = subscriber.follows()
            if keys is None:
                return None
            followed |= keys
        with self._lock:
            followed |= self._by_key.keys()
        return followed

    def channels(self) -> frozenset[str]:
        """The channels to listen on: `CHANNEL` alone while a subscriber follows everything,
        else those of the keys followed here."""
        followed = self._followed()
        if followed is None:
            return frozenset({CHANNEL})
        return frozenset(channel(key) for key in followed)

    def listened(self, channels: frozenset[str]) -> None:
        """The listener listens on `channels` from now on: what follows their keys reads the
        store again, since a commit made just before was announced to no one here."""
        followed = self._followed()
        if CHANNEL in channels or followed is None:
            self.wake(None)
            return
        keys = {key for key in followed if channel(key) in channels}
        if keys:
            self.wake(keys)

    @property
    def database_notifies(self) -> bool:
        return self._database_notifies

    @contextmanager
    def watch(self, keys: Collection[str]) -> Iterator[asyncio.Event]:
        """An event, set (on the running loop) whenever a commit touches one of `keys`."""
        waiter = (asyncio.get_running_loop(), asyncio.Event())
        with self._lock:
            self._all.add(waiter)
            new = [key for key in keys if key not in self._by_key]
            for key in keys:
                self._by_key.setdefault(key, set()).add(waiter)
        if new:
            self.changed()
        try:
            yield waiter[1]
        finally:
            gone = False
            with self._lock:
                self._all.discard(waiter)
                for key in keys:
                    watching = self._by_key.get(key)
                    if watching is not None:
                        watching.discard(waiter)
                        if not watching:
                            del self._by_key[key]
                            gone = True
            if gone:
                self.changed()

    def notify(self, keys: Iterable[str] | None = None) -> None:
        """What a writer calls once a commit is durable, with the keys its events returned
        (`accord.store.events.insert_events`); None when they are not known, which wakes every
        stream. Safe from any thread."""
        if not self._database_notifies:
            self.wake(keys)

    def wake(self, keys: Iterable[str] | None = None) -> None:
        """Wake the streams watching any of `keys`, or every stream for None."""
        heard = None if keys is None else frozenset(keys)
        for subscriber in self._subscribers:
            subscriber.heard(heard)
        with self._lock:
            if keys is None:
                waiters = list(self._all)
            else:
                waiters = list({w for key in keys for w in self._by_key.get(key, ())})
        for loop, event in waiters:
            if not loop.is_closed():
                loop.call_soon_threadsafe(event.set)

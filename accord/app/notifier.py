"""Wakes event streams in this process when something was appended; streams also poll the
store, so appends made by other processes reach them too."""

import asyncio
import threading


class Notifier:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiters: set[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = set()

    def register(self) -> asyncio.Event:
        event = asyncio.Event()
        with self._lock:
            self._waiters.add((asyncio.get_running_loop(), event))
        return event

    def unregister(self, event: asyncio.Event) -> None:
        with self._lock:
            self._waiters = {w for w in self._waiters if w[1] is not event}

    def notify(self) -> None:
        with self._lock:
            waiters = list(self._waiters)
        for loop, event in waiters:
            if not loop.is_closed():
                loop.call_soon_threadsafe(event.set)

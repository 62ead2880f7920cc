"""Telegram notifications: each linked chat is told of its binding's owner-level audience (A7).

The process that notifies follows the audiences of the bindings it last read, and `BOUND`,
which a new binding announces: on PostgreSQL it hears the commits to what its chats are told
of, not every commit.

At least once per event and binding, deduplicated on (binding, event id): an event is recorded
as delivered only after its messages were sent, and never sent again once recorded. Telegram's
`retry_after` is waited out; a chat that blocked the bot ends its bindings (recorded), never
the rooms."""

import asyncio
import contextlib
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Final

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError, TelegramForbiddenError, TelegramRetryAfter

from accord.app.channels import BOUND, Binding, Channels
from accord.core.refusals import Refused
from accord.store.events import EventRow
from accord.telegram.chat import Chat
from accord.telegram.messages import Reply

log = logging.getLogger("accord.telegram")

BATCH: Final = 50
POLL_SECONDS: Final = 5.0
RESCAN_SECONDS: Final = 60.0
RETRIES: Final = 3


class Undeliverable(Exception):
    """Telegram did not take a message; the event stays undelivered for the next round."""


class Notifications:
    def __init__(self, chat: Chat, bot: Bot, channels: Callable[[], Channels]) -> None:
        self._chat = chat
        self._bot = bot
        self._channels = channels
        self._touched: set[str] | None = None  # None: look at every binding
        self._lock = threading.Lock()
        self._wakeup: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._follows: frozenset[str] = frozenset()
        """The bindings' audiences as the last round read them, and `BOUND`; nothing while
        this process does not notify."""
        self.changed: Callable[[], None] = lambda: None
        """Called when `follows` answers otherwise (the notifier's, once subscribed)."""

    def heard(self, keys: frozenset[str] | None) -> None:
        """A notifier subscriber: a commit touched these keys (None: any; `BOUND`: a binding
        was made, so every binding is looked at)."""
        with self._lock:
            if keys is None or BOUND in keys:
                self._touched = None
            elif self._touched is not None:
                self._touched |= keys
        if self._loop is not None and self._wakeup is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._wakeup.set)

    def follows(self) -> frozenset[str]:
        """What the notifier is to hear of. A binding made since the last round is heard of
        by `BOUND`; once the round has read it, the notifier tells of its audience once more,
        and its events since the binding are sent."""
        return self._follows

    def _follow(self, follows: frozenset[str]) -> None:
        if follows != self._follows:
            self._follows = follows
            self.changed()

    async def run(self, stop: asyncio.Event) -> None:
        """Rounds until `stop` is set: after a commit, and every few seconds for what Telegram
        did not take; between rounds only."""
        self._loop = asyncio.get_running_loop()
        self._wakeup = wakeup = asyncio.Event()
        try:
            await self._rounds(stop, wakeup)
        finally:
            self._follow(frozenset())

    async def _rounds(self, stop: asyncio.Event, wakeup: asyncio.Event) -> None:
        last_scan = 0.0
        while not stop.is_set():
            if time.monotonic() - last_scan > RESCAN_SECONDS:
                with self._lock:
                    self._touched = None
                last_scan = time.monotonic()
            try:
                await self.round()
            except Exception:  # the worker outlives a bad round; the next one retries
                log.exception("telegram notification round failed")
            if not stop.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(wakeup.wait(), POLL_SECONDS)
            wakeup.clear()

    async def round(self) -> int:
        """Every binding whose audience a commit touched gets its new events; the number of
        events delivered."""
        with self._lock:
            touched, self._touched = self._touched, set()
        channels = self._channels()
        delivered = 0
        held = await asyncio.to_thread(channels.every)
        self._follow(frozenset({BOUND}).union(*(binding.audience.keys for binding in held)))
        blocked: set[str] = set()
        for binding in held:
            if binding.chat_id in blocked:
                continue
            if touched is not None and not (binding.audience.keys & touched):
                continue
            try:
                delivered += await self.deliver(channels, binding)
            except TelegramForbiddenError:
                blocked.add(binding.chat_id)
                await asyncio.to_thread(self._blocked, channels, binding.chat_id)
            except Undeliverable as problem:
                log.warning("telegram did not take a message (%s); retrying later", problem)
                with self._lock:  # look at this binding again next round
                    if self._touched is not None:
                        self._touched |= binding.audience.keys
        return delivered

    async def deliver(self, channels: Channels, binding: Binding) -> int:
        delivered = 0
        while True:
            rows = await asyncio.to_thread(channels.undelivered, binding, BATCH)
            for row in rows:
                for reply in await asyncio.to_thread(self._replies, binding, row):
                    message_id = await self._send(binding.chat_id, reply)
                    if reply.asks is not None:  # a reply to it answers the question
                        await asyncio.to_thread(
                            self._chat.record, binding.chat_id, message_id, reply.asks
                        )
                await asyncio.to_thread(channels.delivered, binding.id, [row.id])
                delivered += 1
            if len(rows) < BATCH:
                return delivered

    def _replies(self, binding: Binding, row: EventRow) -> list[Reply]:
        try:
            return self._chat.notification(binding, row.kind, json.loads(row.data))
        except Refused as refused:  # what the event was about no longer opens: nothing to say
            log.info("telegram: nothing to show for event %s (%s)", row.id, refused.refusal.code)
            return []

    async def _send(self, chat_id: str, reply: Reply) -> int:
        """The sent message's id, as Telegram names it."""
        for _ in range(RETRIES):
            try:
                sent = await self._bot.send_message(
                    int(chat_id), reply.text, reply_markup=reply.markup
                )
                return sent.message_id
            except TelegramRetryAfter as wait:
                await asyncio.sleep(wait.retry_after)
            except TelegramForbiddenError:
                raise
            except TelegramAPIError as failure:
                raise Undeliverable(type(failure).__name__) from failure
        raise Undeliverable("retry_after kept coming")

    def _blocked(self, channels: Channels, chat_id: str) -> None:
        for binding in channels.held(chat_id):
            channels.end(binding.id, "blocked")
        log.info("a chat blocked the bot; its links ended")

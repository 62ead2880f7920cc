"""The Telegram door inside `accord serve` (interfaces.md, Telegram): on when a bot token is
set. In `polling` mode one process (the one holding an advisory lock on PostgreSQL) asks
Telegram for updates; in `webhook` mode Telegram posts them to `/telegram/webhook`, checked
against the secret token the door set, and any process answers. Notifications are sent by the
leading process in both modes."""

import asyncio
import contextlib
import hashlib
import hmac
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Final

from aiogram.client.session.base import BaseSession
from aiogram.exceptions import TelegramAPIError
from pydantic import ValidationError
from starlette.types import Receive, Scope, Send

from accord.app.root import Accord
from accord.app.settings import Settings, TelegramMode
from accord.store.leader import leading
from accord.telegram.bot import build_dispatcher, make_bot
from accord.telegram.chat import Chat
from accord.telegram.notify import Notifications

PATH: Final = "/telegram/webhook"
SECRET_HEADER: Final = b"x-telegram-bot-api-secret-token"
LOCK_KEY: Final = 7207352  # beside the migrations' 7207351
LEAD_RETRY_SECONDS: Final = 30.0
MAX_UPDATE_BYTES: Final = 1 << 20

log = logging.getLogger("accord.telegram")


def webhook_secret(token: str) -> str:
    """The secret Telegram sends back with every update: derived from the bot's token, so
    every process knows it and nothing stores it (Telegram allows `[A-Za-z0-9_-]`, 1..256)."""
    return hashlib.sha256(b"accord telegram webhook\x00" + token.encode()).hexdigest()


class TelegramDoor:
    path = PATH

    def __init__(
        self,
        accord: Callable[[], Accord],
        settings: Settings,
        *,
        session: BaseSession | None = None,
    ) -> None:
        assert settings.telegram_token, "the Telegram door needs a bot token"
        self._accord = accord
        self._settings = settings
        self._token = settings.telegram_token
        self.chat = Chat(accord)
        self.bot = make_bot(self._token, session)
        self.dispatcher = build_dispatcher(self.chat)
        self.notifications: Notifications | None = None

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        accord = self._accord()
        channels = accord.telegram
        assert channels is not None
        self.notifications = Notifications(self.chat, self.bot, lambda: channels)
        self.notifications.changed = accord.notifier.subscribe(
            self.notifications.heard, self.notifications.follows
        )
        stop = asyncio.Event()
        task = asyncio.create_task(self._start(stop), name="accord-telegram")
        try:
            yield
        finally:
            stop.set()
            self.notifications.heard(None)  # wakes its wait, so that it sees `stop`
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(task, 10)
            await self.bot.session.close()

    async def _start(self, stop: asyncio.Event) -> None:
        """In the background, so that a slow Telegram never holds up the server's start: the
        bot's name, its webhook, then leading."""
        await self._name_the_bot()
        if self._settings.telegram_mode is TelegramMode.WEBHOOK:
            await self._set_webhook()
        await self._lead(stop)

    async def _name_the_bot(self) -> None:
        """The username for t.me links: the setting, or Telegram's `getMe` (asked again while
        leading, until it answers)."""
        links = self._accord().links
        if self._settings.telegram_bot:
            links.telegram_bot = self._settings.telegram_bot
            return
        try:
            me = await self.bot.get_me()
        except TelegramAPIError as failure:
            log.warning("telegram getMe failed (%s); links carry no t.me address yet", failure)
            return
        links.telegram_bot = me.username

    async def _set_webhook(self) -> None:
        try:
            await self.bot.set_webhook(
                f"{self._settings.base_url}{PATH}",
                secret_token=webhook_secret(self._token),
                allowed_updates=self.dispatcher.resolve_used_update_types(),
            )
        except TelegramAPIError as failure:
            log.warning("telegram setWebhook failed (%s); updates will not arrive", failure)

    async def _lead(self, stop: asyncio.Event) -> None:
        """Try to lead until stopped; the leader polls (in polling mode) and notifies."""
        accord = self._accord()
        while not stop.is_set():
            if accord.links.telegram_bot is None:
                await self._name_the_bot()
            async with leading(accord.db.url, accord.db.dialect, LOCK_KEY) as leads:
                if leads:
                    await self._serve(stop)
            if not stop.is_set():
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(stop.wait(), LEAD_RETRY_SECONDS)

    async def _serve(self, stop: asyncio.Event) -> None:
        assert self.notifications is not None
        tasks = [asyncio.create_task(self.notifications.run(stop))]
        polling = self._settings.telegram_mode is TelegramMode.POLLING
        if polling:
            tasks.append(asyncio.create_task(self._poll()))
        await stop.wait()
        if polling:
            with contextlib.suppress(RuntimeError):  # polling had not started
                await self.dispatcher.stop_polling()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _poll(self) -> None:
        try:
            await self.bot.delete_webhook()
        except TelegramAPIError as failure:
            log.warning("telegram deleteWebhook failed (%s)", failure)
        await self.dispatcher.start_polling(
            self.bot,
            handle_signals=False,
            close_bot_session=False,
            allowed_updates=self.dispatcher.resolve_used_update_types(),
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """`POST /telegram/webhook` from Telegram: the update, fed to the handlers."""
        if self._settings.telegram_mode is not TelegramMode.WEBHOOK:
            await _answer(send, 404, {"error": {"code": "not_found", "message": "Not found."}})
            return
        if scope.get("method") != "POST":
            await _answer(send, 405, {"error": {"code": "method_not_allowed", "message": "POST."}})
            return
        sent = dict(scope.get("headers", ())).get(SECRET_HEADER, b"")
        if not hmac.compare_digest(sent, webhook_secret(self._token).encode()):
            message = "Only Telegram posts here."
            await _answer(send, 401, {"error": {"code": "unauthenticated", "message": message}})
            return
        body = await _body(receive)
        try:
            update = json.loads(body) if body is not None else None
        except ValueError:
            update = None
        if not isinstance(update, dict):
            message = "Send one Telegram update as JSON."
            await _answer(send, 400, {"error": {"code": "invalid_request", "message": message}})
            return
        try:
            await self.dispatcher.feed_raw_update(self.bot, update)
        except ValidationError:
            message = "This is not a Telegram update."
            await _answer(send, 400, {"error": {"code": "invalid_request", "message": message}})
            return
        await _answer(send, 200, {})


async def _body(receive: Receive) -> bytes | None:
    chunks, size = [], 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_UPDATE_BYTES:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


async def _answer(send: Send, status: int, body: object) -> None:
    raw = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(raw)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": raw})

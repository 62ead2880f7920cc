"""A Telegram Bot API that records each method the bot calls and answers it as Telegram would
(aiogram's own way of testing a bot offline: a `BaseSession` in place of the HTTP client).
Answers go through aiogram's `check_response`, so a scripted failure raises the exception the
real API's answer would."""

import asyncio
import itertools
import json
from collections import deque
from collections.abc import AsyncGenerator
from typing import Any

from aiogram import Bot
from aiogram.client.session.base import BaseSession
from aiogram.methods import (
    AnswerCallbackQuery,
    EditMessageText,
    GetMe,
    GetUpdates,
    SendMessage,
    TelegramMethod,
)
from aiogram.methods.base import TelegramType

BOT_USER: dict[str, Any] = {
    "id": 42,
    "is_bot": True,
    "first_name": "Accord",
    "username": "accord_test_bot",
}
BLOCKED: tuple[int, str, dict[str, Any]] = (403, "Forbidden: bot was blocked by the user", {})
SLOW_DOWN: tuple[int, str, dict[str, Any]] = (
    429,
    "Too Many Requests: retry after 1",
    {"retry_after": 1},
)
FLAKY: tuple[int, str, dict[str, Any]] = (502, "Bad Gateway", {})


class RecordingSession(BaseSession):
    def __init__(self) -> None:
        super().__init__()
        self.requests: list[TelegramMethod[Any]] = []
        self.failures: deque[tuple[int, str, dict[str, Any]]] = deque()
        """Answers for the next `sendMessage` calls, before any success."""
        self.updates: deque[dict[str, Any]] = deque()
        """What the next `getUpdates` returns (polling mode)."""
        self._ids = itertools.count(1000)
        self._message_ids: dict[int, int] = {}

    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: int | None = None
    ) -> TelegramType:
        if isinstance(method, GetUpdates):  # a long poll: waits a little, then what came
            await asyncio.sleep(0.05)
            updates = list(self.updates)
            self.updates.clear()
            answer = json.dumps({"ok": True, "result": updates})
            return self.check_response(bot, method, 200, answer).result  # type: ignore[return-value]
        self.requests.append(method)
        if isinstance(method, SendMessage) and self.failures:
            status, description, parameters = self.failures.popleft()
            content: dict[str, Any] = {
                "ok": False,
                "error_code": status,
                "description": description,
            }
            if parameters:
                content["parameters"] = parameters
            self.check_response(bot, method, status, json.dumps(content))
            raise AssertionError("check_response raises for an error answer")
        done = json.dumps({"ok": True, "result": self._result(method)})
        return self.check_response(bot, method, 200, done).result  # type: ignore[return-value]

    def _result(self, method: TelegramMethod[Any]) -> Any:
        match method:
            case GetMe():
                return BOT_USER
            case SendMessage() | EditMessageText():
                chat_id = getattr(method, "chat_id", None) or 1
                message_id = next(self._ids)
                self._message_ids[id(method)] = message_id
                return {
                    "message_id": message_id,
                    "date": 0,
                    "chat": {"id": chat_id, "type": "private"},
                    "text": method.text,
                }
            case AnswerCallbackQuery():
                return True
        return True

    async def close(self) -> None:
        pass

    async def stream_content(
        self,
        url: str,
        headers: dict[str, Any] | None = None,
        timeout: int = 30,
        chunk_size: int = 65536,
        raise_for_status: bool = True,
    ) -> AsyncGenerator[bytes, None]:
        yield b""

    # -- reading what was sent -------------------------------------------------------------

    def sent(self, chat_id: int | None = None) -> list[SendMessage]:
        return [
            m
            for m in self.requests
            if isinstance(m, SendMessage) and (chat_id is None or m.chat_id == chat_id)
        ]

    def message_id(self, sent: SendMessage) -> int:
        """The id Telegram gave a message the bot sent."""
        return self._message_ids[id(sent)]

    def of(self, kind: type[TelegramMethod[Any]]) -> list[Any]:
        return [m for m in self.requests if isinstance(m, kind)]

    def clear(self) -> None:
        self.requests.clear()


class Person:
    """A Telegram user in a private chat with the bot, making updates as Telegram would."""

    _updates = itertools.count(1)

    def __init__(self, chat_id: int, chat_type: str = "private") -> None:
        self.chat_id = chat_id
        self.chat_type = chat_type

    def _chat(self) -> dict[str, Any]:
        chat: dict[str, Any] = {"id": self.chat_id, "type": self.chat_type}
        if self.chat_type != "private":
            chat["title"] = "A group"
        return chat

    def _from(self) -> dict[str, Any]:
        return {"id": self.chat_id if self.chat_type == "private" else 7, "is_bot": False,
                "first_name": "Ann"}  # fmt: skip

    def says(self, text: str) -> dict[str, Any]:
        n = next(self._updates)
        message: dict[str, Any] = {
            "message_id": n,
            "date": 0,
            "chat": self._chat(),
            "from": self._from(),
            "text": text,
        }
        if text.startswith("/"):
            command = text.split()[0]
            message["entities"] = [{"type": "bot_command", "offset": 0, "length": len(command)}]
        return {"update_id": n, "message": message}

    def replies(self, text: str | None, to: int) -> dict[str, Any]:
        """A reply to the bot's message `to` (text None: a reply with no text, a sticker's)."""
        update = self.says(text or "")
        message = update["message"]
        if text is None:
            del message["text"]
        message["reply_to_message"] = {
            "message_id": to,
            "date": 0,
            "chat": self._chat(),
            "from": BOT_USER,
            "text": "…",
        }
        return update

    def taps(self, data: str, message_id: int = 1) -> dict[str, Any]:
        n = next(self._updates)
        return {
            "update_id": n,
            "callback_query": {
                "id": f"cq{n}",
                "from": self._from(),
                "chat_instance": "ci",
                "data": data,
                "message": {
                    "message_id": message_id,
                    "date": 0,
                    "chat": self._chat(),
                    "text": "…",
                },
            },
        }

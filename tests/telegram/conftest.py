"""Telegram tests, offline as aiogram documents: updates fed to the dispatcher
(`Dispatcher.feed_raw_update`) of a bot whose session records each method and answers it,
over the real application layer and store."""

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from aiogram import Bot, Dispatcher
from starlette.testclient import TestClient

from accord.app.root import Accord
from accord.app.settings import Settings
from accord.http.app import create_app
from accord.protocols.rooms.moves import JoinRequest, MoveRequest, OpenRequest
from accord.serve import PAGES
from accord.store.database import Database
from accord.telegram.bot import build_dispatcher, make_bot
from accord.telegram.chat import Chat
from accord.telegram.door import TelegramDoor
from accord.telegram.notify import Notifications
from tests.conftest import FakeClock
from tests.telegram.recording import Person, RecordingSession

TOKEN = "42:TEST"
SCHEMA: dict[str, Any] = {"price": {"type": "money", "currency": "EUR"}, "day": {"type": "date"}}


def terms(amount: int, day: str = "2026-12-10") -> dict[str, Any]:
    return {"price": {"amount_minor": amount, "currency": "EUR"}, "day": day}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@dataclass
class Telegram:
    accord: Accord
    session: RecordingSession
    bot: Bot
    dispatcher: Dispatcher
    notifications: Notifications

    async def feed(self, update: dict[str, Any]) -> None:
        await self.dispatcher.feed_raw_update(self.bot, update)

    async def link(self, person: Person, token: str) -> None:
        """The person opens the bot's deep link for a code minted with `token`."""
        code = self.accord.links.mint(token)["code"]
        await self.feed(person.says(f"/start {code}"))

    async def tell(self) -> int:
        """One round of notifications after the test's commits. On PostgreSQL the database
        announces commits to the process's listener, which these tests do not run, so the
        round looks at every binding."""
        if self.accord.notifier.database_notifies:
            self.notifications.heard(None)
        return await self.notifications.round()

    def texts(self, chat_id: int) -> list[str]:
        return [m.text for m in self.session.sent(chat_id)]


def telegram_for(accord: Accord) -> Telegram:
    session = RecordingSession()
    bot = make_bot(TOKEN, session)
    chat = Chat(lambda: accord)
    assert accord.telegram is not None
    channels = accord.telegram
    notifications = Notifications(chat, bot, lambda: channels)
    notifications.changed = accord.notifier.subscribe(  # as the door does
        notifications.heard, notifications.follows
    )
    return Telegram(accord, session, bot, build_dispatcher(chat), notifications)


@pytest.fixture
def telegram_settings(settings: Settings) -> Settings:
    return settings.model_copy(update={"telegram_token": TOKEN})


@pytest.fixture
def telegram(db: Database, telegram_settings: Settings, clock: FakeClock) -> Iterator[Telegram]:
    yield telegram_for(Accord(telegram_settings, clock=clock, db=db))


@contextmanager
def served(settings: Settings, clock: FakeClock) -> Iterator[tuple[TestClient, RecordingSession]]:
    session = RecordingSession()

    def door(accord: Callable[[], Accord]) -> TelegramDoor:
        return TelegramDoor(accord, settings, session=session)

    app = create_app(settings, clock=clock, doors=(door,), pages=PAGES)
    with TestClient(app, base_url=settings.base_url) as client:
        yield client, session


def eventually(check: Callable[[], Any], seconds: float = 10.0) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        found = check()
        if found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


@dataclass
class Room:
    room_id: str
    name: str
    opener_seat: str
    opener_owner: str
    joiner_seat: str
    joiner_owner: str


def a_room(accord: Accord) -> Room:
    """A room both sides have joined, with 100 EUR on the table; the opener will pay at most
    120 EUR, and it is the joiner's turn."""
    opened = accord.rooms.open(
        OpenRequest(
            subject_schema=SCHEMA,
            subject=terms(10000),
            title="A bike",
            limits={"price": {"max": {"amount_minor": 12000, "currency": "EUR"}}},
        )
    )
    joined = accord.rooms.join(JoinRequest(invite_token=opened["invite"]["token"]))
    return Room(
        opened["room"]["room_id"],
        opened["room"]["name"],
        opened["seat_token"],
        opened["owner_token"],
        joined["seat_token"],
        joined["owner_token"],
    )


def move(accord: Accord, token: str, room: Room, **body: Any) -> dict[str, Any]:
    status, answer = accord.rooms.move(token, room.room_id, MoveRequest(**body))
    assert status in (200, 202), answer
    return answer

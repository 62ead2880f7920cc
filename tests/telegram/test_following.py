"""What the process that notifies follows: its chats' audiences and new bindings, so that on
PostgreSQL it hears the commits its chats are told of and not every commit."""

import queue

import pytest

from accord.app.channels import BOUND
from accord.store import notifications
from accord.store.database import Database
from accord.telegram.chat import Chat
from accord.telegram.notify import Notifications
from tests.telegram.conftest import Telegram, a_room, move, terms
from tests.telegram.recording import Person

pytestmark = pytest.mark.anyio

ANN = Person(1001)
WAIT_SECONDS = 10.0


async def test_it_follows_the_audiences_of_the_bindings_it_read(telegram: Telegram) -> None:
    accord, notified = telegram.accord, telegram.notifications
    bindings = accord.telegram
    assert bindings is not None
    told: list[frozenset[str]] = []
    notified.changed = lambda: told.append(notified.follows())
    assert notified.follows() == frozenset()  # a process that does not notify follows nothing
    assert notifications.CHANNEL not in accord.notifier.channels()

    room = a_room(accord)
    await telegram.link(ANN, room.opener_owner)
    await telegram.tell()
    (binding,) = bindings.every()
    follows = frozenset({BOUND}) | binding.audience.keys
    assert told == [follows] and notified.follows() == follows
    channels = accord.notifier.channels()
    assert notifications.CHANNEL not in channels
    assert {notifications.channel(key) for key in follows} <= channels

    await telegram.tell()
    assert told == [follows]  # the same bindings: nothing to listen on anew

    bindings.unlink(str(ANN.chat_id), binding.id)
    await telegram.tell()
    assert told[-1] == frozenset({BOUND}) == notified.follows()


async def test_a_new_binding_wakes_a_look_at_every_binding(telegram: Telegram) -> None:
    accord = telegram.accord
    assert accord.telegram is not None
    channels = accord.telegram
    # told of nothing but what the test says (the fixture's is told of every local commit)
    notified = Notifications(Chat(lambda: accord), telegram.bot, lambda: channels)
    assert await notified.round() == 0  # the first round looks at every binding: none yet
    room = a_room(accord)
    await telegram.link(ANN, room.opener_owner)
    move(accord, room.joiner_seat, room, type="counter", terms=terms(13000))
    telegram.session.clear()
    notified.heard(frozenset({"some:other"}))
    assert await notified.round() == 0  # the new binding's audience was not touched
    notified.heard(frozenset({BOUND}))
    assert await notified.round() >= 1  # now it is read, and its events since are sent
    assert any("They countered." in text for text in telegram.texts(ANN.chat_id))


def test_a_binding_announces_itself_to_every_process(db: Database, telegram: Telegram) -> None:
    if db.dialect != "postgresql":
        pytest.skip("NOTIFY exists only on PostgreSQL")
    heard: queue.Queue[frozenset[str] | None] = queue.Queue()
    listening: queue.Queue[bool] = queue.Queue()
    listener = notifications.Listener(
        db.url,
        heard.put,
        wanted=lambda: frozenset({notifications.channel(BOUND)}),
        on_listening=lambda: listening.put(True),
    )
    listener.start()
    try:
        listening.get(timeout=WAIT_SECONDS)
        assert heard.get(timeout=WAIT_SECONDS) is None  # what any listener hears first
        room = a_room(telegram.accord)
        code = telegram.accord.links.mint(room.opener_owner)["code"]
        assert telegram.accord.telegram is not None
        telegram.accord.telegram.bind(str(ANN.chat_id), code)
        got = heard.get(timeout=WAIT_SECONDS)
        assert got is not None and BOUND in got
    finally:
        listener.stop()

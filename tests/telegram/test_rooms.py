"""A room's owner in Telegram: linking by deep link, the notifications of the owner's audience,
confirm and decline by tap, stale buttons, a blocked bot, and delivery at least once without
duplicates."""

import json
import re

import pytest
from aiogram.methods import AnswerCallbackQuery, EditMessageText
from aiogram.types import InlineKeyboardMarkup
from sqlalchemy import select

from accord.app.root import Accord
from accord.store.tables import channel_bindings, channel_unlinks
from accord.telegram.messages import INVALID_LINK, ConfirmTap
from tests.conftest import FakeClock
from tests.telegram.conftest import TOKEN, Telegram, a_room, move, telegram_for, terms
from tests.telegram.recording import BLOCKED, FLAKY, SLOW_DOWN, Person

pytestmark = pytest.mark.anyio

ANN = Person(1001)


def _no_taps(markup: InlineKeyboardMarkup | None) -> bool:
    """The buttons that act are gone (an Open or Receipt link may stay)."""
    rows = markup.inline_keyboard if markup else []
    return all(button.callback_data is None for row in rows for button in row)


def _buttons(telegram: Telegram, chat_id: int) -> list[list[str]]:
    markup = telegram.session.sent(chat_id)[-1].reply_markup
    assert markup is None or isinstance(markup, InlineKeyboardMarkup)
    rows = markup.inline_keyboard if markup else []
    return [[b.callback_data or b.url or "" for b in row] for row in rows]


async def test_a_deep_link_links_the_chat_once_and_shows_the_room(telegram: Telegram) -> None:
    room = a_room(telegram.accord)
    code = telegram.accord.links.mint(room.opener_owner)["code"]
    await telegram.feed(ANN.says(f"/start {code}"))
    linked, state = telegram.texts(ANN.chat_id)
    assert linked == f"{room.name} is linked; confirmations come here."
    assert "<b>price</b>: 100.00 EUR" in state and "Waiting for them." in state
    assert "120" not in state  # the opener's limit is never shown
    assert [r["via"] for r in telegram.accord.links.redemptions(room.room_id)] == ["telegram"]

    # Used, unknown or in a group: one answer, and a group leaves the code unused.
    await telegram.feed(ANN.says(f"/start {code}"))
    await telegram.feed(ANN.says("/start " + "A" * 32))
    assert telegram.texts(ANN.chat_id)[-2:] == [INVALID_LINK, INVALID_LINK]
    group = Person(-5001, "group")
    fresh = telegram.accord.links.mint(room.joiner_owner)["code"]
    await telegram.feed(group.says(f"/start {fresh}"))
    assert telegram.texts(-5001) == [INVALID_LINK]
    bob = Person(1002)
    await telegram.feed(bob.says(f"/start {fresh}"))
    assert telegram.texts(bob.chat_id)[0].endswith("is linked; confirmations come here.")

    # The store holds the credential sealed, never in the clear.
    stored = telegram.accord.db.read(lambda conn: conn.execute(select(channel_bindings)).all())
    assert len(stored) == 2
    dumped = json.dumps([list(map(str, row)) for row in stored])
    assert room.opener_owner not in dumped and room.joiner_owner not in dumped


async def test_the_owner_is_told_confirms_by_tap_and_sees_the_agreement(
    telegram: Telegram,
) -> None:
    accord = telegram.accord
    room = a_room(accord)
    await telegram.link(ANN, room.opener_owner)
    telegram.session.clear()

    move(accord, room.joiner_seat, room, type="counter", terms=terms(13000), message="<b>firm</b>")
    assert await telegram.tell() >= 1
    told = telegram.texts(ANN.chat_id)
    assert len(told) == 1
    assert "They countered." in told[0] and "&lt;b&gt;firm&lt;/b&gt;" in told[0]
    assert "<b>price</b>: 130.00 EUR  ⚠ outside your limits" in told[0]
    assert "120" not in told[0]

    hash_ = accord.rooms.show(room.opener_owner, room.room_id)["table"]["subject_hash"]
    asked = move(accord, room.opener_seat, room, type="approve", subject_hash=hash_)
    assert asked["room"]["pending_confirmation"]["id"] == asked["confirmation"]["id"]
    await telegram.tell()
    confirmation = telegram.texts(ANN.chat_id)[-1]
    assert "your agent asks you to confirm. It would approve these terms." in confirmation
    yes, no = _buttons(telegram, ANN.chat_id)[0]
    cid = asked["confirmation"]["id"]
    assert (yes, no) == (f"cf:{room.room_id}:{cid}:y", f"cf:{room.room_id}:{cid}:n")
    assert len(yes.encode()) <= 64

    await telegram.feed(ANN.taps(yes))
    (answered,) = telegram.session.of(AnswerCallbackQuery)
    assert answered.text == "✅ You confirmed."
    (edited,) = telegram.session.of(EditMessageText)
    assert edited.text.startswith("✅ You confirmed.") and _no_taps(edited.reply_markup)
    approvals = accord.rooms.show(room.opener_owner, room.room_id)["approvals"]
    assert [a["seat"] for a in approvals] == ["opener"]

    # The joiner's owner approves on their own: agreed, and the chat is told once.
    table = accord.rooms.show(room.joiner_owner, room.room_id)["table"]
    move(accord, room.joiner_owner, room, type="approve", subject_hash=table["subject_hash"])
    await telegram.tell()
    await telegram.tell()
    agreed = [t for t in telegram.texts(ANN.chat_id) if t.startswith("🤝 Agreed.")]
    assert len(agreed) == 1 and "The room is agreed." in agreed[0]
    assert _buttons(telegram, ANN.chat_id) == [
        [f"{accord.settings.base_url}/rooms/{room.room_id}/receipt"]
    ]


async def test_a_stale_or_foreign_button_gets_the_refusal_and_the_state(
    telegram: Telegram,
) -> None:
    accord = telegram.accord
    room = a_room(accord)
    await telegram.link(ANN, room.opener_owner)
    move(accord, room.joiner_seat, room, type="counter", terms=terms(11000))
    hash_ = accord.rooms.show(room.opener_owner, room.room_id)["table"]["subject_hash"]
    asked = move(accord, room.opener_seat, room, type="approve", subject_hash=hash_)
    cid = asked["confirmation"]["id"]
    decline = ConfirmTap(room_id=room.room_id, confirmation_id=cid, answer="n")
    await telegram.feed(ANN.taps(decline.pack()))
    assert telegram.session.of(AnswerCallbackQuery)[-1].text == "✖ You declined."
    assert accord.rooms.show(room.opener_owner, room.room_id)["approvals"] == []

    telegram.session.clear()
    await telegram.feed(ANN.taps(decline.pack()))  # the same button, again
    (stale,) = telegram.session.of(AnswerCallbackQuery)
    assert stale.text and "confirm" in stale.text.lower()
    (edited,) = telegram.session.of(EditMessageText)
    assert edited.text.startswith("This cannot be done now:") and _no_taps(edited.reply_markup)
    assert "Your turn." in edited.text

    telegram.session.clear()
    stranger = Person(1003)  # holds no link: the data names the room, the chat has no right
    yes = ConfirmTap(room_id=room.room_id, confirmation_id=cid, answer="y")
    await telegram.feed(stranger.taps(yes.pack()))
    (refused,) = telegram.session.of(AnswerCallbackQuery)
    assert refused.text == "This chat is not linked to that; it may be unlinked."
    assert accord.rooms.show(room.opener_owner, room.room_id)["approvals"] == []


async def test_a_chat_that_blocked_the_bot_ends_its_links_never_the_room(
    telegram: Telegram,
) -> None:
    accord = telegram.accord
    room = a_room(accord)
    await telegram.link(ANN, room.opener_owner)
    telegram.session.clear()
    telegram.session.failures.append(BLOCKED)
    move(accord, room.joiner_seat, room, type="counter", terms=terms(11000))
    await telegram.tell()
    ended = accord.db.read(lambda conn: conn.execute(select(channel_unlinks)).all())
    assert [row.reason for row in ended] == ["blocked"]
    assert accord.telegram is not None and accord.telegram.held(str(ANN.chat_id)) == []

    move(accord, room.opener_seat, room, type="counter", terms=terms(10500))  # the room goes on
    await telegram.tell()
    assert len(telegram.session.sent(ANN.chat_id)) == 1  # only the refused attempt


async def test_each_event_is_delivered_once_through_slowdowns_and_failures(
    telegram: Telegram,
) -> None:
    accord = telegram.accord
    room = a_room(accord)
    await telegram.link(ANN, room.opener_owner)
    telegram.session.clear()
    telegram.session.failures.extend([SLOW_DOWN, FLAKY])
    move(accord, room.joiner_seat, room, type="counter", terms=terms(11000))
    assert await telegram.tell() == 0  # waited once, then Telegram failed
    assert len(telegram.session.sent(ANN.chat_id)) == 2
    await telegram.tell()  # the binding is looked at again
    await telegram.tell()
    sent = telegram.session.sent(ANN.chat_id)
    assert len(sent) == 3 and "They countered." in sent[-1].text


async def test_the_commands(telegram: Telegram) -> None:
    accord = telegram.accord
    room = a_room(accord)
    await telegram.feed(ANN.says("/rooms"))
    assert telegram.texts(ANN.chat_id)[-1].startswith("This chat follows no room.")
    await telegram.link(ANN, room.opener_owner)
    await telegram.feed(ANN.says("/rooms"))
    assert telegram.texts(ANN.chat_id)[-1] == f"<b>{room.name}</b>: Waiting for them."

    await telegram.feed(ANN.says("/pending"))
    assert telegram.texts(ANN.chat_id)[-1] == "Nothing waits for you."
    move(accord, room.joiner_seat, room, type="counter", terms=terms(11000))
    hash_ = accord.rooms.show(room.opener_owner, room.room_id)["table"]["subject_hash"]
    move(accord, room.opener_seat, room, type="approve", subject_hash=hash_)
    await telegram.feed(ANN.says("/pending"))
    assert "asks you to confirm" in telegram.texts(ANN.chat_id)[-1]

    await telegram.feed(ANN.says("/web"))
    (row,) = _buttons(telegram, ANN.chat_id)
    assert re.fullmatch(r"http://127\.0\.0\.1:8000/claim#[A-Za-z0-9_-]{32}", row[0])
    code = row[0].partition("#")[2]
    assert accord.links.redeem(code, "web").token == room.opener_owner

    await telegram.feed(ANN.says("/help"))
    assert "/pending" in telegram.texts(ANN.chat_id)[-1]
    await telegram.feed(ANN.says("hello"))
    assert telegram.texts(ANN.chat_id)[-1].startswith("I answer commands, buttons and replies")

    await telegram.feed(ANN.says("/unlink"))
    ((unlink,),) = _buttons(telegram, ANN.chat_id)
    assert unlink.startswith("ul:bnd_")
    await telegram.feed(ANN.taps(unlink))
    assert telegram.session.of(AnswerCallbackQuery)[-1].text == "Unlinked."
    await telegram.feed(ANN.says("/rooms"))
    assert telegram.texts(ANN.chat_id)[-1].startswith("This chat follows no room.")
    await telegram.feed(ANN.taps(unlink))  # once more: it is gone
    assert "no such link" in (telegram.session.of(AnswerCallbackQuery)[-1].text or "")


async def test_links_survive_a_restart_and_a_new_bot_token_ends_them(
    telegram: Telegram, clock: FakeClock
) -> None:
    accord = telegram.accord
    room = a_room(accord)
    await telegram.link(ANN, room.opener_owner)
    again = telegram_for(Accord(accord.settings, clock=clock, db=accord.db))
    await again.feed(ANN.says("/rooms"))
    assert again.texts(ANN.chat_id) == [f"<b>{room.name}</b>: Waiting for them."]

    other = accord.settings.model_copy(update={"telegram_token": "43:OTHER"})
    changed = telegram_for(Accord(other, clock=clock, db=accord.db))
    await changed.feed(ANN.says("/rooms"))
    assert changed.texts(ANN.chat_id)[-1].startswith("This chat follows no room.")
    ended = accord.db.read(lambda conn: conn.execute(select(channel_unlinks)).all())
    assert [row.reason for row in ended] == ["unreadable"]
    assert TOKEN != "43:OTHER"

"""A person answers their agent's question in their own words: a reply to the question's
message. The bot knows which question from the message replied to (recorded when it was sent,
in the store), never from the text; the answer is the principal credential's own, checked by
the application layer."""

from dataclasses import dataclass
from typing import Any

import pytest
from aiogram.methods import AnswerCallbackQuery, EditMessageReplyMarkup, SendMessage
from aiogram.types import InlineKeyboardMarkup

from accord.app.identity import PrincipalCaller
from accord.app.root import Accord
from accord.app.settings import Settings
from accord.protocols.intro.intents import IntentInput
from accord.protocols.intro.moves import QuestionInput, QuestionsRequest, TurnRequest
from accord.protocols.intro.opportunities import OpenInput
from accord.store.database import Database
from accord.telegram import messages
from tests.conftest import FakeClock
from tests.principals.conftest import Principal
from tests.telegram.conftest import Telegram, telegram_for
from tests.telegram.recording import Person

pytestmark = pytest.mark.anyio

ADA = Person(4001)
BOB = Person(4002)


def _principal(accord: Accord, name: str) -> Principal:
    made = accord.principals.create(name)
    return Principal(made["principal_id"], name, made["owner_key"], made["agent_key"])


def _caller(accord: Accord, token: str) -> PrincipalCaller:
    caller = accord.doors.identify(token)
    assert isinstance(caller, PrincipalCaller)
    return caller


@dataclass
class Asked:
    opportunity_id: str
    question_ids: list[str]


def _asked(
    accord: Accord, ada: Principal, bob: Principal, *questions: QuestionInput, agreed: bool = False
) -> Asked:
    """Ada's agent opens an introduction to Bob's intent, proposes, and asks Ada; Bob's agent
    accepts when `agreed` (the introduction then waits for the people)."""
    statement = "A cellist for a string quartet in Lyon on Saturdays"
    mine = accord.intents.create(
        _caller(accord, ada.owner_key), IntentInput(statement=statement, visibility="public")
    )["intent"]["intent_id"]
    theirs = accord.intents.create(
        _caller(accord, bob.owner_key),
        IntentInput(statement="A string quartet wants a cellist", visibility="public"),
    )["intent"]["intent_id"]
    opened = accord.opportunities.open(
        _caller(accord, ada.owner_key), mine, OpenInput(candidates=[theirs])
    )
    opportunity_id = opened["opportunities"][0]["opportunity_id"]
    agent = _caller(accord, ada.agent_key)
    propose = TurnRequest(action="propose", message="Saturdays?", expected_turn_count=0)
    accord.opportunities.turn(agent, opportunity_id, propose)
    made = accord.opportunities.ask(
        agent, opportunity_id, QuestionsRequest(questions=list(questions))
    )
    if agreed:
        accept = TurnRequest(action="accept", message="Yes", expected_turn_count=1)
        accord.opportunities.turn(_caller(accord, bob.agent_key), opportunity_id, accept)
    return Asked(opportunity_id, [q["question_id"] for q in made["questions"]])


def _questions(accord: Accord, who: Principal, opportunity_id: str) -> list[tuple[Any, ...]]:
    listed = accord.opportunities.questions(_caller(accord, who.owner_key), opportunity_id)
    return [(q["question_id"], q["status"], q.get("answer")) for q in listed["questions"]]


def _question_message(telegram: Telegram, person: Person) -> SendMessage:
    return next(m for m in telegram.session.sent(person.chat_id) if "Your agent asks" in m.text)


MORNINGS = QuestionInput(
    question="Mornings only?", options=["yes", "no"], why="They rehearse on Saturdays"
)
WHERE = QuestionInput(question="Where can you play?", why="They ask for the district")


async def test_a_reply_answers_the_question_and_outlives_a_restart(
    telegram: Telegram, db: Database, telegram_settings: Settings, clock: FakeClock
) -> None:
    ada, bob = _principal(telegram.accord, "ada-re"), _principal(telegram.accord, "bob-re")
    await telegram.link(ADA, ada.owner_key)
    asked = _asked(telegram.accord, ada, bob, MORNINGS)
    await telegram.tell()
    question = _question_message(telegram, ADA)
    assert messages.REPLY_TO_ANSWER in question.text
    question_id = telegram.session.message_id(question)

    # a restart: a new process with the same store knows which question that message shows
    again = telegram_for(Accord(telegram_settings, clock=clock, db=db))
    await again.feed(ADA.replies("Only before 10, <i>please</i>", to=question_id))

    words = "Only before 10, <i>please</i>"
    [qid] = asked.question_ids
    assert _questions(telegram.accord, ada, asked.opportunity_id) == [(qid, "answered", words)]
    [said] = again.session.sent(ADA.chat_id)
    assert said.text == "You answered: Only before 10, &lt;i&gt;please&lt;/i&gt;"
    assert said.reply_parameters is not None  # to the person's own message
    [edited] = again.session.of(EditMessageReplyMarkup)
    assert edited.message_id == question_id
    markup = edited.reply_markup
    assert isinstance(markup, InlineKeyboardMarkup)  # the options gone, Open left
    assert [b.text for row in markup.inline_keyboard for b in row] == ["Open"]

    # a stale reply: where the question stands now, and the first answer stays
    await again.feed(ADA.replies("Mornings, actually", to=question_id))
    stale = again.session.sent(ADA.chat_id)[-1].text
    assert stale.startswith("This question is answered already.")
    assert stale.endswith("It was answered: Only before 10, &lt;i&gt;please&lt;/i&gt;")
    assert _questions(telegram.accord, ada, asked.opportunity_id) == [(qid, "answered", words)]


async def test_a_question_shown_by_pending_is_answered_by_reply(telegram: Telegram) -> None:
    ada, bob = _principal(telegram.accord, "ada-pe"), _principal(telegram.accord, "bob-pe")
    asked = _asked(telegram.accord, ada, bob, WHERE, agreed=True)
    await telegram.link(ADA, ada.owner_key)  # linking shows what waits, the question too
    question = _question_message(telegram, ADA)
    await telegram.feed(ADA.replies("Croix-Rousse", to=telegram.session.message_id(question)))
    [qid] = asked.question_ids
    answered = [(qid, "answered", "Croix-Rousse")]
    assert _questions(telegram.accord, ada, asked.opportunity_id) == answered
    assert telegram.texts(ADA.chat_id)[-1] == "You answered: Croix-Rousse"


async def test_other_messages_get_a_pointer_and_answer_nothing(telegram: Telegram) -> None:
    ada, bob = _principal(telegram.accord, "ada-ot"), _principal(telegram.accord, "bob-ot")
    await telegram.link(ADA, ada.owner_key)
    asked = _asked(telegram.accord, ada, bob, MORNINGS)
    await telegram.tell()
    linked = telegram.session.sent(ADA.chat_id)[0]
    question_id = telegram.session.message_id(_question_message(telegram, ADA))

    await telegram.feed(ADA.replies("yes", to=telegram.session.message_id(linked)))
    assert telegram.texts(ADA.chat_id)[-1] == messages.NOT_A_QUESTION
    await telegram.feed(ADA.says(f"qa:{asked.opportunity_id}:{asked.question_ids[0]}:0 yes"))
    assert telegram.texts(ADA.chat_id)[-1] == messages.NOT_UNDERSTOOD
    await telegram.feed(ADA.replies(None, to=question_id))
    assert telegram.texts(ADA.chat_id)[-1] == messages.TEXT_ONLY
    [qid] = asked.question_ids
    assert _questions(telegram.accord, ada, asked.opportunity_id) == [(qid, "open", None)]


async def test_a_chat_bound_to_another_principal_cannot_answer(telegram: Telegram) -> None:
    """The question's message stays in the chat after its person unlinks; a reply then acts
    with what the chat holds now (the other side's principal), and the service refuses it.
    Another chat's reply naming the same message id finds nothing: ids are per chat."""
    accord = telegram.accord
    ada, bob = _principal(accord, "ada-an"), _principal(accord, "bob-an")
    await telegram.link(ADA, ada.owner_key)
    asked = _asked(accord, ada, bob, MORNINGS)
    await telegram.tell()
    question = _question_message(telegram, ADA)
    question_id = telegram.session.message_id(question)

    await telegram.link(BOB, bob.owner_key)
    await telegram.feed(BOB.replies("no", to=question_id))
    assert telegram.texts(BOB.chat_id)[-1] == messages.NOT_A_QUESTION

    channels = accord.telegram
    assert channels is not None
    [adas] = channels.held(str(ADA.chat_id))
    channels.unlink(str(ADA.chat_id), adas.id)
    await telegram.link(ADA, bob.owner_key)
    await telegram.feed(ADA.replies("no", to=question_id))
    refused = telegram.texts(ADA.chat_id)[-1]
    assert refused == "No such question of yours; list your questions."
    [qid] = asked.question_ids
    assert _questions(accord, ada, asked.opportunity_id) == [(qid, "open", None)]


def _showing(telegram: Telegram, person: Person, opportunity_id: str, question_id: str) -> Any:
    """The latest message with this question's option buttons."""
    data = f"qa:{opportunity_id}:{question_id}:"
    for message in reversed(telegram.session.sent(person.chat_id)):
        markup = message.reply_markup
        if isinstance(markup, InlineKeyboardMarkup) and any(
            (b.callback_data or "").startswith(data) for row in markup.inline_keyboard for b in row
        ):
            return message
    raise AssertionError(f"no message shows {question_id}")


def _status(accord: Accord, who: Principal, opportunity_id: str) -> str:
    found = accord.opportunities.get(_caller(accord, who.owner_key), opportunity_id)
    return str(found["opportunity"]["status"])


async def test_pending_lists_questions_asked_while_the_agents_talk(telegram: Telegram) -> None:
    """Questions come by notification as they are asked; /pending lists them again, each with
    its options and reply line, and a reply to that listed message answers it too."""
    accord = telegram.accord
    ada, bob = _principal(accord, "ada-ne"), _principal(accord, "bob-ne")
    await telegram.link(ADA, ada.owner_key)
    asked = _asked(accord, ada, bob, MORNINGS, WHERE)
    assert _status(accord, ada, asked.opportunity_id) == "negotiating"

    before = len(telegram.session.sent(ADA.chat_id))
    await telegram.feed(ADA.says("/pending"))
    mornings, where = telegram.session.sent(ADA.chat_id)[before:]
    assert all(messages.REPLY_TO_ANSWER in m.text for m in (mornings, where))
    assert "Mornings only?" in mornings.text and "Where can you play?" in where.text
    markup = mornings.reply_markup
    assert isinstance(markup, InlineKeyboardMarkup)
    yes_no = [b.callback_data for row in markup.inline_keyboard for b in row]
    mornings_id, where_id = asked.question_ids
    option = f"qa:{asked.opportunity_id}:{mornings_id}"
    assert yes_no == [f"{option}:0", f"{option}:1", None]  # then Answer on the web

    await telegram.feed(ADA.replies("Croix-Rousse", to=telegram.session.message_id(where)))
    assert telegram.texts(ADA.chat_id)[-1] == "You answered: Croix-Rousse"
    await telegram.feed(ADA.taps(f"{option}:1", telegram.session.message_id(mornings)))
    assert _questions(accord, ada, asked.opportunity_id) == [
        (mornings_id, "answered", "no"),
        (where_id, "answered", "Croix-Rousse"),
    ]
    await telegram.feed(ADA.says("/pending"))
    assert telegram.texts(ADA.chat_id)[-1] == "Nothing waits for you."


async def test_a_chat_linked_to_two_principals_answers_as_each(telegram: Telegram) -> None:
    """One person, two principals, one chat: a tap or a reply on a question's message is the
    answer of the principal that message was sent for; a tap on a message the bot did not
    record acts as the chat's first principal, and the service refuses it for the other's."""
    accord = telegram.accord
    ada, cleo = _principal(accord, "ada-tw"), _principal(accord, "cleo-tw")
    bob = _principal(accord, "bob-tw")
    await telegram.link(ADA, ada.owner_key)
    await telegram.link(ADA, cleo.owner_key)
    adas = _asked(accord, ada, bob, MORNINGS)
    cleos = _asked(accord, cleo, bob, MORNINGS, WHERE)
    await telegram.tell()
    [ada_mornings] = adas.question_ids
    cleo_mornings, cleo_where = cleos.question_ids

    cleo_option = f"qa:{cleos.opportunity_id}:{cleo_mornings}"
    await telegram.feed(ADA.taps(f"{cleo_option}:0", message_id=1))  # not a question's message
    refused = telegram.session.of(AnswerCallbackQuery)[-1].text
    assert refused == "You hold no seat of this opportunity; GET /api/opportunities lists yours."

    shown = _showing(telegram, ADA, cleos.opportunity_id, cleo_mornings)
    await telegram.feed(ADA.taps(f"{cleo_option}:1", telegram.session.message_id(shown)))
    assert telegram.session.of(AnswerCallbackQuery)[-1].text == "You answered: no"
    shown = _showing(telegram, ADA, adas.opportunity_id, ada_mornings)
    ada_option = f"qa:{adas.opportunity_id}:{ada_mornings}"
    await telegram.feed(ADA.taps(f"{ada_option}:0", telegram.session.message_id(shown)))
    assert telegram.session.of(AnswerCallbackQuery)[-1].text == "You answered: yes"

    # /pending lists what is left, Cleo's question, sent for Cleo: a reply answers as her
    before = len(telegram.session.sent(ADA.chat_id))
    await telegram.feed(ADA.says("/pending"))
    [where] = telegram.session.sent(ADA.chat_id)[before:]
    assert "Where can you play?" in where.text
    await telegram.feed(ADA.replies("Vaise", to=telegram.session.message_id(where)))
    assert telegram.texts(ADA.chat_id)[-1] == "You answered: Vaise"

    assert _questions(accord, ada, adas.opportunity_id) == [(ada_mornings, "answered", "yes")]
    assert _questions(accord, cleo, cleos.opportunity_id) == [
        (cleo_mornings, "answered", "no"),
        (cleo_where, "answered", "Vaise"),
    ]


async def test_each_principal_of_a_chat_decides_its_own_introduction(telegram: Telegram) -> None:
    """Accept introduction and Pass in a chat linked to two principals: each introduction is
    decided by the principal it waits for, whichever was linked first."""
    accord = telegram.accord
    ada, cleo = _principal(accord, "ada-op"), _principal(accord, "cleo-op")
    bob = _principal(accord, "bob-op")
    await telegram.link(ADA, ada.owner_key)
    await telegram.link(ADA, cleo.owner_key)
    adas = _asked(accord, ada, bob, MORNINGS, agreed=True)
    cleos = _asked(accord, cleo, bob, MORNINGS, agreed=True)
    await telegram.feed(ADA.taps(f"op:{cleos.opportunity_id}:a"))
    assert telegram.session.of(AnswerCallbackQuery)[-1].text == "You accepted the introduction."
    await telegram.feed(ADA.taps(f"op:{adas.opportunity_id}:p"))
    assert telegram.session.of(AnswerCallbackQuery)[-1].text == "You passed."
    decided = {
        who.name: accord.opportunities.get(_caller(accord, who.owner_key), made.opportunity_id)
        for who, made in ((ada, adas), (cleo, cleos))
    }
    assert decided["cleo-op"]["opportunity"]["decisions"]["yours"] == "accepted"
    assert decided["ada-op"]["opportunity"]["decisions"]["yours"] == "rejected"
    await telegram.feed(BOB.taps(f"op:{cleos.opportunity_id}:p"))  # a chat with no principal
    assert telegram.session.of(AnswerCallbackQuery)[-1].text == (
        "This chat is not linked to a principal."
    )

"""A principal's person in Telegram: an introduction that waits for their decision comes with
Accept introduction and Pass, their agent's question with its options as buttons; a tap is
the person's own answer, checked by the application layer."""

from typing import Any, cast

import httpx
from aiogram.methods import AnswerCallbackQuery, EditMessageText
from aiogram.types import InlineKeyboardMarkup

from accord.app.settings import Settings, TelegramMode
from accord.telegram.door import PATH, webhook_secret
from tests.adviser.test_cases_http import add, open_case, send
from tests.conftest import FakeClock
from tests.intro.conftest import key
from tests.intro.test_turns_http import opened, took
from tests.principals.conftest import Principal
from tests.telegram.conftest import TOKEN, eventually, served
from tests.telegram.recording import Person, RecordingSession

ADA = Person(3001)


def _principal(client: Any, name: str) -> Principal:
    made = client.app.state.accord.principals.create(name)
    return Principal(made["principal_id"], name, made["owner_key"], made["agent_key"])


def _taps(session: RecordingSession, containing: str) -> list[str]:
    for message in reversed(session.sent(ADA.chat_id)):
        if containing in message.text:
            markup = message.reply_markup
            assert isinstance(markup, InlineKeyboardMarkup)
            return [
                b.callback_data for row in markup.inline_keyboard for b in row if b.callback_data
            ]
    raise AssertionError(f"no message with {containing!r}")


def test_a_person_accepts_an_introduction_and_answers_by_tap(
    settings: Settings, clock: FakeClock
) -> None:
    on = settings.model_copy(
        update={"telegram_token": TOKEN, "telegram_mode": TelegramMode.WEBHOOK}
    )
    secret = {"X-Telegram-Bot-Api-Secret-Token": webhook_secret(TOKEN)}
    with served(on, clock) as (client, session):
        ada, bob = _principal(client, "ada-tg"), _principal(client, "bob-tg")
        code = client.post("/v1/links", json={}, headers=key(ada.owner_key)).json()["code"]
        assert client.post(PATH, json=ADA.says(f"/start {code}"), headers=secret).status_code == 200
        assert (
            session.sent(ADA.chat_id)[0].text
            == "Your principal is linked; confirmations come here."
        )

        api = cast(httpx.Client, client)  # it answers the same calls
        opportunity_id = opened(api, ada, bob)
        took(
            api, ada.agent_key, opportunity_id,
            action="propose", message="Saturday rehearsals?", expected_turn_count=0,
        )  # fmt: skip
        asked = client.post(
            f"/api/opportunities/{opportunity_id}/negotiation/questions",
            json={"questions": [{"question": "Mornings <b>only</b>?", "options": ["yes", "no"],
                                 "why": "They rehearse on Saturdays"}]},
            headers=key(ada.agent_key),
        )  # fmt: skip
        assert asked.status_code == 201, asked.text
        took(
            api, bob.agent_key, opportunity_id,
            action="accept", message="Yes", expected_turn_count=1,
        )  # fmt: skip

        def texts() -> list[str]:
            return [m.text for m in session.sent(ADA.chat_id)]

        assert eventually(lambda: any("Mornings &lt;b&gt;only&lt;/b&gt;?" in t for t in texts()))
        yes, no = _taps(session, "Your agent asks")
        assert yes.startswith(f"qa:{opportunity_id}:") and yes.endswith(":0")
        assert no == yes[:-1] + "1"
        assert eventually(lambda: any("An introduction waits" in t for t in texts()))
        accept, pass_ = _taps(session, "An introduction waits")
        assert (accept, pass_) == (f"op:{opportunity_id}:a", f"op:{opportunity_id}:p")

        client.post(PATH, json=ADA.taps(yes), headers=secret)
        assert session.of(AnswerCallbackQuery)[-1].text == "You answered: yes"
        questions = client.get(
            f"/api/opportunities/{opportunity_id}/negotiation/questions",
            headers=key(ada.owner_key),
        ).json()["questions"]
        assert [(q["status"], q["answer"]) for q in questions] == [("answered", "yes")]
        client.post(PATH, json=ADA.taps(no), headers=secret)  # stale: answered already
        refused = session.of(AnswerCallbackQuery)[-1].text
        assert refused is not None and refused != "You answered: no"
        assert session.of(EditMessageText)[-1].text.endswith("It was answered: yes")

        client.post(PATH, json=ADA.taps(accept), headers=secret)
        assert session.of(AnswerCallbackQuery)[-1].text == "You accepted the introduction."
        mine = client.get(f"/api/opportunities/{opportunity_id}", headers=key(ada.owner_key))
        assert mine.json()["opportunity"]["decisions"]["yours"] == "accepted"

        client.post(PATH, json=ADA.taps(pass_), headers=secret)  # a change of mind, allowed
        assert session.of(AnswerCallbackQuery)[-1].text == "You passed."
        client.post(PATH, json=ADA.taps(accept), headers=secret)  # stale: the pass was final
        stale = session.of(AnswerCallbackQuery)[-1].text
        assert stale == "This opportunity is rejected, which is final."
        edited = session.of(EditMessageText)[-1]
        markup = edited.reply_markup
        assert isinstance(markup, InlineKeyboardMarkup)
        assert all(b.callback_data is None for row in markup.inline_keyboard for b in row)


def test_a_person_hears_of_their_adviser_case(settings: Settings, clock: FakeClock) -> None:
    """A question, a material change and a deal review each come as one line with the case's
    page; a new version alone says nothing."""
    on = settings.model_copy(
        update={"telegram_token": TOKEN, "telegram_mode": TelegramMode.WEBHOOK}
    )
    secret = {"X-Telegram-Bot-Api-Secret-Token": webhook_secret(TOKEN)}
    with served(on, clock) as (client, session):
        ada = _principal(client, "ada-case")
        code = client.post("/v1/links", json={}, headers=key(ada.owner_key)).json()["code"]
        client.post(PATH, json=ADA.says(f"/start {code}"), headers=secret)
        api = cast(httpx.Client, client)
        case_id = open_case(api, ada)["case_id"]
        batna = add("b", "/alternatives/user/batna/value", "USD 125,000.00")
        assert send(api, ada, case_id, 1, batna).status_code == 200
        reviewed = client.post(
            f"/v1/adviser/cases/{case_id}/deal-review",
            json={"offer": {"terms": {}, "text": "120k, start in March"}},
            headers=key(ada.owner_key),
        )
        assert reviewed.status_code == 200, reviewed.text

        def heard() -> list[tuple[str, str | None]]:
            found = []
            for message in session.sent(ADA.chat_id):
                markup = message.reply_markup
                if message.text.startswith("📝") and isinstance(markup, InlineKeyboardMarkup):
                    found.append((message.text, markup.inline_keyboard[0][0].url))
            return found

        page = f"{on.base_url}/adviser/cases/{case_id}"
        expected = {
            ("📝 Your adviser has a question for you.", page),  # the intake's, as it opens
            ("📝 Something material changed in your case.", page),
            ("📝 Your adviser reviewed a deal.", page),
        }
        assert eventually(lambda: set(heard()) == expected), heard()

"""The Telegram door inside the server: it names the bot (getMe) so that link codes carry a
t.me address, takes updates by long polling or at `/telegram/webhook` (only with the secret
token it set), and sends notifications as commits happen."""

import os
import re
from typing import Any

import pytest
from aiogram.methods import DeleteWebhook, GetMe, SetWebhook
from starlette.testclient import TestClient

from accord.app.settings import Settings, TelegramMode
from accord.http.app import create_app
from accord.store.leader import leading
from accord.telegram.door import PATH, webhook_secret
from tests.conftest import FakeClock, _postgres_schema_url
from tests.telegram.conftest import SCHEMA, TOKEN, eventually, served, terms
from tests.telegram.recording import Person, RecordingSession

ANN = Person(2001)


def _opened(client: TestClient) -> dict[str, Any]:
    opened = client.post(
        "/v1/rooms", json={"subject_schema": SCHEMA, "subject": terms(10000), "title": "A bike"}
    )
    assert opened.status_code == 201, opened.text
    joined = client.post("/v1/rooms/join", json={"invite_token": opened.json()["invite"]["token"]})
    assert joined.status_code == 200, joined.text
    return {**opened.json(), "joiner_seat": joined.json()["seat_token"]}


def _texts(session: RecordingSession) -> list[str]:
    return [m.text for m in session.sent(ANN.chat_id)]


def test_webhook_mode_takes_updates_only_with_its_secret_and_notifies(
    settings: Settings, clock: FakeClock
) -> None:
    on = settings.model_copy(
        update={"telegram_token": TOKEN, "telegram_mode": TelegramMode.WEBHOOK}
    )
    with served(on, clock) as (client, session):
        (hook,) = eventually(lambda: session.of(SetWebhook))
        assert hook.url == f"{on.base_url}{PATH}"
        assert hook.secret_token == webhook_secret(TOKEN) and TOKEN not in hook.secret_token
        assert session.of(GetMe)

        opened = _opened(client)
        owner = {"Authorization": f"Bearer {opened['owner_token']}"}
        made = client.post("/v1/links", json={}, headers=owner).json()
        assert made["telegram_url"] == f"https://t.me/accord_test_bot?start={made['code']}"
        update = ANN.says(f"/start {made['code']}")

        assert client.post(PATH, json=update).status_code == 401
        wrong = {"X-Telegram-Bot-Api-Secret-Token": "nope"}
        assert client.post(PATH, json=update, headers=wrong).status_code == 401
        secret = {"X-Telegram-Bot-Api-Secret-Token": webhook_secret(TOKEN)}
        assert client.post(PATH, content=b"[", headers=secret).status_code == 400
        assert client.post(PATH, json={"no": "update"}, headers=secret).status_code == 400
        assert _texts(session) == []
        taken = client.post(PATH, json=update, headers=secret)
        assert taken.status_code == 200
        assert _texts(session)[0].endswith("is linked; confirmations come here.")

        room_id = opened["room"]["room_id"]
        countered = client.post(
            f"/v1/rooms/{room_id}/moves",
            json={"type": "counter", "terms": terms(11000)},
            headers={"Authorization": f"Bearer {opened['joiner_seat']}"},
        )
        assert countered.status_code == 200, countered.text
        told = eventually(lambda: [t for t in _texts(session) if "They countered." in t])
        assert len(told) == 1


def test_polling_mode_asks_telegram_and_answers(settings: Settings, clock: FakeClock) -> None:
    on = settings.model_copy(update={"telegram_token": TOKEN, "telegram_bot": "named_bot"})
    with served(on, clock) as (client, session):
        opened = _opened(client)
        owner = {"Authorization": f"Bearer {opened['owner_token']}"}
        made = client.post("/v1/links", json={}, headers=owner).json()
        assert made["telegram_url"].startswith("https://t.me/named_bot?start=")  # the setting
        assert eventually(lambda: session.of(DeleteWebhook))  # polling replaces any webhook
        session.updates.append(ANN.says(f"/start {made['code']}"))
        linked = eventually(lambda: _texts(session))
        assert linked and linked[0].endswith("is linked; confirmations come here.")
        assert client.post(PATH, json={}).status_code == 404  # no webhook in this mode


def test_without_a_token_there_is_no_telegram(settings: Settings, clock: FakeClock) -> None:
    app = create_app(settings, clock=clock)
    with TestClient(app, base_url=settings.base_url) as client:
        opened = _opened(client)
        owner = {"Authorization": f"Bearer {opened['owner_token']}"}
        made = client.post("/v1/links", json={}, headers=owner).json()
        assert "telegram_url" not in made or made["telegram_url"] is None
        assert client.post(PATH, json={}).status_code == 404


@pytest.mark.anyio
async def test_one_process_leads(settings: Settings) -> None:
    url = settings.database
    dialect = "postgresql" if url.startswith("postgresql") else "sqlite"
    async with leading(url, dialect, 99) as first, leading(url, dialect, 99) as second:
        assert first is True
        assert second is (dialect == "sqlite")  # PostgreSQL: the lock is held
    async with leading(url, dialect, 99) as again:
        assert again is True  # released with the first


@pytest.mark.anyio
async def test_deployments_in_schemas_of_one_database_each_lead(settings: Settings) -> None:
    """Two deployments sharing a PostgreSQL database, each in a schema of its own: each has a
    leader (an advisory lock is the database's, so it is keyed by the schema too)."""
    base = os.environ.get("ACCORD_TEST_DATABASE_URL")
    if not base:
        pytest.skip("PostgreSQL only: on SQLite a deployment is one process, which leads")
    for other in _postgres_schema_url(base):  # one more schema, dropped when the loop ends
        async with (
            leading(settings.database, "postgresql", 99) as first,
            leading(other, "postgresql", 99) as second,
            leading(other, "postgresql", 99) as third,
        ):
            assert (first, second, third) == (True, True, False)


def test_the_room_page_connects_telegram(settings: Settings, clock: FakeClock) -> None:
    on = settings.model_copy(update={"telegram_token": TOKEN, "telegram_bot": "named_bot"})
    origin = {"Origin": on.base_url}
    with served(on, clock) as (client, session):
        opened = _opened(client)
        room_id = opened["room"]["room_id"]
        owner = {"Authorization": f"Bearer {opened['owner_token']}"}
        code = client.post("/v1/links", json={}, headers=owner).json()["code"]
        claimed = client.post("/claim", data={"code": code}, headers=origin)
        assert claimed.status_code == 200, claimed.text
        page = client.get(f"/rooms/{room_id}").text
        assert "Open on another device or connect Telegram" in page
        shown = client.post(f"/rooms/{room_id}/links", headers=origin).text
        found = re.search(r'href="https://t\.me/named_bot\?start=([A-Za-z0-9_-]{32})"', shown)
        assert found is not None, shown
        session.updates.append(ANN.says(f"/start {found.group(1)}"))
        assert eventually(lambda: _texts(session))
        assert eventually(lambda: "in Telegram</li>" in client.get(f"/rooms/{room_id}").text)

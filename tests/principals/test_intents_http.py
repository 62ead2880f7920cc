"""Intents, their chat and networks through a real server (spec/intro-api.md, Endpoints and
Intents): the wire bodies, who may do what, the check order, another principal's intent told
exactly like an unknown id, refused calls writing nothing, and the data outliving the app."""

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from accord.app.principals import Principals
from accord.app.settings import Settings
from accord.store.database import Database
from tests.conftest import FakeClock, LiveServer, serve_in_thread
from tests.http.support import assert_error
from tests.principals.conftest import Principal, make_principal

INTENT: dict[str, Any] = {
    "statement": "A cellist for a string quartet in Lyon",
    "constraints": [{"key": "city", "op": "eq", "value": "Lyon"}],
    "identity": {"display_name": "Ada"},
    "visibility": "public",
}
TABLES = ("intents", "intent_revisions", "intent_messages", "networks", "network_members")


def key(token: str, header: str = "bearer") -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if header == "bearer" else {"x-api-key": token}


@pytest.fixture
def client(server: LiveServer) -> Iterator[httpx.Client]:
    with server.client() as client:
        yield client


@pytest.fixture
def bob(principals: Principals) -> Principal:
    return make_principal(principals, "bob")


def post_intent(client: httpx.Client, who: Principal, **members: Any) -> dict[str, Any]:
    made = client.post("/api/intents", json=INTENT | members, headers=key(who.owner_key))
    assert made.status_code == 201, made.text
    intent: dict[str, Any] = made.json()["intent"]
    return intent


def dump(db: Database) -> dict[str, list[tuple[Any, ...]]]:
    with db.read_engine.connect() as conn:
        return {
            table: sorted(tuple(row) for row in conn.execute(text(f"SELECT * FROM {table}")))
            for table in TABLES
        }


@pytest.mark.parametrize("header", ["bearer", "x-api-key"])
def test_an_intent_is_posted_read_listed_and_patched(
    client: httpx.Client, ada: Principal, header: str, clock: FakeClock
) -> None:
    made = client.post("/api/intents", json=INTENT, headers=key(ada.owner_key, header))
    assert made.status_code == 201, made.text
    intent = made.json()["intent"]
    assert set(intent) == {
        "intent_id",
        "statement",
        "constraints",
        "identity",
        "visibility",
        "networks",
        "status",
        "created_at",
        "updated_at",
    }
    assert intent | {"intent_id": "", "created_at": "", "updated_at": ""} == {
        **INTENT,
        "networks": [],
        "status": "active",
        "intent_id": "",
        "created_at": "",
        "updated_at": "",
    }
    clock.advance(seconds=5)
    second = post_intent(client, ada, statement="A violist", visibility="private")
    listed = client.get("/api/intents", headers=key(ada.agent_key, header))
    assert listed.status_code == 200
    assert [i["intent_id"] for i in listed.json()["intents"]] == [
        second["intent_id"],
        intent["intent_id"],
    ]
    url = f"/api/intents/{intent['intent_id']}"
    assert client.get(url, headers=key(ada.agent_key, header)).json() == {"intent": intent}
    clock.advance(seconds=5)
    patch = {"statement": "A cellist, Lyon or Paris", "status": "paused"}
    patched = client.patch(url, json=patch, headers=key(ada.owner_key, header))
    assert patched.status_code == 200, patched.text
    body = patched.json()["intent"]
    assert body == intent | patch | {"updated_at": body["updated_at"]}
    assert body["updated_at"] > intent["updated_at"]
    again = client.patch(url, json={"status": "active"}, headers=key(ada.owner_key))
    assert again.json()["intent"]["status"] == "active"  # paused is reversible


def test_chat_is_written_by_the_owner_and_any_agent_and_read_after_a_message(
    client: httpx.Client, principals: Principals, ada: Principal
) -> None:
    helper = principals.agent_key("ada", "helper")["agent_key"]
    url = f"/api/intents/{post_intent(client, ada)['intent_id']}/chat"
    sent = []
    for token, text_ in (
        (ada.owner_key, "Saturdays only"),
        (ada.agent_key, "Noted"),
        (helper, "Ok"),
    ):
        posted = client.post(url, json={"message": text_}, headers=key(token))
        assert posted.status_code == 201, posted.text
        sent.append(posted.json()["message"])
    assert [(m["author"], m["agent_id"], m["message"]) for m in sent] == [
        ("owner", None, "Saturdays only"),
        ("agent", "default", "Noted"),
        ("agent", "helper", "Ok"),
    ]
    assert set(sent[0]) == {"message_id", "author", "agent_id", "message", "created_at"}
    everything = client.get(url, headers=key(helper)).json()
    assert everything == {"messages": sent}
    after = client.get(url, params={"after": sent[0]["message_id"]}, headers=key(ada.owner_key))
    assert after.json() == {"messages": sent[1:]}
    last = client.get(url, params={"after": sent[2]["message_id"]}, headers=key(ada.owner_key))
    assert last.json() == {"messages": []}


def test_networks_are_made_joined_once_and_named_by_network_intents(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    made = client.post("/api/networks", json={"name": "Lyon strings"}, headers=key(ada.owner_key))
    assert made.status_code == 201, made.text
    network = made.json()
    assert set(network) == {"network_id", "name", "invite_code"}
    listed = {"networks": [{"network_id": network["network_id"], "name": "Lyon strings"}]}
    assert client.get("/api/networks", headers=key(ada.agent_key)).json() == listed
    assert client.get("/api/networks", headers=key(bob.owner_key)).json() == {"networks": []}
    network_intent = {"visibility": "network", "networks": [network["network_id"]]}
    outside = client.post("/api/intents", json=INTENT | network_intent, headers=key(bob.owner_key))
    assert set(assert_error(outside, "invalid_request")["fields"]) == {"networks"}
    join = {"invite_code": network["invite_code"]}
    for _ in range(2):  # joining again changes nothing
        joined = client.post("/api/networks/join", json=join, headers=key(bob.owner_key))
        assert joined.status_code == 200, joined.text
        assert joined.json() == listed["networks"][0]
    assert client.get("/api/networks", headers=key(bob.owner_key)).json() == listed
    assert post_intent(client, bob, **network_intent)["networks"] == [network["network_id"]]
    unknown = client.post(
        "/api/networks/join", json={"invite_code": "acc_ni_nothing"}, headers=key(bob.owner_key)
    )
    assert_error(unknown, "not_found")


def test_another_principals_intent_is_told_like_an_unknown_one(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    ada_intent = post_intent(client, ada)["intent_id"]
    calls = [
        ("GET", "", None),
        ("PATCH", "", {"statement": "Mine now"}),
        ("GET", "/chat", None),
        ("POST", "/chat", {"message": "Hello"}),
    ]
    for method, tail, body in calls:
        for token in (bob.owner_key, bob.agent_key):
            answers = [
                client.request(method, f"/api/intents/{i}{tail}", json=body, headers=key(token))
                for i in (ada_intent, "int_00000000000000000000")
            ]
            assert_error(answers[0], "not_found")
            assert answers[0].json() == answers[1].json()
    assert (
        client.get(f"/api/intents/{ada_intent}", headers=key(ada.owner_key)).json()["intent"][
            "statement"
        ]
        == INTENT["statement"]
    )


@pytest.mark.parametrize(
    ("who", "method", "tail", "body", "archived", "code"),
    [
        pytest.param(None, "PATCH", "unknown", {"x": 1}, False, "unauthenticated", id="no_key"),
        pytest.param("agent", "PATCH", "unknown", {}, False, "not_found", id="not_found_first"),
        pytest.param("owner", "PATCH", "unknown", {"x": 1}, False, "not_found", id="before_body"),
        pytest.param("agent", "PATCH", "", {"x": 1}, False, "forbidden", id="forbidden_first"),
        pytest.param("agent", "POST", "new", INTENT, False, "forbidden", id="agent_posts"),
        pytest.param("agent", "POST", "network", {"name": "n"}, False, "forbidden", id="agent_net"),
        pytest.param("agent", "POST", "join", {"invite_code": "x"}, False, "forbidden", id="join"),
        pytest.param("owner", "PATCH", "", {"x": 1}, True, "invalid_request", id="shape"),
        pytest.param("owner", "PATCH", "", {"statement": ""}, True, "invalid_request", id="value"),
        pytest.param(
            "owner", "PATCH", "", {"visibility": "private"}, False, "invalid_request", id="fixed"
        ),
        pytest.param(
            "owner", "PATCH", "", {"networks": ["n"]}, False, "invalid_request", id="whole"
        ),
        pytest.param(
            "owner", "PATCH", "", {"status": "active"}, True, "intent_inactive", id="final"
        ),
        pytest.param(
            "agent", "POST", "/chat", {"message": " "}, True, "invalid_request", id="blank"
        ),
        pytest.param(
            "agent", "POST", "/chat", {"message": "x" * 4001}, False, "invalid_request", id="long"
        ),
        pytest.param(
            "owner", "POST", "/chat", {"message": "Hi"}, True, "intent_inactive", id="chat"
        ),
        pytest.param(
            "owner", "GET", "/chat?after=msg_0", None, False, "invalid_request", id="after"
        ),
        pytest.param(
            "owner",
            "POST",
            "new",
            INTENT | {"networks": ["n"]},
            False,
            "invalid_request",
            id="nets",
        ),
        pytest.param("owner", "POST", "network", {"name": ""}, False, "invalid_request", id="name"),
    ],
)
def test_refusals_come_in_the_check_order_and_write_nothing(
    client: httpx.Client,
    db: Database,
    ada: Principal,
    who: str | None,
    method: str,
    tail: str,
    body: Any,
    archived: bool,
    code: str,
) -> None:
    intent_id = post_intent(client, ada)["intent_id"]
    if archived:
        url = f"/api/intents/{intent_id}"
        gone = client.patch(url, json={"status": "archived"}, headers=key(ada.owner_key))
        assert gone.json()["intent"]["status"] == "archived"
    url = {
        "unknown": "/api/intents/int_unknown",
        "new": "/api/intents",
        "network": "/api/networks",
        "join": "/api/networks/join",
    }.get(tail, f"/api/intents/{intent_id}{tail}")
    token = {None: None, "owner": ada.owner_key, "agent": ada.agent_key}[who]
    before = dump(db)
    answer = client.request(method, url, json=body, headers=key(token) if token else {})
    assert_error(answer, code)
    assert dump(db) == before


def test_a_body_with_duplicate_keys_is_refused(client: httpx.Client, ada: Principal) -> None:
    raw = b'{"statement": "a", "statement": "b", "visibility": "public"}'
    headers = key(ada.owner_key) | {"Content-Type": "application/json"}
    answer = client.post("/api/intents", content=raw, headers=headers)
    assert "reason" in assert_error(answer, "invalid_request")


def test_an_archived_intent_is_still_read(client: httpx.Client, ada: Principal) -> None:
    url = f"/api/intents/{post_intent(client, ada)['intent_id']}"
    client.post(f"{url}/chat", json={"message": "Before"}, headers=key(ada.owner_key))
    client.patch(url, json={"status": "archived"}, headers=key(ada.owner_key))
    assert client.get(url, headers=key(ada.agent_key)).json()["intent"]["status"] == "archived"
    chat = client.get(f"{url}/chat", headers=key(ada.agent_key)).json()["messages"]
    assert [m["message"] for m in chat] == ["Before"]


def test_what_was_written_outlives_the_app(
    settings: Settings, clock: FakeClock, principals: Principals, ada: Principal
) -> None:
    live = settings
    with serve_in_thread(live, clock) as first, first.client(ada.owner_key) as client:
        intent = post_intent(client, ada)
        url = f"/api/intents/{intent['intent_id']}"
        message = client.post(f"{url}/chat", json={"message": "Still here?"}).json()["message"]
        network = client.post("/api/networks", json={"name": "Quartets"}).json()
    live = settings
    with serve_in_thread(live, clock) as second, second.client(ada.owner_key) as client:
        assert client.get(url).json() == {"intent": intent}
        assert client.get(f"{url}/chat").json() == {"messages": [message]}
        assert client.get("/api/networks").json() == {
            "networks": [{"network_id": network["network_id"], "name": "Quartets"}]
        }

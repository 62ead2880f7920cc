"""Turns through a real server (spec/intro-api.md, The negotiation, Check order, Disclosure):
the selected agent's key takes its seat's turns through the kernel, an owner key is forbidden
and another agent is `executor_changed`, `message_id` makes a retry safe, an agreement makes
the opportunity pending, an incognito statement opens once both seats engaged, and a new app
on the same store goes on where the first stopped."""

from typing import Any

import httpx
import pytest

from accord.app.principals import Principals
from accord.app.settings import Settings
from tests.conftest import FakeClock, serve_in_thread
from tests.http.support import assert_error
from tests.intro.conftest import JSONBody, key, patch_intent, post_intent
from tests.principals.conftest import Principal

CELLIST = "A cellist for a string quartet in Lyon on Saturdays"
QUARTET = "A string quartet in Lyon wants a cellist on Saturdays"


def opened(client: httpx.Client, ada: Principal, bob: Principal, **bobs: Any) -> str:
    mine = post_intent(client, ada, CELLIST)["intent_id"]
    theirs = post_intent(client, bob, QUARTET, **bobs)["intent_id"]
    answer = client.post(
        f"/api/intents/{mine}/opportunities",
        json={"candidates": [theirs]},
        headers=key(ada.owner_key),
    )
    assert answer.status_code == 200, answer.text
    opportunity_id: str = answer.json()["opportunities"][0]["opportunity_id"]
    return opportunity_id


def turn(client: httpx.Client, token: str, opportunity_id: str, **body: Any) -> httpx.Response:
    url = f"/api/opportunities/{opportunity_id}/negotiation/turns"
    return client.post(url, json=body, headers=key(token))


def took(client: httpx.Client, token: str, opportunity_id: str, **body: Any) -> JSONBody:
    answer = turn(client, token, opportunity_id, **body)
    assert answer.status_code == 200, answer.text
    taken: JSONBody = answer.json()
    return taken


def agree(
    client: httpx.Client, initiator: Principal, responder: Principal, opportunity_id: str
) -> None:
    """The initiator's agent proposes and the responder's accepts."""
    took(
        client, initiator.agent_key, opportunity_id,
        action="propose", message="Saturday rehearsals?", expected_turn_count=0,
    )  # fmt: skip
    took(
        client, responder.agent_key, opportunity_id,
        action="accept", message="Yes", expected_turn_count=1,
    )  # fmt: skip


def test_the_agents_agree_and_the_opportunity_is_pending(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    opportunity_id = opened(client, ada, bob)
    first = took(
        client, ada.agent_key, opportunity_id,
        action="propose", message="Saturday rehearsals?", expected_turn_count=0,
    )  # fmt: skip
    assert set(first) == {"negotiation", "counterparty"}
    negotiation = first["negotiation"]
    assert (negotiation["turn_count"], negotiation["awaiting"]) == (1, "responder")
    assert negotiation["turns"][0] | {"created_at": ""} == {
        "turn_index": 0, "round": 1, "seat": "initiator", "action": "propose",
        "message": "Saturday rehearsals?", "created_at": "",
    }  # fmt: skip
    agreed = took(
        client, bob.agent_key, opportunity_id,
        action="accept", message="Yes", expected_turn_count=1,
    )  # fmt: skip
    assert agreed["negotiation"]["outcome"] == "agreed"
    got = client.get(f"/api/opportunities/{opportunity_id}", headers=key(ada.owner_key))
    assert got.json()["opportunity"]["status"] == "pending"
    assert got.json()["negotiation"] == agreed["negotiation"] | {
        "protocol": got.json()["negotiation"]["protocol"]
    }


def test_a_message_id_answers_a_retry_as_first_given(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    opportunity_id = opened(client, ada, bob)
    body = {"action": "propose", "message": "Hi", "expected_turn_count": 0, "message_id": "m1"}
    first = turn(client, ada.agent_key, opportunity_id, **body)
    again = turn(client, ada.agent_key, opportunity_id, **body)
    assert first.status_code == again.status_code == 200
    assert again.json() == first.json()
    assert again.json()["negotiation"]["turn_count"] == 1
    other = turn(client, ada.agent_key, opportunity_id, **body | {"message": "Hello"})
    assert_error(other, "message_id_reused")


def test_an_incognito_statement_opens_once_both_seats_engaged(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    opportunity_id = opened(client, ada, bob, visibility="incognito")
    took(client, ada.agent_key, opportunity_id, action="propose", message="A",
         expected_turn_count=0)  # fmt: skip
    url = f"/api/opportunities/{opportunity_id}"
    seen = client.get(url, headers=key(ada.agent_key)).json()["counterparty"]
    assert "statement" not in seen  # only the initiator engaged
    took(client, bob.agent_key, opportunity_id, action="counter", message="B",
         expected_turn_count=1)  # fmt: skip
    seen = client.get(url, headers=key(ada.agent_key)).json()["counterparty"]
    assert seen["statement"] == QUARTET


@pytest.mark.parametrize(
    ("who", "body", "before", "code"),
    [
        ("nobody", {"x": 1}, [], "unauthenticated"),
        ("stranger", {"x": 1}, [], "not_a_seat"),
        ("owner", {"x": 1}, [], "forbidden"),
        ("agent", {"x": 1}, [], "invalid_request"),
        ("helper", {"action": "propose", "message": "A", "expected_turn_count": 0},
         [], "executor_changed"),
        ("bob", {"action": "propose", "message": "A", "expected_turn_count": 0},
         [], "not_your_turn"),
        ("agent", {"action": "shout", "message": "A", "expected_turn_count": 3},
         [], "raced"),
        ("agent", {"action": "shout", "message": "A", "expected_turn_count": 0},
         [], "invalid_request"),
        ("agent", {"action": "counter", "message": "A", "expected_turn_count": 0},
         [], "move_not_allowed"),
        ("agent", {"action": "propose", "message": "A", "expected_turn_count": 2},
         ["propose A", "counter B"], "repeated_message"),
        ("agent", {"action": "propose", "message": "C", "expected_turn_count": 1},
         ["decline A"], "round_over"),
        ("agent", {"action": "propose", "message": "C", "expected_turn_count": 0},
         ["pause"], "intent_inactive"),
        ("bob", {"action": "propose", "message": "C", "expected_turn_count": 1},
         ["propose A", "accept B"], "settled"),
    ],
)  # fmt: skip
def test_turn_refusals_come_in_the_check_order(
    client: httpx.Client, principals: Principals, ada: Principal, bob: Principal,
    cy: Principal, who: str, body: JSONBody, before: list[str], code: str,
) -> None:  # fmt: skip
    opportunity_id = opened(client, ada, bob)
    tokens = {
        "owner": ada.owner_key,
        "agent": ada.agent_key,
        "helper": principals.agent_key("ada", "helper")["agent_key"],
        "bob": bob.agent_key,
        "stranger": cy.agent_key,
    }
    seats = [ada.agent_key, bob.agent_key]
    for n, step in enumerate(before):
        if step == "pause":
            theirs = client.get("/api/opportunities", headers=key(bob.owner_key)).json()
            patch_intent(client, bob, theirs["opportunities"][0]["your_intent_id"], status="paused")
            continue
        action, message = step.split()
        took(client, seats[n % 2], opportunity_id, action=action, message=message,
             expected_turn_count=n)  # fmt: skip
    url = f"/api/opportunities/{opportunity_id}/negotiation/turns"
    headers = key(tokens[who]) if who in tokens else {}
    answer = client.post(url, json=body, headers=headers)
    error = assert_error(answer, code)
    if code == "raced":
        assert error["turn_count"] == 0


def test_turns_go_on_in_a_new_app_on_the_same_store(
    settings: Settings, clock: FakeClock, ada: Principal, bob: Principal
) -> None:
    with serve_in_thread(settings, clock) as first, first.client() as client:
        opportunity_id = opened(client, ada, bob)
        took(client, ada.agent_key, opportunity_id, action="propose", message="A",
             expected_turn_count=0)  # fmt: skip
    with serve_in_thread(settings, clock) as second, second.client() as client:
        agreed = took(client, bob.agent_key, opportunity_id, action="accept", message="B",
                      expected_turn_count=1)  # fmt: skip
        assert agreed["negotiation"]["outcome"] == "agreed"

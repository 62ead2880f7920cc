"""A person's decisions through a real server (spec/intro-api.md, Decisions and Disclosure):
the owner key decides, any time before the opportunity is final; a decision while the agents
talk closes their negotiation; both acceptances make the introduction and open Identity; the
other side's decision shows only once final."""

import json
from typing import Any

import httpx
import pytest

from accord.app.events import Level, PrincipalAudience
from accord.app.root import Accord
from accord.store.database import Database
from tests.conftest import LiveServer
from tests.http.support import assert_error
from tests.intro.conftest import JSONBody, key
from tests.intro.test_turns_http import agree, opened, took
from tests.principals.conftest import Principal


def decide(client: httpx.Client, who: Principal, opportunity_id: str, status: str) -> JSONBody:
    url = f"/api/opportunities/{opportunity_id}/status"
    answer = client.patch(url, json={"status": status}, headers=key(who.owner_key))
    assert answer.status_code == 200, answer.text
    opportunity: JSONBody = answer.json()["opportunity"]
    return opportunity


def read(client: httpx.Client, who: Principal, opportunity_id: str) -> JSONBody:
    got = client.get(f"/api/opportunities/{opportunity_id}", headers=key(who.agent_key))
    assert got.status_code == 200, got.text
    body: JSONBody = got.json()
    return body


def test_both_acceptances_make_the_introduction_and_open_identity(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    opportunity_id = opened(client, ada, bob, identity={"display_name": "Bob"})
    mine = decide(client, ada, opportunity_id, "accepted")
    assert (mine["status"], mine["decisions"]) == ("pending", {"yours": "accepted", "theirs": None})
    negotiation = read(client, ada, opportunity_id)["negotiation"]
    assert negotiation["outcome"] == "closed"  # a person decided while the agents talked
    assert decide(client, ada, opportunity_id, "accepted") == mine  # again: nothing changes
    assert read(client, bob, opportunity_id)["opportunity"]["decisions"] == {
        "yours": None,
        "theirs": None,  # ada's acceptance stays hers until the opportunity is final
    }
    theirs = decide(client, bob, opportunity_id, "accepted")
    assert (theirs["status"], theirs["decisions"]) == (
        "accepted",
        {"yours": "accepted", "theirs": "accepted"},
    )
    counterparty = read(client, ada, opportunity_id)["counterparty"]
    assert counterparty["layers"]["identity"] == "open"
    assert counterparty["identity"] == {"display_name": "Bob"}


def test_an_agreement_waits_for_both_people_and_a_rejection_is_final(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    opportunity_id = opened(client, ada, bob)
    took(client, ada.agent_key, opportunity_id, action="propose", message="A",
         expected_turn_count=0)  # fmt: skip
    took(client, bob.agent_key, opportunity_id, action="accept", message="B",
         expected_turn_count=1)  # fmt: skip
    assert decide(client, bob, opportunity_id, "rejected")["status"] == "rejected"
    assert read(client, ada, opportunity_id)["opportunity"]["decisions"] == {
        "yours": None,
        "theirs": "rejected",
    }
    again = client.patch(
        f"/api/opportunities/{opportunity_id}/status",
        json={"status": "accepted"},
        headers=key(ada.owner_key),
    )
    assert_error(again, "opportunity_final")


@pytest.mark.parametrize(
    ("who", "body", "final", "code"),
    [
        ("nobody", {"x": 1}, False, "unauthenticated"),
        ("stranger", {"x": 1}, False, "not_a_seat"),
        ("agent", {"x": 1}, False, "forbidden"),
        ("owner", {"x": 1}, True, "invalid_request"),
        ("owner", {"status": "pending"}, True, "invalid_request"),
        ("owner", {"status": "expired"}, True, "opportunity_final"),
    ],
)
def test_decision_refusals_come_in_the_check_order(
    client: httpx.Client, ada: Principal, bob: Principal, cy: Principal,
    who: str, body: dict[str, Any], final: bool, code: str,
) -> None:  # fmt: skip
    opportunity_id = opened(client, ada, bob)
    if final:
        decide(client, bob, opportunity_id, "expired")
    tokens = {"owner": ada.owner_key, "agent": ada.agent_key, "stranger": cy.owner_key}
    answer = client.patch(
        f"/api/opportunities/{opportunity_id}/status",
        json=body,
        headers=key(tokens[who]) if who in tokens else {},
    )
    assert_error(answer, code)
    if not final:
        assert read(client, ada, opportunity_id)["opportunity"]["status"] == "negotiating"


def test_an_introduction_left_pending_expires_after_the_pending_ttl(
    client: httpx.Client,
    ada: Principal,
    bob: Principal,
    cy: Principal,
    server: LiveServer,
    db: Database,
) -> None:
    """Silence never decides: `pending_ttl` after the agents agreed, the introduction expires,
    whether or not one person accepted meanwhile."""
    waiting, accepted_late = opened(client, ada, bob), opened(client, cy, bob)
    for opportunity_id, initiator in ((waiting, ada), (accepted_late, cy)):
        agree(client, initiator, bob, opportunity_id)
    ttl = server.settings.pending_ttl
    server.clock.advance(seconds=ttl - 60)
    decide(client, bob, accepted_late, "accepted")
    root = Accord(server.settings, clock=server.clock, db=db)
    assert root.sweep().opportunities_expired == []
    server.clock.advance(seconds=61)
    assert sorted(root.sweep().opportunities_expired) == sorted([waiting, accepted_late])
    assert root.sweep().opportunities_expired == []  # once
    told = root.events.read(PrincipalAudience(ada.principal_id, Level.AGENT), 0)
    assert json.loads(told[-1].data) == {
        "type": "opportunity.changed", "opportunity_id": waiting, "status": "expired",
    }  # fmt: skip
    late = read(client, bob, accepted_late)["opportunity"]
    assert (late["status"], late["decisions"]) == (
        "expired",
        {"yours": "accepted", "theirs": None},
    )
    assert_error(
        client.patch(
            f"/api/opportunities/{waiting}/status",
            json={"status": "accepted"},
            headers=key(ada.owner_key),
        ),
        "opportunity_final",
    )

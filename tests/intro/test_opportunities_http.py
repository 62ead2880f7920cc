"""Opportunities through a real server (spec/intro-api.md, Opportunities, Disclosure and Check
order): opening one per pair, ever, from either side, with its negotiation; what each seat
reads of the other (never its intent id or principal, nor the opener's context); a candidate
the opener may not open told as one `not_found` that opens nothing; and all of it kept by a
new app on the same store."""

import json
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import text

from accord.app.settings import Settings
from accord.store.database import Database
from tests.conftest import FakeClock, serve_in_thread
from tests.http.support import assert_error, open_room
from tests.intro.conftest import JSONBody, key, patch_intent, post_intent
from tests.principals.conftest import Principal

CELLIST = "A cellist for a string quartet in Lyon on Saturdays"
QUARTET = "A string quartet in Lyon wants a cellist on Saturdays"
LYON = [{"key": "city", "op": "eq", "value": "Lyon"}]
IDENTITY = {"display_name": "Bob's quartet"}
CONTEXT = "Only if they rehearse near Croix-Rousse"
OPPORTUNITY_MEMBERS = {
    "opportunity_id",
    "status",
    "your_seat",
    "your_intent_id",
    "negotiation_id",
    "decisions",
    "created_at",
    "updated_at",
}


def open_with(
    client: httpx.Client, who: Principal, intent_id: str, *candidates: str, **body: Any
) -> list[JSONBody]:
    url = f"/api/intents/{intent_id}/opportunities"
    opened = client.post(
        url, json={"candidates": list(candidates), **body}, headers=key(who.agent_key)
    )
    assert opened.status_code == 200, opened.text
    found: list[JSONBody] = opened.json()["opportunities"]
    return found


def read(client: httpx.Client, who: Principal, opportunity_id: str, tail: str = "") -> JSONBody:
    got = client.get(f"/api/opportunities/{opportunity_id}{tail}", headers=key(who.agent_key))
    assert got.status_code == 200, got.text
    body: JSONBody = got.json()
    return body


def count(db: Database) -> tuple[int, int]:
    with db.read_engine.connect() as conn:
        opportunities = conn.execute(text("SELECT count(*) FROM opportunities")).scalar()
        negotiations = conn.execute(
            text("SELECT count(*) FROM negotiations WHERE protocol = 'intro'")
        ).scalar()
    return int(opportunities or 0), int(negotiations or 0)


def test_opening_makes_one_opportunity_per_candidate_with_its_negotiation(
    client: httpx.Client, ada: Principal, bob: Principal, cy: Principal
) -> None:
    mine = post_intent(client, ada, CELLIST, constraints=LYON)["intent_id"]
    match = post_intent(client, bob, QUARTET, constraints=LYON, identity=IDENTITY)["intent_id"]
    loose = post_intent(client, cy, "Fresh sourdough bread delivered daily")["intent_id"]
    opened = open_with(client, ada, mine, loose, match, context=CONTEXT)
    assert [set(o) for o in opened] == [OPPORTUNITY_MEMBERS | {"context", "created"}] * 2
    for one in opened:
        assert one | {"opportunity_id": "", "negotiation_id": "", "created_at": "",
                      "updated_at": ""} == {
            "opportunity_id": "", "status": "negotiating", "your_seat": "initiator",
            "your_intent_id": mine, "negotiation_id": "",
            "decisions": {"yours": None, "theirs": None}, "context": CONTEXT,
            "created_at": "", "updated_at": "", "created": True,
        }  # fmt: skip
    with_bob = read(client, ada, opened[1]["opportunity_id"])
    assert with_bob["opportunity"] | {"created": True} == opened[1]
    negotiation = with_bob["negotiation"]
    assert negotiation | {"turns": []} == {
        "negotiation_id": opened[1]["negotiation_id"],
        "opportunity_id": opened[1]["opportunity_id"],
        "outcome": None, "round": 1, "turn_count": 0, "turns_in_round": 0,
        "awaiting": "initiator", "turns": [],
        "protocol": {"available_actions": ["propose", "decline"], "blocked_reason": None,
                     "max_turns_per_round": 12, "message_limit": 4000},
    }  # fmt: skip
    assert with_bob["counterparty"] == {
        "layers": {"statement": "open", "constraints": "open", "identity": "closed"},
        "statement": QUARTET,
        "constraints": LYON,
    }
    assert read(client, ada, opened[0]["opportunity_id"])["counterparty"] == {
        "layers": {"statement": "closed", "constraints": "closed", "identity": "closed"}
    }  # not mutual: nothing of cy's intent shows
    assert read(client, ada, opened[1]["opportunity_id"], "/negotiation") == {
        "negotiation": negotiation,
        "counterparty": with_bob["counterparty"],
    }


def test_the_responder_sees_its_own_side_and_of_the_other_only_the_open_layers(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    mine = post_intent(client, ada, CELLIST, identity={"contact": "ada@example.org"})
    theirs = post_intent(client, bob, QUARTET)["intent_id"]
    opened = open_with(client, ada, mine["intent_id"], theirs, context=CONTEXT)[0]
    seen = read(client, bob, opened["opportunity_id"])
    assert seen["opportunity"]["your_seat"] == "responder"
    assert seen["opportunity"]["your_intent_id"] == theirs
    assert set(seen["opportunity"]) == OPPORTUNITY_MEMBERS  # no context: it is the opener's
    assert seen["negotiation"]["protocol"]["blocked_reason"] == "not_your_turn"
    assert seen["counterparty"]["statement"] == CELLIST
    everything = json.dumps(seen) + json.dumps(client.get(
        "/api/opportunities", headers=key(bob.owner_key)).json())  # fmt: skip
    for secret in (mine["intent_id"], ada.principal_id, CONTEXT, "ada@example.org"):
        assert secret not in everything


def test_a_pair_is_opened_once_ever_from_either_side(
    client: httpx.Client, db: Database, ada: Principal, bob: Principal
) -> None:
    mine = post_intent(client, ada, CELLIST)["intent_id"]
    theirs = post_intent(client, bob, QUARTET)["intent_id"]
    first = open_with(client, ada, mine, theirs, context=CONTEXT)[0]
    again = open_with(client, ada, mine, theirs, context="Another note")[0]
    assert again == first | {"created": False}
    from_bob = open_with(client, bob, theirs, mine, context="Bob's note")[0]
    assert from_bob["opportunity_id"] == first["opportunity_id"]
    assert (from_bob["your_seat"], from_bob["created"]) == ("responder", False)
    assert "context" not in from_bob
    assert count(db) == (1, 1)


def test_an_incognito_statement_stays_closed_while_no_seat_engaged(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    mine = post_intent(client, ada, CELLIST)["intent_id"]
    hidden = post_intent(client, bob, QUARTET, visibility="incognito")["intent_id"]
    opened = open_with(client, ada, mine, hidden)[0]
    seen = read(client, ada, opened["opportunity_id"])
    assert seen["counterparty"] == {
        "layers": {"statement": "closed", "constraints": "closed", "identity": "closed"}
    }
    assert QUARTET not in json.dumps(seen)
    # the incognito side reads a public intent on mutual alone
    assert read(client, bob, opened["opportunity_id"])["counterparty"]["statement"] == CELLIST


@pytest.mark.parametrize(
    "candidate",
    ["unknown", "own", "private", "paused", "archived", "incognito_not_mutual", "other_network"],
)
def test_a_candidate_the_opener_may_not_open_is_not_found_and_nothing_opens(
    client: httpx.Client, db: Database, ada: Principal, bob: Principal, cy: Principal,
    candidate: str,
) -> None:  # fmt: skip
    mine = post_intent(client, ada, CELLIST)["intent_id"]
    fine = post_intent(client, bob, QUARTET)["intent_id"]
    network = client.post("/api/networks", json={"name": "n"}, headers=key(cy.owner_key)).json()
    made: dict[str, Callable[[], str]] = {
        "unknown": lambda: "int_00000000000000000000",
        "own": lambda: post_intent(client, ada, QUARTET)["intent_id"],
        "private": lambda: post_intent(client, cy, QUARTET, visibility="private")["intent_id"],
        "paused": lambda: post_intent(client, cy, QUARTET)["intent_id"],
        "archived": lambda: post_intent(client, cy, QUARTET)["intent_id"],
        "incognito_not_mutual": lambda: post_intent(client, cy, "Bread", visibility="incognito")[
            "intent_id"
        ],
        "other_network": lambda: post_intent(
            client, cy, QUARTET, visibility="network", networks=[network["network_id"]]
        )["intent_id"],
    }
    target = made[candidate]()
    if candidate in ("paused", "archived"):
        patch_intent(client, cy, target, status=candidate)
    url = f"/api/intents/{mine}/opportunities"
    answers = [
        client.post(url, json={"candidates": [fine, other]}, headers=key(ada.agent_key))
        for other in (target, "int_00000000000000000000")
    ]
    assert_error(answers[0], "not_found")
    assert answers[0].json() == answers[1].json()  # one message for every reason
    assert count(db) == (0, 0)


@pytest.mark.parametrize(
    ("who", "target", "body", "code", "reason"),
    [
        pytest.param(None, "unknown", {"x": 1}, "unauthenticated", None, id="no_key"),
        pytest.param("agent", "unknown", {"x": 1}, "not_found", None, id="unknown_intent"),
        pytest.param("agent", "bobs", {"x": 1}, "not_found", None, id="anothers_intent"),
        pytest.param("room", "active", {"x": 1}, "forbidden", None, id="another_kind_of_key"),
        pytest.param("agent", "private", {"x": 1}, "invalid_request", None, id="shape"),
        pytest.param("agent", "private", {"candidates": []}, "invalid_request", None, id="none"),
        pytest.param(
            "agent", "private", {"candidates": ["a"] * 2}, "invalid_request", None, id="twice"
        ),
        pytest.param(
            "agent",
            "private",
            {"candidates": [f"i{n}" for n in range(31)]},
            "invalid_request",
            None,
            id="too_many",
        ),
        pytest.param(
            "owner",
            "private",
            {"candidates": ["a"], "context": "c" * 2001},
            "invalid_request",
            None,
            id="context",
        ),
        pytest.param(
            "agent",
            "private",
            {"candidates": ["a"]},
            "invalid_request",
            "private_intent",
            id="private",
        ),
        pytest.param(
            "agent", "paused", {"candidates": ["a"]}, "intent_inactive", None, id="paused"
        ),
        pytest.param("agent", "active", {"candidates": ["a"]}, "not_found", None, id="candidate"),
    ],
)
def test_opening_refusals_come_in_the_check_order_and_open_nothing(
    client: httpx.Client, db: Database, ada: Principal, bob: Principal,
    who: str | None, target: str, body: JSONBody, code: str, reason: str | None,
) -> None:  # fmt: skip
    intent_ids = {
        "unknown": "int_unknown",
        "bobs": post_intent(client, bob, QUARTET)["intent_id"],
        "active": post_intent(client, ada, CELLIST)["intent_id"],
        "private": post_intent(client, ada, CELLIST, visibility="private")["intent_id"],
        "paused": post_intent(client, ada, CELLIST)["intent_id"],
    }
    patch_intent(client, ada, intent_ids["paused"], status="paused")
    tokens = {"owner": ada.owner_key, "agent": ada.agent_key}
    token = open_room(client, join=False).opener_owner if who == "room" else tokens.get(who or "")
    answer = client.post(
        f"/api/intents/{intent_ids[target]}/opportunities",
        json=body,
        headers=key(token) if token else {},
    )
    assert assert_error(answer, code).get("reason") == reason
    assert count(db) == (0, 0)


def test_the_list_holds_both_seats_newest_first_and_filters(
    client: httpx.Client, clock: FakeClock, ada: Principal, bob: Principal, cy: Principal
) -> None:
    mine = post_intent(client, ada, CELLIST)["intent_id"]
    theirs = post_intent(client, bob, QUARTET)["intent_id"]
    other = post_intent(client, ada, "A violist for a string quartet")["intent_id"]
    cys = post_intent(client, cy, "A string quartet needs a violist")["intent_id"]
    first = open_with(client, ada, mine, theirs)[0]
    clock.advance(seconds=1)
    second = open_with(client, cy, cys, other)[0]  # ada is the responder here

    def listed(who: Principal, **params: str) -> list[str]:
        got = client.get("/api/opportunities", params=params, headers=key(who.agent_key))
        assert got.status_code == 200, got.text
        return [o["opportunity_id"] for o in got.json()["opportunities"]]

    assert listed(ada) == [second["opportunity_id"], first["opportunity_id"]]
    assert listed(ada, intent_id=mine) == [first["opportunity_id"]]
    assert listed(ada, intent_id=theirs) == []  # the filter names an intent of the caller's
    assert listed(ada, status="negotiating") == listed(ada)
    assert listed(ada, status="pending") == []
    assert listed(bob) == [first["opportunity_id"]]
    refused = client.get("/api/opportunities?status=open", headers=key(ada.owner_key))
    assert set(assert_error(refused, "invalid_request")["fields"]) == {"status"}


def test_an_opportunity_is_not_found_then_not_a_seat(
    client: httpx.Client, ada: Principal, bob: Principal, cy: Principal
) -> None:
    mine = post_intent(client, ada, CELLIST)["intent_id"]
    opened = open_with(client, ada, mine, post_intent(client, bob, QUARTET)["intent_id"])[0]
    for tail in ("", "/negotiation"):
        unknown = client.get(f"/api/opportunities/opp_none{tail}", headers=key(cy.owner_key))
        assert_error(unknown, "not_found")
        url = f"/api/opportunities/{opened['opportunity_id']}{tail}"
        assert_error(client.get(url, headers=key(cy.agent_key)), "not_a_seat")
        assert_error(client.get(url), "unauthenticated")


def test_opportunities_and_the_index_outlive_the_app(
    settings: Settings, clock: FakeClock, ada: Principal, bob: Principal, cy: Principal
) -> None:
    with serve_in_thread(settings, clock) as first, first.client() as client:
        mine = post_intent(client, ada, CELLIST)["intent_id"]
        theirs = post_intent(client, bob, QUARTET)["intent_id"]
        opened = open_with(client, ada, mine, theirs, context=CONTEXT)[0]
        before = read(client, ada, opened["opportunity_id"])
    with serve_in_thread(settings, clock) as second, second.client() as client:
        assert read(client, ada, opened["opportunity_id"]) == before
        assert open_with(client, ada, mine, theirs)[0] == opened | {"created": False}
        late = post_intent(client, cy, QUARTET)["intent_id"]  # the rebuilt index takes new ones
        assert open_with(client, ada, mine, late)[0]["created"] is True

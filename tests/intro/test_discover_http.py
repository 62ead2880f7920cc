"""Discovery through a real server (spec/intro-api.md, Discovery and Check order): who is a
candidate and what of it is shown, the refusals in their order, the index following every
edit, another principal's intent told like an unknown id, and the index rebuilt by a new app."""

from typing import Any

import httpx
import pytest

from accord.app.settings import Settings
from tests.conftest import FakeClock, serve_in_thread
from tests.http.support import assert_error, open_room
from tests.intro.conftest import discover, key, patch_intent, post_intent
from tests.principals.conftest import Principal

CELLIST = "A cellist for a string quartet in Lyon on Saturdays"
QUARTET = "A string quartet in Lyon wants a cellist on Saturdays"
LYON = [{"key": "city", "op": "eq", "value": "Lyon"}]


def ids(candidates: list[dict[str, Any]]) -> list[str]:
    return [c["intent_id"] for c in candidates]


def test_a_mutual_public_candidate_is_shown_whole_and_others_are_left_out(
    client: httpx.Client, ada: Principal, bob: Principal, cy: Principal
) -> None:
    mine = post_intent(client, ada, CELLIST, constraints=LYON)["intent_id"]
    post_intent(client, ada, QUARTET)  # the principal's own: never a candidate
    theirs = post_intent(client, bob, QUARTET, constraints=LYON)["intent_id"]
    post_intent(client, cy, QUARTET, visibility="private")
    paused = post_intent(client, cy, QUARTET)["intent_id"]
    patch_intent(client, cy, paused, status="paused")
    post_intent(client, cy, "Fresh sourdough bread delivered daily")  # shares no word
    candidates = discover(client, ada, mine)
    assert ids(candidates) == [theirs]
    assert candidates[0] == {
        "intent_id": theirs,
        "score": candidates[0]["score"],
        "mutual": True,
        "constraint_fit": True,
        "statement": QUARTET,
    }
    assert 0 < candidates[0]["score"] <= 1


def test_an_incognito_intent_is_a_candidate_only_when_mutual_and_never_shows_its_statement(
    client: httpx.Client, ada: Principal, bob: Principal, cy: Principal
) -> None:
    mine = post_intent(client, ada, CELLIST)["intent_id"]
    hidden = post_intent(client, bob, QUARTET, visibility="incognito")["intent_id"]
    post_intent(client, cy, "A cellist wanted", visibility="incognito")  # not mutual
    candidates = discover(client, ada, mine)
    assert candidates == [
        {"intent_id": hidden, "score": candidates[0]["score"], "mutual": True,
         "constraint_fit": None}
    ]  # fmt: skip


def test_a_network_intent_reaches_only_its_networks_members(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    network = client.post("/api/networks", json={"name": "Lyon"}, headers=key(bob.owner_key))
    members = {"visibility": "network", "networks": [network.json()["network_id"]]}
    theirs = post_intent(client, bob, QUARTET, **members)["intent_id"]
    mine = post_intent(client, ada, CELLIST)["intent_id"]
    assert discover(client, ada, mine) == []
    join = {"invite_code": network.json()["invite_code"]}
    client.post("/api/networks/join", json=join, headers=key(ada.owner_key))
    assert ids(discover(client, ada, mine)) == [theirs]


def test_the_index_follows_every_edit_pause_and_archive(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    mine = post_intent(client, ada, CELLIST)["intent_id"]
    theirs = post_intent(client, bob, "Fresh sourdough bread delivered daily")["intent_id"]
    assert discover(client, ada, mine) == []
    patch_intent(client, bob, theirs, statement=QUARTET)
    assert ids(discover(client, ada, mine)) == [theirs]
    patch_intent(client, bob, theirs, status="paused")
    assert discover(client, ada, mine) == []
    patch_intent(client, bob, theirs, status="active")
    assert ids(discover(client, ada, mine)) == [theirs]
    patch_intent(client, bob, theirs, status="archived")
    assert discover(client, ada, mine) == []


def test_a_query_puts_first_the_candidates_that_share_a_word_and_limit_cuts(
    client: httpx.Client, ada: Principal, bob: Principal, cy: Principal
) -> None:
    mine = post_intent(client, ada, CELLIST)["intent_id"]
    near = post_intent(client, bob, QUARTET)["intent_id"]
    same = post_intent(client, cy, CELLIST)["intent_id"]  # identical texts score 1
    assert ids(discover(client, ada, mine)) == [same, near]
    assert ids(discover(client, ada, mine, query="Who WANTS one?")) == [near, same]
    assert len(discover(client, ada, mine, limit=1)) == 1


def test_the_mutual_threshold_is_the_operators(
    settings: Settings, clock: FakeClock, ada: Principal, bob: Principal
) -> None:
    strict = settings.model_copy(update=dict(mutual_threshold=1.0))
    with serve_in_thread(strict, clock) as server, server.client() as client:
        mine = post_intent(client, ada, CELLIST)["intent_id"]
        post_intent(client, bob, QUARTET)
        assert [c["mutual"] for c in discover(client, ada, mine)] == [False]
        assert "statement" not in discover(client, ada, mine)[0]


def test_another_principals_intent_is_told_like_an_unknown_one(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    theirs = post_intent(client, bob, QUARTET)["intent_id"]
    answers = [
        client.post(f"/api/intents/{i}/discover", json={}, headers=key(ada.owner_key))
        for i in (theirs, "int_00000000000000000000")
    ]
    assert_error(answers[0], "not_found")
    assert answers[0].json() == answers[1].json()


@pytest.mark.parametrize(
    ("who", "target", "body", "code", "detail"),
    [
        pytest.param(None, "unknown", {"x": 1}, "unauthenticated", None, id="no_key"),
        pytest.param("agent", "unknown", {"x": 1}, "not_found", None, id="unknown"),
        pytest.param("room", "active", {}, "forbidden", None, id="another_kind_of_key"),
        pytest.param("agent", "private", {"x": 1}, "invalid_request", "fields", id="shape"),
        pytest.param("agent", "private", {"limit": "2"}, "invalid_request", "fields", id="type"),
        pytest.param("agent", "private", {"limit": 31}, "invalid_request", "fields", id="limit"),
        pytest.param(
            "owner", "private", {"query": "q" * 501}, "invalid_request", "fields", id="query"
        ),
        pytest.param("agent", "private", {}, "invalid_request", "reason", id="private"),
        pytest.param("agent", "paused", {"limit": 0}, "invalid_request", "fields", id="values"),
        pytest.param("agent", "paused", {}, "intent_inactive", None, id="paused"),
        pytest.param("owner", "archived", {}, "intent_inactive", None, id="archived"),
    ],
)
def test_refusals_come_in_the_check_order(
    client: httpx.Client,
    ada: Principal,
    who: str | None,
    target: str,
    body: dict[str, Any],
    code: str,
    detail: str | None,
) -> None:
    intent_ids = {
        "unknown": "int_unknown",
        "active": post_intent(client, ada, CELLIST)["intent_id"],
        "private": post_intent(client, ada, CELLIST, visibility="private")["intent_id"],
    }
    for status in ("paused", "archived"):
        intent_ids[status] = post_intent(client, ada, CELLIST)["intent_id"]
        patch_intent(client, ada, intent_ids[status], status=status)
    tokens = {"owner": ada.owner_key, "agent": ada.agent_key}
    token = open_room(client, join=False).opener_owner if who == "room" else tokens.get(who or "")
    answer = client.post(
        f"/api/intents/{intent_ids[target]}/discover",
        json=body,
        headers=key(token) if token else {},
    )
    error = assert_error(answer, code)
    if detail == "reason":
        assert error["reason"] == "private_intent"
    elif detail == "fields":  # the values are checked before the intent's visibility
        assert error.get("reason") != "private_intent"


def test_the_index_is_rebuilt_by_a_new_app_on_the_same_store(
    settings: Settings, clock: FakeClock, ada: Principal, bob: Principal
) -> None:
    with serve_in_thread(settings, clock) as first, first.client() as client:
        mine = post_intent(client, ada, CELLIST)["intent_id"]
        theirs = post_intent(client, bob, "Fresh sourdough bread")["intent_id"]
        patch_intent(client, bob, theirs, statement=QUARTET)
        before = discover(client, ada, mine)
    assert ids(before) == [theirs]
    with serve_in_thread(settings, clock) as second, second.client() as client:
        assert discover(client, ada, mine) == before


def test_another_process_discovers_what_one_process_wrote(
    settings: Settings, clock: FakeClock, ada: Principal, bob: Principal
) -> None:
    """`accord serve --workers N` on PostgreSQL: each process keeps its own index and reads
    what the others wrote before it answers, so discovery never depends on which process a
    request reaches."""
    if not settings.database.startswith("postgresql"):
        pytest.skip("several processes share a store only on PostgreSQL")
    with (
        serve_in_thread(settings, clock) as first,
        serve_in_thread(settings, clock) as second,
        first.client() as a,
        second.client() as b,
    ):
        mine = post_intent(b, ada, CELLIST, constraints=LYON)["intent_id"]
        assert discover(b, ada, mine) == []  # the second process indexes its own write
        theirs = post_intent(a, bob, QUARTET, constraints=LYON)["intent_id"]
        assert ids(discover(b, ada, mine)) == [theirs]
        patch_intent(a, bob, theirs, status="paused")
        assert discover(b, ada, mine) == []
        patch_intent(a, bob, theirs, status="active", statement="Selling a bicycle in Porto")
        assert [c["mutual"] for c in discover(b, ada, mine)] == [False]

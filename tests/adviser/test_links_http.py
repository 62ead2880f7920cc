"""Linked tables through a real server: a case follows a room seat or an arbitrated session,
each counterpart offer becomes a proposal, a move in the other side's favour a concession with
its reciprocity, and the counterpart's terms on the table a deal review; the check order with
every refusal; and nothing of the case ever reaches the table."""

from typing import Any

import httpx

from tests.adviser.test_cases_http import CASES, add, open_case, send
from tests.conftest import LiveServer
from tests.http.support import auth
from tests.intro.conftest import key
from tests.intro.test_accord_agent_http import CELLIST, QUARTET, open_pair, turn
from tests.principals.conftest import Principal
from tests.sessions.conftest import Shop
from tests.sessions.support import offer, open_session

JSONBody = dict[str, Any]
SCHEMA = {"salary": {"type": "money", "currency": "USD"}, "start": {"type": "date"}}
SALARY = {
    "topic": "Salary",
    "priority": "critical",
    "best_target": {"value": "USD 150,000.00"},
    "minimum_acceptable": {"value": "USD 130,000.00"},
    "x_accord": {"kind": "money", "currency": "USD", "term": "salary"},
}


def terms(dollars: int, start: str = "2027-02-01") -> JSONBody:
    return {"salary": {"amount_minor": dollars * 100, "currency": "USD"}, "start": start}


def room(client: httpx.Client, dollars: int) -> JSONBody:
    """A room the employer opened with an offer, joined by the candidate."""
    opened = client.post("/v1/rooms", json={"subject_schema": SCHEMA, "subject": terms(dollars)})
    assert opened.status_code == 201, opened.text
    made: JSONBody = opened.json()
    joined = client.post("/v1/rooms/join", json={"invite_token": made["invite"]["token"]})
    assert joined.status_code == 200, joined.text
    return {
        "room_id": made["room"]["room_id"],
        "employer": made["seat_token"],
        "candidate": joined.json()["seat_token"],
        "candidate_owner": joined.json()["owner_token"],
    }


def counter(
    client: httpx.Client, token: str, room_id: str, dollars: int, message: str = ""
) -> None:
    body: JSONBody = {"type": "counter", "terms": terms(dollars)}
    if message:
        body["message"] = message
    moved = client.post(f"/v1/rooms/{room_id}/moves", json=body, headers=auth(token))
    assert moved.status_code == 200, moved.text


def link(client: httpx.Client, who: Principal, case_id: str, **body: Any) -> httpx.Response:
    return client.post(f"{CASES}/{case_id}/links", json=body, headers=key(who.owner_key))


def salary_case(client: httpx.Client, who: Principal) -> str:
    case_id: str = open_case(client, who, description="A new job")["case_id"]
    added = send(
        client,
        who,
        case_id,
        1,
        add("t", "/topics_targets_tradeoffs/topics/-", SALARY),
        add("b", "/alternatives/user/batna/description", "Stay at the current job"),
        add("v", "/alternatives/user/batna/value", "USD 125,000.00"),
    )
    assert added.json()["applied"], added.text
    return case_id


def case(client: httpx.Client, who: Principal, case_id: str) -> JSONBody:
    read = client.get(f"{CASES}/{case_id}", headers=key(who.agent_key))
    assert read.status_code == 200, read.text
    body: JSONBody = read.json()
    return body


def test_a_linked_room_grows_the_case_offer_by_offer(client: httpx.Client, ada: Principal) -> None:
    case_id = salary_case(client, ada)
    table = room(client, 120_000)
    linked = link(
        client,
        ada,
        case_id,
        protocol="rooms",
        negotiation_id=table["room_id"],
        credential=table["candidate"],
    )
    assert linked.status_code == 201, linked.text
    link_id = linked.json()["link_id"]
    assert linked.json() == {
        "link_id": link_id,
        "protocol": "rooms",
        "negotiation_id": table["room_id"],
        "seat": "joiner",
    }
    # at link time, over the log so far: the employer's opening offer, under review at once
    now = case(client, ada, case_id)
    assert now["links"] == [linked.json()]
    state = now["state"]
    assert state["proposals"]["proposal_history"] == [
        {
            "proposal_id": f"{link_id}-1",
            "party": "counterpart",
            "proposal": "salary: USD 120,000.00; start: 2027-02-01",
            "timestamp": state["proposals"]["proposal_history"][0]["timestamp"],
            "source_ref": f"rooms:{table['room_id']}#1",
        }
    ]
    assert (
        state["proposals"]["current_counterpart_offer"]
        == "salary: USD 120,000.00; start: 2027-02-01"
    )
    assert state["meta"]["lifecycle_stage"] == "DEAL_REVIEW"
    assert state["deal_review"]["recommendation"] == "reject"  # below the BATNA
    last = state["history"]["material_events"][-1]
    assert last["source_ref"] == f"rooms:{table['room_id']}#1"

    # the candidate counters: their own proposal, the negotiation goes on
    counter(client, table["candidate"], table["room_id"], 150_000)
    state = case(client, ada, case_id)["state"]
    assert state["proposals"]["current_user_offer"] == "salary: USD 150,000.00; start: 2027-02-01"
    assert state["meta"]["lifecycle_stage"] == "ENGAGED"
    assert state["concessions"]["ledger"] == []  # a first offer concedes nothing

    # the employer moves up, unanswered by any concession: not reciprocal
    counter(client, table["employer"], table["room_id"], 135_000, "Our best for this band")
    state = case(client, ada, case_id)["state"]
    (theirs,) = state["concessions"]["ledger"]
    assert theirs | {"timestamp": None, "concession_id": None} == {
        "concession_id": None,
        "timestamp": None,
        "party": "counterpart",
        "topic": "topic-1",
        "from": "USD 120,000.00",
        "to": "USD 135,000.00",
        "stated_reason": "Our best for this band",
        "requested_exchange": None,
        "received_exchange": None,
        "conditional": False,
        "reciprocal": False,
        "strategic_assessment": None,
        "source_event_id": f"rooms:{table['room_id']}#4",
    }
    assert state["meta"]["lifecycle_stage"] == "DEAL_REVIEW"
    assert state["deal_review"]["recommendation"] != "reject"  # above the BATNA now

    # the candidate comes down after the employer moved: reciprocal
    counter(client, table["candidate"], table["room_id"], 145_000)
    state = case(client, ada, case_id)["state"]
    mine = state["concessions"]["ledger"][-1]
    assert (mine["party"], mine["from"], mine["to"], mine["reciprocal"]) == (
        "user",
        "USD 150,000.00",
        "USD 145,000.00",
        True,
    )
    assert [p["party"] for p in state["proposals"]["proposal_history"]] == [
        "counterpart",
        "user",
        "counterpart",
        "user",
    ]

    # reading again reads nothing twice
    version = case(client, ada, case_id)["state_version"]
    assert case(client, ada, case_id)["state_version"] == version
    history = client.get(f"{CASES}/{case_id}/history", headers=key(ada.agent_key)).json()
    refs = [e["source_ref"] for e in history["events"] if e["source_ref"]]
    table_refs = [r for r in refs if r.startswith("rooms:")]
    assert len(table_refs) == len(set(table_refs)) == 4


def test_the_first_counterpart_offer_after_ours_is_unknown_reciprocity(
    client: httpx.Client, ada: Principal
) -> None:
    """The user moves before the other side has: `unknown`, as a string."""
    case_id = salary_case(client, ada)
    table = room(client, 120_000)
    counter(client, table["candidate"], table["room_id"], 150_000)
    linked = link(
        client,
        ada,
        case_id,
        protocol="rooms",
        negotiation_id=table["room_id"],
        credential=table["candidate_owner"],
    )
    assert linked.json()["seat"] == "joiner"
    counter(client, table["employer"], table["room_id"], 125_000)
    counter(client, table["candidate"], table["room_id"], 149_000)
    ledger = case(client, ada, case_id)["state"]["concessions"]["ledger"]
    assert [(c["party"], c["reciprocal"]) for c in ledger] == [
        ("counterpart", False),
        ("user", True),
    ]


def test_a_link_is_checked_in_the_spec_order(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    case_id = salary_case(client, ada)
    table, other = room(client, 120_000), room(client, 90_000)
    body = {
        "protocol": "rooms",
        "negotiation_id": table["room_id"],
        "credential": table["candidate"],
    }
    cases = [
        (bob.owner_key, body, 404, "not_found"),  # another principal's case
        (ada.agent_key, body, 403, "forbidden"),  # an agent key never writes
        (ada.owner_key, {**body, "credential": None}, 400, "invalid_request"),
        (ada.owner_key, {**body, "protocol": "intro", "credential": "x"}, 400, "invalid_request"),
        (ada.owner_key, {**body, "seat": "opener"}, 400, "invalid_request"),
        (ada.owner_key, {**body, "negotiation_id": "room_nope"}, 404, "not_found"),
        (ada.owner_key, {**body, "protocol": "arbitrated"}, 404, "not_found"),
        (ada.owner_key, {**body, "credential": other["candidate"]}, 403, "forbidden"),
        (ada.owner_key, {**body, "credential": "seat_unknown"}, 403, "forbidden"),
    ]
    for token, sent, status, code in cases:
        answer = client.post(f"{CASES}/{case_id}/links", json=sent, headers=key(token))
        assert (answer.status_code, answer.json()["error"]["code"]) == (status, code), sent
    assert link(client, ada, case_id, **body).status_code == 201
    # one case per seat, until that case closes; the other seat is free
    second = salary_case(client, ada)
    taken = link(client, ada, second, **body)
    assert (taken.status_code, taken.json()["error"]["code"]) == (409, "already_linked")
    theirs = {**body, "credential": table["employer"]}
    assert link(client, ada, second, **theirs).json()["seat"] == "opener"
    closed = client.post(
        f"{CASES}/{case_id}/close",
        json={"outcome": "no_deal", "reason": "Took another offer"},
        headers=key(ada.owner_key),
    )
    assert closed.status_code == 200, closed.text
    again = link(client, ada, case_id, **body)
    assert (again.status_code, again.json()["error"]["code"]) == (409, "case_closed")
    third = salary_case(client, ada)
    assert link(client, ada, third, **body).status_code == 201


def test_nothing_of_the_case_reaches_the_table(client: httpx.Client, ada: Principal) -> None:
    case_id = salary_case(client, ada)
    table = room(client, 120_000)
    before = client.get(f"/v1/rooms/{table['room_id']}", headers=auth(table["employer"])).json()
    linked = link(
        client,
        ada,
        case_id,
        protocol="rooms",
        negotiation_id=table["room_id"],
        credential=table["candidate"],
    )
    assert linked.status_code == 201
    after = client.get(f"/v1/rooms/{table['room_id']}", headers=auth(table["employer"])).json()
    assert after == before
    for token in (table["employer"], table["candidate"]):
        seen = client.get(f"/v1/rooms/{table['room_id']}", headers=auth(token)).text
        assert case_id not in seen and "130,000" not in seen and "13000000" not in seen


def test_a_linked_arbitrated_session_reads_the_merchant_as_counterpart(
    shop: Shop, server: LiveServer, ada: Principal
) -> None:
    with server.client() as client:
        case_id = open_case(client, ada, description="A monitor")["case_id"]
        price = {
            "topic": "Price",
            "priority": "critical",
            "best_target": {"value": "USD 380.00"},
            "minimum_acceptable": {"value": "USD 420.00"},
            "x_accord": {
                "kind": "money",
                "currency": "USD",
                "direction": "lower_is_better",
                "term": "price",
            },
        }
        assert send(
            client, ada, case_id, 1, add("t", "/topics_targets_tradeoffs/topics/-", price)
        ).json()["applied"]
        session = open_session(client, shop.keys["publishable_test"])
        offer(client, session, 36_000)
        bad = link(
            client,
            ada,
            case_id,
            protocol="arbitrated",
            negotiation_id=session.session_id,
            credential=shop.keys["secret_test"],
        )
        assert (bad.status_code, bad.json()["error"]["code"]) == (403, "forbidden")
        linked = link(
            client,
            ada,
            case_id,
            protocol="arbitrated",
            negotiation_id=session.session_id,
            credential=session.token,
        )
        assert linked.status_code == 201, linked.text
        assert linked.json()["seat"] == "buyer"
        state = case(client, ada, case_id)["state"]
        parties = [p["party"] for p in state["proposals"]["proposal_history"]]
        assert parties == ["counterpart", "user"]  # the merchant's opening, then the buyer's
        assert state["proposals"]["current_user_offer"] == "price: USD 360.00"
        assert state["meta"]["lifecycle_stage"] == "ENGAGED"
        offer(client, session, 40_000)  # the buyer comes up; the merchant answers
        state = case(client, ada, case_id)["state"]
        assert state["proposals"]["current_counterpart_offer"] == "price: USD 432.65"
        assert state["meta"]["lifecycle_stage"] == "DEAL_REVIEW"
        ledger = [
            (c["party"], c["from"], c["to"], c["reciprocal"])
            for c in state["concessions"]["ledger"]
        ]
        assert ledger == [
            ("user", "USD 360.00", "USD 400.00", False),  # lower is better: up is a concession
            ("counterpart", "USD 441.05", "USD 432.65", True),
        ]


def test_a_linked_introduction_reads_turns_as_proposals(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    """No credential: the principal's own seat in its own opportunity; another's is not found."""
    opportunity_id = open_pair(client, bob, QUARTET, ada, CELLIST)
    case_id = open_case(client, ada, description="Join a quartet")["case_id"]
    body = {"protocol": "intro", "negotiation_id": opportunity_id}
    bobs = open_case(client, bob, description="Find a cellist")["case_id"]
    assert link(client, bob, bobs, **body).json()["seat"] == "initiator"
    stranger = link(client, ada, case_id, **{**body, "negotiation_id": "opp_nope"})
    assert (stranger.status_code, stranger.json()["error"]["code"]) == (404, "not_found")
    linked = link(client, ada, case_id, **body)
    assert linked.json()["seat"] == "responder", linked.text
    turn(client, bob, opportunity_id, "propose", "Rehearsals on Tuesdays, paid per concert.")
    state = case(client, ada, case_id)["state"]
    (proposal,) = state["proposals"]["proposal_history"]
    assert (proposal["party"], proposal["proposal"]) == (
        "counterpart",
        "Rehearsals on Tuesdays, paid per concert.",
    )
    assert state["meta"]["lifecycle_stage"] == "ENGAGED"

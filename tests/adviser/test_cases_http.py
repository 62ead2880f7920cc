"""Adviser cases through a real server: a case opened, edited, read at every version, its
material change seen and the case closed; who may do what; a restart loses nothing."""

from typing import Any, Final

import httpx
import pytest

from accord.app.principals import Principals
from accord.app.settings import Settings
from accord.http.operations import OPERATIONS
from accord.store.database import Database
from tests.conftest import FakeClock, serve_in_thread
from tests.http.support import EventStream
from tests.intro.conftest import key
from tests.principals.conftest import Principal, make_principal

CASES = "/v1/adviser/cases"
SALARY = {
    "topic": "Salary",
    "priority": "critical",
    "best_target": {"value": "USD 150,000.00"},
    "minimum_acceptable": {"value": "USD 130,000.00"},
    "x_accord": {"kind": "money", "currency": "USD", "counterpart": {"reservation": "USD 140,000"}},
}


def open_case(client: httpx.Client, who: Principal, **body: Any) -> dict[str, Any]:
    made = client.post(CASES, json={"title": "Salary review", **body}, headers=key(who.owner_key))
    assert made.status_code == 201, made.text
    case: dict[str, Any] = made.json()
    return case


def send(
    client: httpx.Client, who: Principal, case_id: str, based_on: int, *patches: dict[str, Any]
) -> httpx.Response:
    body = {"based_on_state_version": based_on, "patches": list(patches)}
    return client.post(f"{CASES}/{case_id}/patches", json=body, headers=key(who.owner_key))


def add(patch_id: str, path: str, value: Any) -> dict[str, Any]:
    return {"patch_id": patch_id, "operation": "ADD", "path": path, "proposed_value": value}


def test_a_case_from_opening_to_close(client: httpx.Client, ada: Principal) -> None:
    case = open_case(client, ada, description="A fair raise")
    case_id = case["case_id"]
    assert case["state_version"] == 1
    assert case["state"]["meta"]["lifecycle_stage"] == "NEW"
    assert case["state"]["objective"]["user_stated_objective"] == "A fair raise"

    sent = send(
        client,
        ada,
        case_id,
        1,
        add("t", "/topics_targets_tradeoffs/topics/-", SALARY),
        add("bad", "/nowhere", 1),
        add("b", "/alternatives/user/batna/value", "USD 120,000.00"),
    )
    assert sent.status_code == 200, sent.text
    result = sent.json()
    assert result["applied"] == [
        {"patch_id": "t", "path": "/topics_targets_tradeoffs/topics/topic-1"},
        {"patch_id": "b", "path": "/alternatives/user/batna/value"},
    ]
    assert [(r["patch_id"], r["code"]) for r in result["refused"]] == [("bad", "unknown_path")]
    assert result["state_version"] == 2
    change = result["material_change"]
    assert change is not None and "/alternatives/user/batna/value" in change["fields"]

    now = client.get(f"{CASES}/{case_id}", headers=key(ada.agent_key)).json()
    assert now["state_version"] == 2
    assert [c["change_id"] for c in now["material_changes"]] == [change["change_id"]]
    assert {c["check"]: c["verdict"] for c in now["checks"]} == {
        "zopa": "exists",
        "minimum_vs_batna": "ok",
    }
    listed = client.get(CASES, headers=key(ada.owner_key)).json()["cases"]
    assert [(c["case_id"], c["unseen_material_changes"]) for c in listed] == [(case_id, 1)]

    first = client.get(f"{CASES}/{case_id}/versions/1", headers=key(ada.owner_key)).json()
    assert first["state"]["topics_targets_tradeoffs"]["topics"] == []
    assert (
        client.get(f"{CASES}/{case_id}/versions/3", headers=key(ada.owner_key)).status_code == 404
    )
    events = client.get(f"{CASES}/{case_id}/history", headers=key(ada.owner_key)).json()["events"]
    assert [e["type"] for e in events] == ["case_created", "material_change"]

    seen = client.post(
        f"{CASES}/{case_id}/material-changes/{change['change_id']}/seen",
        json={},
        headers=key(ada.owner_key),
    )
    assert seen.json() == {"change_id": change["change_id"], "seen": True}
    assert (
        client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()["material_changes"]
        == []
    )

    closed = client.post(
        f"{CASES}/{case_id}/close",
        json={"outcome": "no_deal", "reason": "They froze hiring"},
        headers=key(ada.owner_key),
    )
    assert closed.status_code == 200, closed.text
    assert closed.json()["state_version"] == 3
    state = client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()["state"]
    assert (state["meta"]["status"], state["meta"]["lifecycle_stage"]) == ("no_deal", "NO_DEAL")
    assert state["history"]["material_events"][-1]["rationale"] == "They froze hiring"
    again = send(client, ada, case_id, 3, add("o", "/strategy/current_strategy", "x"))
    assert (again.status_code, again.json()["error"]["code"]) == (409, "case_closed")


def test_a_set_with_no_valid_patch_makes_no_version(client: httpx.Client, ada: Principal) -> None:
    case_id = open_case(client, ada)["case_id"]
    sent = send(client, ada, case_id, 1, add("x", "/meta/state_version", 7))
    assert sent.json()["state_version"] == 1
    assert [r["code"] for r in sent.json()["refused"]] == ["path_not_allowed"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        (
            {"based_on_state_version": 2, "patches": [add("a", "/strategy/confidence", "high")]},
            "based_on_state_version",
        ),
        ({"based_on_state_version": 1, "patches": []}, "patches"),
        (
            {"based_on_state_version": 1, "patches": [add("a", "/x", 1), add("a", "/y", 1)]},
            "patches",
        ),
        (
            {
                "based_on_state_version": 1,
                "patches": [{"patch_id": "a", "operation": "DELETE", "path": "/x"}],
            },
            "patches",
        ),
    ],
    ids=["a version to come", "no patch", "a patch_id twice", "an operation there is not"],
)
def test_a_malformed_set_is_refused_whole(
    client: httpx.Client, ada: Principal, body: dict[str, Any], field: str
) -> None:
    case_id = open_case(client, ada)["case_id"]
    sent = client.post(f"{CASES}/{case_id}/patches", json=body, headers=key(ada.owner_key))
    assert sent.status_code == 400, sent.text
    assert sent.json()["error"]["code"] == "invalid_request"
    assert field in sent.text
    assert client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()["state_version"] == 1


def test_an_agent_key_reads_and_never_writes(client: httpx.Client, ada: Principal) -> None:
    case_id = open_case(client, ada)["case_id"]
    agent = key(ada.agent_key)
    assert client.get(f"{CASES}/{case_id}", headers=agent).status_code == 200
    for path, body in [
        (CASES, {"title": "mine"}),
        (
            f"{CASES}/{case_id}/patches",
            {"based_on_state_version": 1, "patches": [add("a", "/strategy/current_strategy", "x")]},
        ),
        (f"{CASES}/{case_id}/close", {"outcome": "closed", "reason": "done"}),
    ]:
        refused = client.post(path, json=body, headers=agent)
        assert (refused.status_code, refused.json()["error"]["code"]) == (403, "forbidden")
    assert client.get(f"{CASES}/{case_id}", headers=agent).json()["state_version"] == 1


CASE_ROUTES: Final = sorted(
    operation
    for operation in OPERATIONS
    if operation.split(" ", 1)[1].startswith(CASES + "/{case_id}")
)


def test_another_principal_or_nobody_learns_nothing_of_a_case(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    """Every route on one case (from the operations table, so a new one joins the walk), with a
    body it could act on: for another principal's keys it is the unknown case, word for word;
    for no key, `unauthenticated`."""
    case = open_case(client, ada, description="Private: my floor is 130k")
    case_id = case["case_id"]
    sent = send(client, ada, case_id, 1, add("t", "/topics_targets_tradeoffs/topics/-", SALARY))
    change_id = sent.json()["material_change"]["change_id"]
    unknown = client.get(f"{CASES}/case_00000000000000000000", headers=key(bob.owner_key))
    bodies: dict[str, Any] = {
        "patches": {
            "based_on_state_version": 2,
            "patches": [add("a", "/strategy/current_strategy", "x")],
        },
        "answers": {"question_id": "Q-batna", "answer": "Quit"},
        "deal-review": {"offer": {"terms": {"topic-1": "USD 1"}}},
        "override": {"decision": "accept", "reason": "x"},
        "seen": {},
        "close": {"outcome": "closed", "reason": "x"},
        "runs": {},
        "finding-1": {"reconciliation": "ACCEPT"},
        "links": {"protocol": "rooms", "negotiation_id": "room_x", "credential": "seat_x"},
    }
    for operation in CASE_ROUTES:
        method, template = operation.split(" ", 1)
        path = template.format(
            case_id=case_id, number=1, change_id=change_id, skill_id="F04", finding_id="finding-1"
        )
        body = bodies[path.rsplit("/", 1)[-1]] if method == "POST" else None
        for token in (bob.owner_key, bob.agent_key, None):
            headers = key(token) if token else {}
            answer = client.request(method, path, json=body, headers=headers)
            if token is None:
                assert answer.status_code == 401, (operation, answer.text)
            else:
                assert (answer.status_code, answer.json()) == (404, unknown.json()), operation
            assert "130" not in answer.text and "Salary" not in answer.text, operation
    assert client.get(CASES, headers=key(bob.owner_key)).json() == {"cases": []}
    mine = client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()
    assert mine["state_version"] == 2  # nothing any of them sent changed the case


def test_cases_survive_a_restart(settings: Settings, db: Database) -> None:
    clock = FakeClock()
    who = make_principal(Principals(db, clock=clock), "ada")
    with serve_in_thread(settings, clock) as server, server.client() as client:
        case_id = open_case(client, who)["case_id"]
        assert (
            send(
                client, who, case_id, 1, add("a", "/strategy/current_strategy", "Anchor high")
            ).status_code
            == 200
        )
    with serve_in_thread(settings, clock) as server, server.client() as client:
        case = client.get(f"{CASES}/{case_id}", headers=key(who.owner_key)).json()
        assert case["state_version"] == 2
        assert case["state"]["strategy"]["current_strategy"] == "Anchor high"
        old = client.get(f"{CASES}/{case_id}/versions/1", headers=key(who.owner_key)).json()
        assert old["state"]["strategy"]["current_strategy"] is None


def answer(
    client: httpx.Client, who: Principal, case_id: str, question_id: str, value: Any
) -> httpx.Response:
    body = {"question_id": question_id, "answer": value}
    return client.post(f"{CASES}/{case_id}/answers", json=body, headers=key(who.owner_key))


def open_questions(client: httpx.Client, who: Principal, case_id: str) -> list[str]:
    case = client.get(f"{CASES}/{case_id}", headers=key(who.owner_key)).json()
    return [q["question_id"] for q in case["questions"]]


def test_intake_asks_and_the_answers_fill_the_file(client: httpx.Client, ada: Principal) -> None:
    case = open_case(client, ada, description="A fair raise")
    case_id = case["case_id"]
    assert [q["question_id"] for q in case["questions"]] == [
        "Q-batna",
        "Q-counterpart",
        "Q-deadline",
    ]
    assert case["questions"][0]["blocking"] is True

    wrong = answer(client, ada, case_id, "Q-deadline", "next spring")
    assert (wrong.status_code, wrong.json()["error"]["code"]) == (400, "invalid_request")
    assert "YYYY-MM-DD" in wrong.text
    missing = answer(client, ada, case_id, "Q-nothing", "x")
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "not_found")

    done = answer(client, ada, case_id, "Q-batna", "Stay in my current job")
    assert done.status_code == 200, done.text
    result = done.json()
    assert result["question"]["status"] == "answered"
    assert result["applied"][0] == {
        "patch_id": "answer-Q-batna",
        "path": "/alternatives/user/batna/description",
    }
    state = client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()["state"]
    assert state["meta"]["lifecycle_stage"] == "TRIAGE"
    assert open_questions(client, ada, case_id) == ["Q-counterpart", "Q-deadline", "Q-relationship"]
    again = answer(client, ada, case_id, "Q-batna", "Something else")
    assert (again.status_code, again.json()["error"]["code"]) == (409, "question_not_open")

    # a field filled another way stops its question
    filled = send(client, ada, case_id, 2, add("o", "/parties/counterpart/organisation", "Acme"))
    assert filled.json()["applied"], filled.text
    assert open_questions(client, ada, case_id) == ["Q-deadline", "Q-relationship"]

    dated = answer(client, ada, case_id, "Q-deadline", "2027-03-31")
    assert dated.json()["applied"][0]["path"] == "/process/deadlines/0"
    state = client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()["state"]
    assert state["process"]["deadlines"] == [
        {"deadline": "2027-03-31", "evidence_status": "UNKNOWN", "source_ref": None}
    ]

    # the relationship sets how deep the analysis goes (none was given at creation)
    assert answer(client, ada, case_id, "Q-relationship", "high").status_code == 200
    state = client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()["state"]
    assert state["meta"]["analysis_depth"] == "FULL"

    # a topic with a target and a minimum: the file is ready for a strategy at the next answer
    send(
        client,
        ada,
        case_id,
        state["meta"]["state_version"],
        add("t", "/topics_targets_tradeoffs/topics/-", SALARY),
    )
    assert state["meta"]["lifecycle_stage"] == "TRIAGE"
    case = client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()
    assert case["questions"] == []


def test_the_brief_is_one_page_of_markdown(client: httpx.Client, ada: Principal) -> None:
    case_id = open_case(client, ada, description="A fair raise | and *more*")["case_id"]
    send(
        client,
        ada,
        case_id,
        1,
        add("t", "/topics_targets_tradeoffs/topics/-", SALARY),
        add("b", "/alternatives/user/batna/description", "Stay in my current job"),
    )
    page = client.get(f"{CASES}/{case_id}/export", headers=key(ada.agent_key))
    assert page.status_code == 200, page.text
    assert page.headers["content-type"].startswith("text/markdown")
    text = page.text
    assert text.startswith("# Salary review\n")
    assert "A fair raise \\| and \\*more\\*" in text  # the user's text, never Markdown
    assert "| Salary | critical | USD 150,000.00 | USD 130,000.00 | – | USD 140,000 |" in text
    assert "USD 130,000.00 to USD 140,000 |" in text
    assert "- BATNA: Stay in my current job" in text
    assert "Who are you negotiating with" in text  # an open question
    first = client.get(f"{CASES}/{case_id}/export?version=1", headers=key(ada.owner_key)).text
    assert "Stay in my current job" not in first and "Who are you" not in first
    missing = client.get(f"{CASES}/{case_id}/export?version=9", headers=key(ada.owner_key))
    assert missing.status_code == 404
    for secret in (ada.owner_key, ada.agent_key):
        assert secret not in text


def test_the_adviser_stream_tells_ids_and_versions_to_the_principal_alone(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    case = open_case(client, ada, description="My floor is USD 130,000")
    case_id = case["case_id"]
    sent = send(client, ada, case_id, 1, add("b", "/alternatives/user/batna/value", "USD 120,000"))
    change_id = sent.json()["material_change"]["change_id"]
    with client.stream(
        "GET", "/v1/adviser/events", headers=key(ada.agent_key), timeout=10
    ) as response:
        stream = EventStream(response)
        frames = stream.take(6)
    assert [
        (
            f.event,
            f.data.get("state_version") or f.data.get("question_id") or f.data.get("change_id"),
        )
        for f in frames
    ] == [
        ("adviser.version", 1),
        ("adviser.question", "Q-batna"),
        ("adviser.question", "Q-counterpart"),
        ("adviser.question", "Q-deadline"),
        ("adviser.version", 2),
        ("adviser.material_change", change_id),
    ]
    assert all(f.data["case_id"] == case_id for f in frames)
    # the amounts in any form (with or without a separator, in minor units); a bare "120"
    # would also match the ids' random hex
    amounts = ("130,000", "130000", "120,000", "120000")
    assert all(amount not in f.raw for f in frames for amount in amounts)
    # resumed after the second frame, it starts at the third
    with client.stream(
        "GET",
        "/v1/adviser/events",
        headers=key(ada.owner_key) | {"Last-Event-ID": str(frames[1].id)},
        timeout=10,
    ) as response:
        assert EventStream(response).next_frame().id == frames[2].id
    # bob's stream: his own case's first event comes first, nothing of ada's
    mine = open_case(client, bob)["case_id"]
    with client.stream(
        "GET", "/v1/adviser/events", headers=key(bob.owner_key), timeout=10
    ) as response:
        first = EventStream(response).next_frame()
    assert first.data["case_id"] == mine
    # the intro stream carries none of them
    intro = client.stream("GET", "/api/events", headers=key(ada.owner_key), timeout=2)
    with intro as response, pytest.raises(httpx.ReadTimeout):
        EventStream(response).next_frame()


def test_an_offer_reviewed_and_accepted_against_the_review_on_the_record(
    client: httpx.Client, ada: Principal
) -> None:
    case_id = open_case(client, ada)["case_id"]
    send(
        client,
        ada,
        case_id,
        1,
        add("t", "/topics_targets_tradeoffs/topics/-", SALARY),
        add("b", "/alternatives/user/batna/value", "USD 125,000.00"),
        add("s", "/strategy/current_strategy", "Anchor at 150k"),
    )
    early = client.post(
        f"{CASES}/{case_id}/deal-review/override",
        json={"decision": "accept", "reason": "x"},
        headers=key(ada.owner_key),
    )
    assert (early.status_code, early.json()["error"]["code"]) == (409, "nothing_to_override")

    reviewed = client.post(
        f"{CASES}/{case_id}/deal-review",
        json={"offer": {"terms": {"topic-1": "USD 120,000.00"}}},
        headers=key(ada.owner_key),
    )
    assert reviewed.status_code == 200, reviewed.text
    body = reviewed.json()
    review = body["deal_review"]
    assert (review["recommendation"], review["status"]) == ("reject", "fail")
    assert review["batna_test"] == "fail" and review["priority_topic_test"] == "fail"
    assert review["offer_reviewed"] == "topic-1: USD 120,000.00"
    assert body["response"]["skill_id"] == "F08"
    assert body["material_change"] is not None
    state = client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()["state"]
    assert state["meta"]["lifecycle_stage"] == "DEAL_REVIEW"
    assert "150k" not in reviewed.text  # the review never reads the strategy

    overridden = client.post(
        f"{CASES}/{case_id}/deal-review/override",
        json={"decision": "accept", "reason": "A sign-on bonus makes up the gap"},
        headers=key(ada.owner_key),
    )
    assert overridden.status_code == 200, overridden.text
    state = client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()["state"]
    override = state["deal_review"]["override"]
    assert override["occurred"] is True
    assert override["user_reason"] == "A sign-on bonus makes up the gap"
    assert state["history"]["material_events"][-1]["type"] == "override"
    # the user cannot write the review themselves
    forgery = {
        "patch_id": "f",
        "operation": "UPDATE_WITH_EVIDENCE",
        "path": "/deal_review/recommendation",
        "proposed_value": "accept",
        "basis": "I say so",
    }
    forged = send(client, ada, case_id, state["meta"]["state_version"], forgery)
    assert [r["code"] for r in forged.json()["refused"]] == ["path_not_allowed"]

    again = client.post(
        f"{CASES}/{case_id}/deal-review",
        json={"offer": {"terms": {"topic-1": "USD 145,000.00"}}},
        headers=key(ada.owner_key),
    ).json()
    # every term now passes, but who approves on their side is unknown: find that out first
    assert again["deal_review"]["recommendation"] == "get_information"
    assert again["deal_review"]["implementation_test"] == "unknown"
    assert again["deal_review"]["override"]["occurred"] is False  # a new review clears it

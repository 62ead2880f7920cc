"""The README's worked example over HTTP, every promise checked: a salary negotiation from intake
to deal review, with a pre-commitment, a skill's patch refused and why, a counter-offer arriving
from a linked room, a material change surfaced and seen, and the exported brief."""

from typing import Any

import httpx

from tests.adviser.test_cases_http import CASES
from tests.http.support import auth
from tests.intro.conftest import key
from tests.principals.conftest import Principal

JSONBody = dict[str, Any]
SALARY = {
    "topic_id": "salary",
    "topic": "Base salary",
    "priority": "critical",
    "best_target": {"value": "USD 150,000"},
    "minimum_acceptable": {"value": "USD 135,000"},
    "x_accord": {
        "term": "salary",
        "counterpart": {"target": "USD 120,000", "reservation": "USD 145,000"},
    },
}
FLOOR = {
    "criterion_id": "pay",
    "criterion": "Base salary of at least USD 135,000",
    "importance": "critical",
    "threshold": "salary >= USD 135,000",
    "evidence_basis": "Contoso pays 125k; moving costs 10k",
}


def p(patch_id: str, path: str, value: Any, operation: str = "ADD") -> JSONBody:
    return {"patch_id": patch_id, "operation": operation, "path": path, "proposed_value": value}


def terms(thousands: int) -> JSONBody:
    money = {"amount_minor": thousands * 100_000, "currency": "USD"}
    return {"salary": money, "start": "2027-02-01"}


def test_a_salary_negotiation_from_intake_to_deal_review(
    client: httpx.Client, ada: Principal
) -> None:
    owner, agent = key(ada.owner_key), key(ada.agent_key)

    def case() -> JSONBody:
        read = client.get(f"{CASES}/{case_id}", headers=agent)
        assert read.status_code == 200, read.text
        body: JSONBody = read.json()
        return body

    def post(path: str, body: JSONBody, expected: int = 200) -> JSONBody:
        answer = client.post(f"{CASES}/{case_id}{path}", json=body, headers=owner)
        assert answer.status_code == expected, answer.text
        result: JSONBody = answer.json()
        return result

    # intake: the BATNA is asked first, and blocking
    made = client.post(
        CASES,
        json={"title": "Northwind offer", "description": "Senior engineer at Northwind"},
        headers=owner,
    )
    case_id = made.json()["case_id"]
    first = made.json()["questions"][0]
    assert (first["question_id"], first["blocking"]) == ("Q-batna", True)
    post("/answers", {"question_id": "Q-batna", "answer": "Stay at Contoso"})

    # the topic, the BATNA's value and the pre-commitment, made before any offer
    result = post(
        "/patches",
        {
            "based_on_state_version": 2,
            "patches": [
                p("salary", "/topics_targets_tradeoffs/topics/-", SALARY),
                p("batna-value", "/alternatives/user/batna/value", "USD 125,000"),
                {**p("commit", "/precommitment/created", True, "UPDATE_WITH_EVIDENCE"),
                 "basis": "Decided before any offer arrives"},
                p("floor", "/precommitment/acceptance_criteria/-", FLOOR),
            ],
        },
    )  # fmt: skip
    assert result["refused"] == [] and result["state_version"] == 3
    checks = {(c["check"], c.get("topic_id")): c for c in case()["checks"]}
    assert checks[("zopa", "salary")]["verdict"] == "exists"

    # a skill of Kim's own moves the strategy, and is refused moving the pre-commitment
    declared = client.post(
        "/v1/adviser/skills",
        json={"skill_id": "x-coach", "name": "Coach", "reads": ["/strategy", "/precommitment"],
              "writes": ["/strategy", "/precommitment"]},
        headers=owner,
    )  # fmt: skip
    assert declared.status_code == 201, declared.text
    coached = post(
        "/skills/x-coach/runs",
        {
            "response": {
                "skill_id": "x-coach",
                "request_id": "coach-1",
                "based_on_state_version": 3,
                "summary": {"conclusion": "Anchor high, take 128k if need be", "confidence": "low"},
                "proposed_state_patch": [
                    p("anchor", "/strategy/current_strategy", "Anchor at 150k"),
                    p("lower", "/precommitment/acceptance_criteria/pay/threshold",
                      "salary >= USD 128,000", "UPDATE_WITH_EVIDENCE"),
                ],
            }
        },
    )  # fmt: skip
    assert [a["patch_id"] for a in coached["applied"]] == ["anchor"]
    assert coached["refused"] == [
        {
            "patch_id": "lower",
            "code": "precommitment_change_unlogged",
            "message": "a skill never moves a pre-commitment",
        }
    ]
    assert case()["state"]["precommitment"]["acceptance_criteria"][0]["threshold"] == (
        "salary >= USD 135,000"
    )

    # Northwind's room: its offer arrives in the case as soon as Kim's seat is linked
    opened = client.post(
        "/v1/rooms",
        json={"subject_schema": {"salary": {"type": "money", "currency": "USD"},
                                 "start": {"type": "date"}}, "subject": terms(120)},
    ).json()  # fmt: skip
    room_id, northwind = opened["room"]["room_id"], opened["seat_token"]
    kim = client.post("/v1/rooms/join", json={"invite_token": opened["invite"]["token"]}).json()
    linked = post(
        "/links",
        {"protocol": "rooms", "negotiation_id": room_id, "credential": kim["seat_token"]},
        201,
    )
    assert linked["seat"] == "joiner"
    state = case()["state"]
    assert state["meta"]["lifecycle_stage"] == "DEAL_REVIEW"
    review = state["deal_review"]
    assert review["recommendation"] == "reject"
    assert (review["batna_test"], review["precommitment_test"]) == ("fail", "fail")

    # Kim counters; Northwind's counter-offer comes back, a concession to her
    for token, k, message in ((kim["seat_token"], 150, None), (northwind, 138, "Top of the band")):
        body = {"type": "counter", "terms": terms(k)} | ({"message": message} if message else {})
        moved = client.post(f"/v1/rooms/{room_id}/moves", json=body, headers=auth(token))
        assert moved.status_code == 200, moved.text
    now = case()
    state = now["state"]
    assert state["proposals"]["current_counterpart_offer"] == (
        "salary: USD 138,000.00; start: 2027-02-01"
    )
    (conceded,) = state["concessions"]["ledger"]
    assert (conceded["from"], conceded["to"], conceded["stated_reason"]) == (
        "USD 120,000.00",
        "USD 138,000.00",
        "Top of the band",
    )
    review = state["deal_review"]
    assert (review["batna_test"], review["precommitment_test"]) == ("pass", "pass")
    assert review["recommendation"] == "get_information"  # their authority is not known yet

    # the review's change is surfaced, and seen
    change = now["material_changes"][-1]
    assert "/deal_review/recommendation" in change["fields"]
    seen = post(f"/material-changes/{change['change_id']}/seen", {})
    assert seen == {"change_id": change["change_id"], "seen": True}
    assert change["change_id"] not in [c["change_id"] for c in case()["material_changes"]]

    # the brief: one page, the offers and the last review, never a credential
    brief = client.get(f"{CASES}/{case_id}/export", headers=agent)
    assert brief.status_code == 200
    text = brief.text
    assert text.startswith("# Northwind offer\n")
    assert "- Theirs: salary: USD 138,000.00; start: 2027-02-01" in text
    assert "get_information" in text
    assert kim["seat_token"] not in text and kim["owner_token"] not in text

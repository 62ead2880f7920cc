"""Skills through a real server: the registry, built-in runs that grow the file, a registered
skill's response validated like any other, red-team findings held until the user reconciles them,
and a draft that never says what must not be said."""

from typing import Any

import httpx
import pytest

from tests.adviser.test_cases_http import CASES, SALARY, add, open_case, send
from tests.intro.conftest import key
from tests.principals.conftest import Principal

SKILLS = "/v1/adviser/skills"
BONUS = {"topic": "Signing bonus", "priority": "low", "minimum_acceptable": {"value": "USD 0"}}


def run(
    client: httpx.Client, who: Principal, case_id: str, skill_id: str, **body: Any
) -> httpx.Response:
    return client.post(
        f"{CASES}/{case_id}/skills/{skill_id}/runs", json=body, headers=key(who.owner_key)
    )


def response(skill_id: str, based_on: int, **members: Any) -> dict[str, Any]:
    """A registered skill's SKILL_RESPONSE: the required members, and what the test adds."""
    return {
        "skill_id": skill_id,
        "request_id": "req-1",
        "based_on_state_version": based_on,
        "summary": {"conclusion": "Looked at the strategy", "confidence": "medium"},
        **members,
    }


def declare(client: httpx.Client, who: Principal, **members: Any) -> httpx.Response:
    body = {"skill_id": "x-coach", "name": "Coach", "reads": ["/strategy"], "writes": ["/strategy"]}
    return client.post(SKILLS, json={**body, **members}, headers=key(who.owner_key))


def test_the_registry_lists_the_builtins_and_your_own_only(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    listed = client.get(SKILLS, headers=key(ada.agent_key)).json()["skills"]
    assert [s["skill_id"] for s in listed] == [f"F0{n}" for n in range(1, 10)]
    review = next(s for s in listed if s["skill_id"] == "F08")
    assert not any(r.startswith("/strategy") for r in review["reads"])  # never reads advocacy
    made = declare(client, ada)
    assert made.status_code == 201, made.text
    assert made.json() == {
        "skill_id": "x-coach",
        "name": "Coach",
        "reads": ["/strategy"],
        "writes": ["/strategy"],
        "builtin": False,
        "red_team": False,
    }
    again = declare(client, ada, name="Coach 2", red_team=True)
    assert (again.status_code, again.json()["red_team"]) == (200, True)
    mine = client.get(SKILLS, headers=key(ada.owner_key)).json()["skills"]
    assert [s["name"] for s in mine if not s["builtin"]] == ["Coach 2"]
    theirs = client.get(SKILLS, headers=key(bob.owner_key)).json()["skills"]
    assert all(s["builtin"] for s in theirs)
    refused = declare(client, ada, skill_id="x-other")
    assert refused.status_code == 201
    by_agent = client.post(
        SKILLS,
        json={"skill_id": "x-a", "name": "A", "reads": [], "writes": []},
        headers=key(ada.agent_key),
    )
    assert by_agent.status_code == 403


@pytest.mark.parametrize(
    ("members", "field"),
    [
        ({"skill_id": "coach"}, "skill_id"),
        ({"skill_id": "x-Coach"}, "skill_id"),
        ({"skill_id": "x-" + "a" * 41}, "skill_id"),
        ({"writes": ["/history"]}, ""),
        ({"writes": ["/deal_review/recommendation"]}, ""),
        ({"writes": ["/meta/status"]}, ""),
        ({"writes": ["/meta"]}, ""),
        ({"reads": ["/nowhere"]}, ""),
        ({"writes": ["/topics_targets_tradeoffs/topics/0"]}, ""),
        ({"reads": "strategy"}, "reads"),
    ],
)
def test_a_bad_declaration_is_refused_and_says_why(
    client: httpx.Client, ada: Principal, members: dict[str, Any], field: str
) -> None:
    refused = declare(client, ada, **members)
    assert refused.status_code == 400, refused.text
    assert refused.json()["error"]["code"] == "invalid_request"
    assert any(field in name for name in refused.json()["error"]["fields"])


def test_a_meta_stage_write_may_be_declared(client: httpx.Client, ada: Principal) -> None:
    made = declare(client, ada, writes=["/meta/lifecycle_stage", "/meta/analysis_depth"])
    assert made.status_code == 201, made.text


def test_builtins_grow_the_file_and_ask_what_they_need(
    client: httpx.Client, ada: Principal
) -> None:
    case_id = open_case(client, ada, description="A raise")["case_id"]
    salary = {**SALARY, "minimum_acceptable": {"value": None}}
    topic = send(client, ada, case_id, 1, add("t", "/topics_targets_tradeoffs/topics/-", salary))
    assert topic.json()["applied"], topic.text
    # F04 asks for the critical topic's minimum, blocking: it gives no conclusion meanwhile
    first = run(client, ada, case_id, "F04")
    assert first.status_code == 200, first.text
    answered = first.json()["response"]
    assert answered["summary"]["confidence"] == "unknown"
    assert answered["summary"]["conclusion"].startswith(
        "Waiting for an answer to Q-minimum-topic-1"
    )
    assert answered["recommendations"] == []
    assert not any(p["path"].startswith("/strategy") for p in answered["proposed_state_patch"])
    question = answered["questions"][0]
    assert (question["kind"], question["currency"], question["blocking"]) == ("money", "USD", True)
    case = client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()
    assert "Q-minimum-topic-1" in [q["question_id"] for q in case["questions"]]
    assert case["state"]["proposals"]["opening_offer"] == "topic-1: USD 150,000.00"

    given = client.post(
        f"{CASES}/{case_id}/answers",
        json={"question_id": "Q-minimum-topic-1", "answer": "USD 130,000.00"},
        headers=key(ada.owner_key),
    )
    assert given.status_code == 200, given.text
    version = given.json()["state_version"]
    assert (
        send(
            client, ada, case_id, version, add("b", "/topics_targets_tradeoffs/topics/-", BONUS)
        ).status_code
        == 200
    )
    second = run(client, ada, case_id, "F04").json()
    assert second["response"]["summary"]["confidence"] == "medium"
    state = client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()["state"]
    proposals = state["proposals"]
    assert proposals["least_acceptable_package"] == "topic-1: USD 130,000.00; topic-2: USD 0"
    assert proposals["creative_package"] == "topic-1: USD 150,000.00; topic-2: USD 0"
    [trade] = state["topics_targets_tradeoffs"]["cross_topic_tradeoffs"]
    assert (trade["give"], trade["receive"], trade["status"]) == (
        "topic-2: USD 0",
        "topic-1: USD 150,000.00",
        "proposed",
    )
    assert [o["topics_affected"] for o in state["options"]["in_agreement"]] == [
        ["topic-2", "topic-1"]
    ]
    # no BATNA yet: that is the next move, and it is a material change
    assert state["strategy"]["recommended_next_move"] == "Find your BATNA"
    assert second["material_change"]["fields"] == ["/strategy/recommended_next_move"]
    # run again: nothing new to add, so no version
    third = run(client, ada, case_id, "F04").json()
    assert (third["applied"], third["state_version"]) == ([], second["state_version"])


def test_alternatives_interests_and_authority(client: httpx.Client, ada: Principal) -> None:
    case_id = open_case(client, ada)["case_id"]
    sent = send(
        client,
        ada,
        case_id,
        1,
        add("t", "/topics_targets_tradeoffs/topics/-", SALARY),
        add("b", "/alternatives/user/batna/description", "Maybe another company hires me"),
        add("p", "/positions/user_positions/-", {"topic_ref": "topic-1", "position": "150k"}),
        {
            **add(
                "c",
                "/interests/counterpart/-",
                {
                    "interest": "Keep pay bands fair",
                    "priority": "high",
                    "evidence_status": "HYPOTHESIS",
                    "x_accord": {"topic_refs": ["topic-1"]},
                },
            ),
            "basis": "HR said so at the last review",
        },
        add(
            "s",
            "/stakeholders/-",
            {"person_or_role": "CFO", "practical_influence": "high", "stance": "resistant"},
        ),
        add("a", "/parties/counterpart/authority_status/value", "The CFO signs off"),
    )
    assert sent.status_code == 200 and not sent.json()["refused"], sent.text

    alternatives = run(client, ada, case_id, "F03").json()["response"]
    assert [w["warning_id"] for w in alternatives["warnings"]] == ["W-batna-hope"]
    assert [q["question_id"] for q in alternatives["questions"]] == [
        "Q-watna",
        "Q-their-batna",
        "Q-improve-batna",
    ]

    interests = run(client, ada, case_id, "F02").json()
    asked = interests["response"]["questions"]
    assert [(q["question_id"], q["path"]) for q in asked] == [
        ("Q-why-topic-1", "/interests/user/-")
    ]
    assert [a["path"] for a in interests["applied"]] == [
        "/facts_and_research/research_questions/rq-interest-1"
    ]

    authority = run(client, ada, case_id, "F05").json()
    assert [a["path"] for a in authority["applied"]] == [
        "/parties/counterpart/authority_status/evidence_status",
        "/facts_and_research/research_questions/rq-stakeholder-1",
    ]
    assert [w["warning_id"] for w in authority["response"]["warnings"]] == [
        "W-resistant-stakeholder-1"
    ]
    state = client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()["state"]
    assert state["parties"]["counterpart"]["authority_status"]["evidence_status"] == "HYPOTHESIS"
    # a user interest on the topic, and the two sides share one: F02 proposes it, at HYPOTHESIS
    version = state["meta"]["state_version"]
    mine = {
        "interest": "Be paid at market",
        "priority": "high",
        "x_accord": {"topic_refs": ["topic-1"]},
    }
    assert (
        send(client, ada, case_id, version, add("u", "/interests/user/-", mine)).status_code == 200
    )
    common = run(client, ada, case_id, "F02").json()
    assert [a["path"] for a in common["applied"]] == ["/interests/common/common-topic-1"]
    state = client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()["state"]
    assert state["interests"]["common"][0]["evidence_status"] == "HYPOTHESIS"


def test_a_draft_never_says_what_must_not_be_said(client: httpx.Client, ada: Principal) -> None:
    case_id = open_case(client, ada)["case_id"]
    sent = send(
        client,
        ada,
        case_id,
        1,
        add("t", "/topics_targets_tradeoffs/topics/-", SALARY),
        add("o", "/proposals/current_user_offer", "topic-1: USD 145,000.00"),
        add(
            "d",
            "/x_accord/disclosure/ask",
            ["Is 130000 within your band", "When could I start"],
        ),
    )
    assert sent.status_code == 200 and not sent.json()["refused"], sent.text
    drafted = run(client, ada, case_id, "F07", request={"kind": "draft"})
    assert drafted.status_code == 200, drafted.text
    body = drafted.json()
    content = body["response"]["deliverable"]["content"]
    assert "topic-1: USD 145,000.00" in content
    assert "When could I start?" in content
    assert "130000" not in content and "130,000" not in content  # the minimum, said another way
    assert [w["warning_id"] for w in body["response"]["warnings"]] == ["W-never-reveal"]
    assert body["applied"] == [] and body["state_version"] == 2  # F07 writes nothing
    agenda = run(client, ada, case_id, "F07", request={"kind": "agenda"}).json()
    assert agenda["response"]["deliverable"]["content"] == "1. Salary"
    bad = run(client, ada, case_id, "F07", request={"kind": "poem"})
    assert (bad.status_code, bad.json()["error"]["code"]) == (400, "invalid_request")
    assert run(client, ada, case_id, "F04", request={"x": 1}).status_code == 400


def test_a_registered_skill_is_validated_like_any_other(
    client: httpx.Client, ada: Principal
) -> None:
    case_id = open_case(client, ada)["case_id"]
    assert declare(client, ada).status_code == 201
    sent = run(
        client,
        ada,
        case_id,
        "x-coach",
        response=response(
            "x-coach",
            1,
            proposed_state_patch=[
                add("ok", "/strategy/current_strategy", "Anchor on market data"),
                add("out", "/alternatives/user/batna/description", "Quit"),
                add("closes", "/meta/status", "closed"),
            ],
            questions=[
                {
                    "question_id": "Q-market",
                    "question": "What does the market pay?",
                    "priority": 2,
                    "decision_impact": "Sets the anchor",
                    "blocking": False,
                    "kind": "money",
                    "currency": "USD",
                    "path": "/independent_criteria/-",
                }
            ],
        ),
    )
    assert sent.status_code == 200, sent.text
    result = sent.json()
    assert result["applied"] == [{"patch_id": "ok", "path": "/strategy/current_strategy"}]
    assert [(r["patch_id"], r["code"]) for r in result["refused"]] == [
        ("out", "path_not_allowed"),
        ("closes", "close_without_event"),
    ]
    case = client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()
    assert [q["asked_by"] for q in case["questions"] if q["question_id"] == "Q-market"] == [
        "x-coach"
    ]
    history = case["state"]["history"]["material_events"][-1]
    assert history["source_ref"] == "x-coach:req-1"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "response"),
        ({"response": {"skill_id": "x-coach"}}, "response.request_id"),
        ({"response": response("x-other", 1)}, "response.skill_id"),
        ({"response": response("x-coach", 9)}, "response.based_on_state_version"),
        (
            {
                "response": response(
                    "x-coach",
                    1,
                    questions=[
                        {
                            "question_id": "Q-x",
                            "question": "?",
                            "priority": 1,
                            "decision_impact": "all",
                            "blocking": True,
                            "kind": "text",
                            "path": "/strategy/current_strategy",
                        }
                    ],
                )
            },
            "response.summary",
        ),
        (
            {
                "response": response(
                    "x-coach",
                    1,
                    questions=[
                        {
                            "question_id": "Q-x",
                            "question": "?",
                            "priority": 1,
                            "decision_impact": "all",
                            "blocking": False,
                            "kind": "text",
                            "path": "/nowhere",
                        }
                    ],
                )
            },
            "response.questions.Q-x.path",
        ),
    ],
)
def test_a_bad_skill_response_is_refused(
    client: httpx.Client, ada: Principal, body: dict[str, Any], field: str
) -> None:
    case_id = open_case(client, ada)["case_id"]
    assert declare(client, ada).status_code == 201
    refused = run(client, ada, case_id, "x-coach", **body)
    assert (refused.status_code, refused.json()["error"]["code"]) == (400, "invalid_request")
    assert field in refused.json()["error"]["fields"], refused.json()
    after = client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()
    assert after["state_version"] == 1


def test_unknown_skill_unlinked_table_and_a_builtin_given_a_response(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    case_id = open_case(client, ada)["case_id"]
    assert declare(client, bob).status_code == 201  # bob's own skill is not ada's
    for skill_id in ("x-coach", "F10"):
        missing = run(client, ada, case_id, skill_id, response=response(skill_id, 1))
        assert (missing.status_code, missing.json()["error"]["code"]) == (404, "not_found")
    unlinked = run(client, ada, case_id, "F09")
    assert (unlinked.status_code, unlinked.json()["error"]["code"]) == (409, "not_linked")
    given = run(client, ada, case_id, "F04", response=response("F04", 1))
    assert given.status_code == 400
    review = run(client, ada, case_id, "F08", request={"offer": {"terms": {"topic-1": "USD 1"}}})
    assert review.status_code == 200 and review.json()["deal_review"]["recommendation"]


def test_red_team_patches_wait_for_the_user(client: httpx.Client, ada: Principal) -> None:
    case_id = open_case(client, ada)["case_id"]
    assert declare(client, ada, red_team=True).status_code == 201

    def finding(finding_id: str) -> dict[str, Any]:
        return {"finding_id": finding_id, "finding": "They will stall", "importance": "high"}

    def strategy(patch_id: str, finding_id: str, value: str) -> dict[str, Any]:
        return {**add(patch_id, "/strategy/current_strategy", value), "x_finding_id": finding_id}

    sent = run(
        client,
        ada,
        case_id,
        "x-coach",
        response=response(
            "x-coach",
            1,
            findings=[finding("f-1"), finding("f-2")],
            proposed_state_patch=[
                strategy("s1", "f-1", "Set a deadline"),
                strategy("s2", "f-2", "Wait them out"),
                strategy("lost", "f-9", "Nobody's"),
            ],
        ),
    ).json()
    assert sent["applied"] == []
    assert sent["held"] == [
        {"patch_id": "s1", "finding_id": "f-1"},
        {"patch_id": "s2", "finding_id": "f-2"},
    ]
    assert [(r["patch_id"], r["code"]) for r in sent["refused"]] == [("lost", "invalid_value")]
    case = client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()
    assert case["state"]["strategy"]["current_strategy"] is None
    assert [f["reconciliation_status"] for f in case["state"]["roleplay"]["red_team_findings"]] == [
        None,
        None,
    ]
    assert [h["patch_id"] for h in case["held"]] == ["s1", "s2"]

    def reconcile(finding_id: str, decision: str) -> httpx.Response:
        return client.post(
            f"{CASES}/{case_id}/findings/{finding_id}",
            json={"reconciliation": decision},
            headers=key(ada.owner_key),
        )

    assert reconcile("f-1", "DEFER").json()["applied"] == []
    accepted = reconcile("f-1", "ACCEPT").json()
    assert accepted["applied"] == [{"patch_id": "s1", "path": "/strategy/current_strategy"}]
    assert accepted["material_change"]["fields"] == ["/strategy/current_strategy"]
    assert reconcile("f-2", "REJECT").json()["applied"] == []
    case = client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()
    roleplay = case["state"]["roleplay"]
    assert case["state"]["strategy"]["current_strategy"] == "Set a deadline"
    assert (roleplay["accepted_findings"], roleplay["rejected_findings"]) == (["f-1"], ["f-2"])
    assert case["held"] == []
    final = reconcile("f-1", "REJECT")
    assert (final.status_code, final.json()["error"]["code"]) == (409, "finding_final")
    assert reconcile("f-3", "ACCEPT").status_code == 404
    assert reconcile("f-2", "MAYBE").status_code == 400
    again = run(
        client, ada, case_id, "x-coach", response=response("x-coach", 1, findings=[finding("f-1")])
    )
    assert again.status_code == 400  # a finding id the case already holds
    types = [e["type"] for e in case["state"]["history"]["material_events"]]
    assert types.count("finding_reconciled") == 2 and "skill_run" in types


def test_roleplay_records_its_findings_at_hypothesis(client: httpx.Client, ada: Principal) -> None:
    case_id = open_case(client, ada)["case_id"]
    topic = send(client, ada, case_id, 1, add("t", "/topics_targets_tradeoffs/topics/-", SALARY))
    assert topic.json()["applied"], topic.text
    ran = run(client, ada, case_id, "F06", request={"seeds": [0, 1, 2], "rounds": 20})
    assert ran.status_code == 200, ran.text
    body = ran.json()
    findings = body["response"]["findings"]
    assert findings and all(f["evidence_status"] == "HYPOTHESIS" for f in findings)
    assert body["refused"] == []
    assert body["response"]["deliverable"]["kind"] == "roleplay"
    state = client.get(f"{CASES}/{case_id}", headers=key(ada.owner_key)).json()["state"]
    roleplay = state["roleplay"]
    assert roleplay["last_snapshot_version"] == 2
    assert [f["finding_id"] for f in roleplay["red_team_findings"]] == [
        f["finding_id"] for f in findings
    ]
    reactions = state["rapport_reactions_responses"]["likely_reactions"]
    assert reactions and all(r["evidence_status"] == "HYPOTHESIS" for r in reactions)
    bad = run(client, ada, case_id, "F06", request={"rounds": 0})
    assert (bad.status_code, bad.json()["error"]["code"]) == (400, "invalid_request")

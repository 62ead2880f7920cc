"""The optional language-model skill against a local stub endpoint (never a real model): listed
only when a model is configured, prompted with its view (never the person's BATNA), every patch
held under its finding as a hypothesis and validated like any skill's, and an answer that does
not fit the contract concluding nothing."""

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from accord.app.principals import Principals
from accord.app.settings import Settings
from accord.store.database import Database
from tests.adviser.test_cases_http import CASES, SALARY, add, open_case, send
from tests.conftest import FakeClock, LlmStub, serve_in_thread
from tests.intro.conftest import key
from tests.principals.conftest import Principal, make_principal

JSONBody = dict[str, Any]


@pytest.fixture
def served(
    settings: Settings, clock: FakeClock, llm_stub: tuple[LlmStub, str]
) -> Iterator[httpx.Client]:
    _, url = llm_stub
    live = settings.model_copy(update=dict(sweep_interval=3600, llm_base_url=url, llm_model="stub"))
    with serve_in_thread(live, clock) as server, server.client() as client:
        yield client


@pytest.fixture
def kim(db: Database, clock: FakeClock) -> Principal:
    return make_principal(Principals(db, clock=clock), "kim")


def a_case(client: httpx.Client, who: Principal) -> str:
    case_id: str = open_case(client, who, description="A new job")["case_id"]
    sent = send(
        client,
        who,
        case_id,
        1,
        add("t", "/topics_targets_tradeoffs/topics/-", SALARY),
        add("v", "/alternatives/user/batna/value", "USD 127,777.00"),
        add("s", "/strategy/current_strategy", "Open at the target"),
    )
    assert not sent.json()["refused"], sent.text
    return case_id


def run(client: httpx.Client, who: Principal, case_id: str) -> JSONBody:
    ran = client.post(f"{CASES}/{case_id}/skills/LLM/runs", json={}, headers=key(who.owner_key))
    assert ran.status_code == 200, ran.text
    body: JSONBody = ran.json()
    return body


def test_the_model_red_teams_and_the_person_decides(
    served: httpx.Client, kim: Principal, llm_stub: tuple[LlmStub, str]
) -> None:
    stub, _ = llm_stub
    skills = served.get("/v1/adviser/skills", headers=key(kim.agent_key)).json()["skills"]
    assert "LLM" in [s["skill_id"] for s in skills]
    case_id = a_case(served, kim)
    stub.reply = {
        "name": "skill_response",
        "arguments": {
            "conclusion": "They will stall until your deadline",
            "findings": [
                {"finding_id": "stall", "finding": "They stall", "importance": "high"}
            ],
            "patches": [
                {"patch_id": "plan", "operation": "UPDATE_WITH_EVIDENCE",
                 "path": "/strategy/current_strategy", "proposed_value": "Set your own deadline",
                 "basis": "stalling beats a plan without a date", "finding_id": "stall"},
                {"patch_id": "stray", "operation": "ADD", "path": "/strategy/current_strategy",
                 "proposed_value": "x", "basis": "y", "finding_id": "nothing"},
                {"patch_id": "batna", "operation": "UPDATE_WITH_EVIDENCE",
                 "path": "/alternatives/user/batna/value", "proposed_value": "USD 1",
                 "basis": "z", "finding_id": "stall"},
            ],
        },
    }  # fmt: skip
    asked = len(stub.requests)
    ran = run(served, kim, case_id)
    prompt = str(stub.requests[asked:])
    assert "Open at the target" in prompt and "127,777" not in prompt  # its view, no BATNA
    assert ran["held"] == [{"patch_id": "plan", "finding_id": "stall"}]
    assert [(r["patch_id"], r["code"]) for r in ran["refused"]] == [("batna", "path_not_allowed")]
    response = ran["response"]
    assert [p["patch_id"] for p in response["proposed_state_patch"]] == ["plan", "batna"]
    mark = f"llm:{response['request_id']}"
    assert all(p["basis"].startswith(f"{mark}: ") for p in response["proposed_state_patch"])
    finding = response["findings"][0]
    assert (finding["evidence_status"], finding["research_refs"]) == ("HYPOTHESIS", [mark])
    case = served.get(f"{CASES}/{case_id}", headers=key(kim.agent_key)).json()
    assert case["state"]["strategy"]["current_strategy"] == "Open at the target"
    assert case["held"] == [
        {"patch_id": "plan", "finding_id": "stall", "path": "/strategy/current_strategy"}
    ]
    accepted = served.post(
        f"{CASES}/{case_id}/findings/stall",
        json={"reconciliation": "ACCEPT"},
        headers=key(kim.owner_key),
    )
    assert accepted.status_code == 200, accepted.text
    case = served.get(f"{CASES}/{case_id}", headers=key(kim.agent_key)).json()
    assert case["state"]["strategy"]["current_strategy"] == "Set your own deadline"


@pytest.mark.parametrize(
    "reply",
    [
        {"name": "something_else", "arguments": {}},
        {"name": "skill_response", "arguments": {"conclusion": "x"}},
        {"name": "skill_response", "arguments": {"conclusion": "", "findings": [], "patches": []}},
        {
            "name": "skill_response",
            "arguments": {"conclusion": "x", "findings": "many", "patches": []},
        },
    ],
)
def test_an_answer_that_does_not_fit_concludes_nothing(
    served: httpx.Client, kim: Principal, llm_stub: tuple[LlmStub, str], reply: JSONBody
) -> None:
    stub, _ = llm_stub
    case_id = a_case(served, kim)
    stub.reply = reply
    ran = run(served, kim, case_id)
    assert ran["response"]["summary"] == {
        "conclusion": "The language model gave no answer that fits the contract",
        "confidence": "unknown",
    }
    assert ran["state_version"] == 2 and ran["material_change"] is None


def test_without_a_model_there_is_no_llm_skill(client: httpx.Client, ada: Principal) -> None:
    case_id = open_case(client, ada)["case_id"]
    missing = client.post(f"{CASES}/{case_id}/skills/LLM/runs", json={}, headers=key(ada.owner_key))
    assert (missing.status_code, missing.json()["error"]["code"]) == (404, "not_found")

"""A principal's adviser cases for the person: the case as its brief, its intake questions
answered from the page (each answer a version of the case), material changes marked seen."""

import re

import httpx

from tests.adviser.test_cases_http import SALARY, add, open_case, send
from tests.conftest import LiveServer
from tests.intro.conftest import key
from tests.web.test_principal_pages import _principal


def test_a_person_answers_the_case_questions_and_marks_changes_seen(server: LiveServer) -> None:
    kim = _principal(server, "kim-web")
    with server.client() as api:
        made = api.post(
            "/v1/adviser/cases",
            json={"title": "Salary <b>2027</b>", "description": "An offer from Northwind"},
            headers=key(kim.owner_key),
        )
        assert made.status_code == 201, made.text
        case_id = made.json()["case_id"]
    with httpx.Client(base_url=server.url, headers={"Origin": server.url}, timeout=30) as kim_web:
        kim_web.post("/login", data={"secret": kim.owner_key})
        listed = kim_web.get("/adviser/cases").text
        assert f'href="/adviser/cases/{case_id}"' in listed and "Salary &lt;b&gt;2027" in listed
        page = kim_web.get(f"/adviser/cases/{case_id}").text
        assert "Questions for you" in page and "It decides:" in page
        assert '<pre class="brief">' in page
        first = re.search(
            r'name="question_id" value="([^"]+)">\s*<input type="hidden" name="kind" value="text">',
            page,
        )
        assert first is not None, "an intake question asks for text"
        version = re.search(r"Version (\d+)", page)
        assert version is not None
        answered = kim_web.post(
            f"/adviser/cases/{case_id}/answers",
            data={"question_id": first.group(1), "kind": "text", "answer": "Stay where I am"},
        )
        assert answered.status_code == 303, answered.text
        page = kim_web.get(f"/adviser/cases/{case_id}").text
        assert f'value="{first.group(1)}"' not in page  # answered, so no longer asked
        after = re.search(r"Version (\d+)", page)
        assert after is not None and int(after.group(1)) > int(version.group(1))
        changes = re.findall(r'action="(/adviser/cases/[^"]+/seen)"', page)
        assert changes, "the answer is a material change of the case"
        for change in changes:
            assert kim_web.post(change).status_code == 303
        assert (
            "What changed since you last looked"
            not in kim_web.get(f"/adviser/cases/{case_id}").text
        )
        refused = kim_web.post(
            f"/adviser/cases/{case_id}/answers",
            data={"question_id": "Q-none", "kind": "text", "answer": "x"},
        )
        assert refused.status_code in (404, 409) and "error-summary" in refused.text


def test_a_person_reviews_an_offer_and_accepts_against_it_only_with_a_reason(
    server: LiveServer,
) -> None:
    kim = _principal(server, "kim-review")
    with server.client() as api:
        case_id = open_case(api, kim)["case_id"]
        patched = send(
            api, kim, case_id, 1,
            add("t", "/topics_targets_tradeoffs/topics/-", SALARY),
            add("b", "/alternatives/user/batna/value", "USD 125,000.00"),
        )  # fmt: skip
        assert patched.status_code == 200, patched.text
    with httpx.Client(base_url=server.url, headers={"Origin": server.url}, timeout=30) as kim_web:
        kim_web.post("/login", data={"secret": kim.owner_key})
        page = kim_web.get(f"/adviser/cases/{case_id}").text
        assert 'name="term.topic-1"' in page and "Review this offer" in page
        assert "Accept against the review" not in page  # nothing reviewed yet
        nothing = kim_web.post(f"/adviser/cases/{case_id}/deal-review", data={})
        assert nothing.status_code == 400 and "error-summary" in nothing.text
        reviewed = kim_web.post(
            f"/adviser/cases/{case_id}/deal-review",
            data={"term.topic-1": "USD 120,000.00", "text": "120k <b>flat</b>"},
        )
        assert reviewed.status_code == 303, reviewed.text
        page = kim_web.get(f"/adviser/cases/{case_id}").text
        assert "The review recommends: Reject it." in page
        assert (
            "Is it better than your best alternative?</th><td>fail</td>"
            "<td>The offer&#39;s Salary is worse than your BATNA: walking away serves you "
            "better.</td>" in page
        )
        assert (  # Salary is critical and its minimum is 130,000
            "<td>One of your critical or high topics (Salary) is worse than its minimum.</td>"
            in page
        )
        assert "<td>You made no pre-commitment before the offer.</td>" in page
        without = kim_web.post(f"/adviser/cases/{case_id}/deal-review/override", data={})
        assert without.status_code == 400 and "error-summary" in without.text
        assert 'aria-invalid="true" aria-describedby="error-reason"' in without.text
        assert '<p id="error-reason" class="field-error">' in without.text
        accepted = kim_web.post(
            f"/adviser/cases/{case_id}/deal-review/override",
            data={"reason": "A sign-on bonus makes up the gap"},
        )
        assert accepted.status_code == 303, accepted.text
        page = kim_web.get(f"/adviser/cases/{case_id}").text
        assert "You accepted against the review: <q>A sign-on bonus makes up the gap</q>" in page
    with server.client() as api:
        state = api.get(f"/v1/adviser/cases/{case_id}", headers=key(kim.owner_key)).json()
        assert state["state"]["deal_review"]["override"]["occurred"] is True


def test_a_malformed_answer_form_is_a_refusal_not_a_server_error(server: LiveServer) -> None:
    kim = _principal(server, "kim-form")
    with server.client() as api:
        case_id = open_case(api, kim)["case_id"]
    with httpx.Client(base_url=server.url, headers={"Origin": server.url}, timeout=30) as kim_web:
        kim_web.post("/login", data={"secret": kim.owner_key})
        empty = kim_web.post(f"/adviser/cases/{case_id}/answers", data={"answer": "x"})
        assert empty.status_code == 400 and "error-summary" in empty.text

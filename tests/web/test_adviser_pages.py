"""A principal's adviser cases for the person: the case as its brief, its intake questions
answered from the page (each answer a version of the case), material changes marked seen."""

import re

import httpx

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

"""Rounds, resume, questions, the log and the receipt through a real server (spec/intro-api.md,
The negotiation, Resume, Questions, Log and receipt, Intents): new context comes only from the
seat's owner (a chat message, an edit, an answer) and only after the round ended; the brief,
the questions and the answers stay with their seat; an archive settles and expires."""

from typing import Any

import httpx

from tests.http.support import assert_error
from tests.intro.conftest import JSONBody, key, patch_intent
from tests.intro.test_turns_http import agree, opened, took
from tests.principals.conftest import Principal

URL = "/api/opportunities/{}"


def negotiation_url(opportunity_id: str, tail: str = "") -> str:
    return URL.format(opportunity_id) + "/negotiation" + tail


def declined(client: httpx.Client, ada: Principal, bob: Principal) -> str:
    """An opportunity whose first round ended in the initiator's decline."""
    opportunity_id = opened(client, ada, bob)
    took(
        client, ada.agent_key, opportunity_id,
        action="decline", message="Not this week.", expected_turn_count=0,
    )  # fmt: skip
    return opportunity_id


def intent_of(client: httpx.Client, who: Principal, opportunity_id: str) -> str:
    got = client.get(URL.format(opportunity_id), headers=key(who.owner_key))
    intent_id: str = got.json()["opportunity"]["your_intent_id"]
    return intent_id


def chat(client: httpx.Client, token: str, intent_id: str, message: str) -> None:
    said = client.post(
        f"/api/intents/{intent_id}/chat", json={"message": message}, headers=key(token)
    )
    assert said.status_code == 201, said.text


def resume(client: httpx.Client, token: str, opportunity_id: str, brief: str) -> httpx.Response:
    return client.post(
        negotiation_url(opportunity_id, "/resume"), json={"brief": brief}, headers=key(token)
    )


def log(client: httpx.Client, token: str, opportunity_id: str) -> list[JSONBody]:
    got = client.get(negotiation_url(opportunity_id, "/log"), headers=key(token))
    assert got.status_code == 200, got.text
    envelopes: list[JSONBody] = got.json()["envelopes"]
    return envelopes


def test_an_owner_message_after_the_round_resumes_it_with_a_private_brief(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    opportunity_id = declined(client, ada, bob)
    assert_error(resume(client, ada.agent_key, opportunity_id, "Now"), "no_new_context")
    chat(client, ada.agent_key, intent_of(client, ada, opportunity_id), "An agent's note")
    assert_error(resume(client, ada.agent_key, opportunity_id, "Now"), "no_new_context")
    chat(client, ada.owner_key, intent_of(client, ada, opportunity_id), "I am free Sundays too")
    assert_error(resume(client, bob.agent_key, opportunity_id, "Now"), "no_new_context")
    resumed = resume(client, ada.agent_key, opportunity_id, "BRIEF-SECRET: Sundays work")
    assert resumed.status_code == 200, resumed.text
    negotiation = resumed.json()["negotiation"]
    assert (negotiation["round"], negotiation["awaiting"]) == (2, "initiator")
    assert negotiation["protocol"]["available_actions"] == ["propose", "decline"]
    started = log(client, bob.agent_key, opportunity_id)[-1]
    assert started["type"] == "round.started"
    assert set(started["payload"]) == {"round", "opened_by", "brief_commitment"}
    for token in (bob.owner_key, bob.agent_key):
        for path in ("", "/log", "/questions"):
            seen = client.get(negotiation_url(opportunity_id, path), headers=key(token)).text
            assert "BRIEF-SECRET" not in seen and "Sundays too" not in seen
    # one piece of context opens one round: the next needs more
    took(
        client, ada.agent_key, opportunity_id,
        action="decline", message="Still no.", expected_turn_count=1,
    )  # fmt: skip
    assert_error(resume(client, ada.owner_key, opportunity_id, "Again"), "no_new_context")


def test_a_resume_while_a_round_runs_is_not_allowed_and_says_what_is(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    opportunity_id = opened(client, ada, bob)
    refused = resume(client, ada.agent_key, opportunity_id, "Now")
    assert_error(refused, "move_not_allowed")
    assert refused.json()["error"]["allowed"] == ["propose", "decline"]


def test_an_edit_is_new_context_and_a_status_change_is_not(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    opportunity_id = declined(client, ada, bob)
    intent_id = intent_of(client, bob, opportunity_id)
    patch_intent(client, bob, intent_id, status="paused")
    assert_error(resume(client, bob.owner_key, opportunity_id, "Now"), "intent_inactive")
    patch_intent(client, bob, intent_id, status="active")
    assert_error(resume(client, bob.owner_key, opportunity_id, "Now"), "no_new_context")
    patch_intent(client, bob, intent_id, identity={"display_name": "Bob's Quartet"})
    resumed = resume(client, bob.owner_key, opportunity_id, "We have a name")
    assert resumed.status_code == 200, resumed.text
    assert resumed.json()["negotiation"]["awaiting"] == "responder"


def ask(client: httpx.Client, token: str, opportunity_id: str, *questions: Any) -> httpx.Response:
    return client.post(
        negotiation_url(opportunity_id, "/questions"),
        json={"questions": list(questions)},
        headers=key(token),
    )


def answer(
    client: httpx.Client, token: str, opportunity_id: str, question_id: str, text: str
) -> httpx.Response:
    return client.post(
        negotiation_url(opportunity_id, f"/questions/{question_id}/answer"),
        json={"answer": text},
        headers=key(token),
    )


FEE = {"question": "May I mention a fee?", "options": ["Yes", "No"], "why": "They may ask."}
DAYS = {"question": "Which days suit you?", "why": "The quartet rehearses weekly."}


def test_questions_park_the_seat_until_its_owner_answers(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    opportunity_id = opened(client, ada, bob)
    assert_error(ask(client, ada.owner_key, opportunity_id, FEE), "forbidden")
    assert_error(ask(client, ada.agent_key, opportunity_id), "invalid_request")
    asked = ask(client, ada.agent_key, opportunity_id, FEE, DAYS)
    assert asked.status_code == 201, asked.text
    questions = asked.json()["questions"]
    assert [(q["question"], q["status"]) for q in questions] == [
        (FEE["question"], "open"),
        (DAYS["question"], "open"),
    ]
    assert_error(ask(client, ada.agent_key, opportunity_id, DAYS), "needs_principal")
    body = {"action": "propose", "message": "Hello", "expected_turn_count": 0}
    refused = client.post(negotiation_url(opportunity_id, "/turns"), json=body,
                          headers=key(ada.agent_key))  # fmt: skip
    assert_error(refused, "needs_principal")
    view = client.get(negotiation_url(opportunity_id), headers=key(ada.agent_key)).json()
    assert view["negotiation"]["protocol"]["blocked_reason"] == "needs_principal"
    # the other seat sees only whose turn it is
    theirs = client.get(negotiation_url(opportunity_id, "/questions"), headers=key(bob.owner_key))
    assert theirs.json() == {"questions": []}
    for token in (bob.owner_key, bob.agent_key):
        seen = client.get(negotiation_url(opportunity_id), headers=key(token)).text
        assert str(FEE["question"]) not in seen and str(FEE["why"]) not in seen  # not "fee": ids
    fee_id, days_id = (q["question_id"] for q in questions)
    assert_error(answer(client, bob.owner_key, opportunity_id, fee_id, "Yes"), "not_found")
    assert_error(answer(client, ada.agent_key, opportunity_id, fee_id, "Yes"), "forbidden")
    answered = answer(client, ada.owner_key, opportunity_id, fee_id, "Yes")
    assert answered.status_code == 200, answered.text
    assert answered.json()["question"] | {"options": None} == {
        "question_id": fee_id, "question": FEE["question"], "options": None, "why": FEE["why"],
        "status": "answered", "answer": "Yes", "answered_in_chat": False,
    }  # fmt: skip
    again = answer(client, ada.owner_key, opportunity_id, fee_id, "No")
    assert_error(again, "move_not_allowed")
    # an owner's chat message answers every question still open
    chat(client, ada.owner_key, intent_of(client, ada, opportunity_id), "Saturdays only")
    listed = client.get(negotiation_url(opportunity_id, "/questions"), headers=key(ada.agent_key))
    days = listed.json()["questions"][1]
    assert (days["question_id"], days["answer"], days["answered_in_chat"]) == (
        days_id,
        "Saturdays only",
        True,
    )
    took(client, ada.agent_key, opportunity_id, **body)


def test_the_log_is_one_for_both_seats_and_the_receipt_comes_at_settlement(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    opportunity_id = opened(client, ada, bob, identity={"display_name": "Bob"})
    receipt_url = negotiation_url(opportunity_id, "/receipt")
    assert_error(client.get(receipt_url, headers=key(ada.owner_key)), "negotiation_open")
    agree(client, ada, bob, opportunity_id)
    mine, theirs = (
        log(client, ada.agent_key, opportunity_id),
        log(client, bob.owner_key, opportunity_id),
    )
    assert mine == theirs
    assert [e["type"] for e in mine] == [
        "negotiation.opened", "checks", "turn.propose", "turn.accept", "negotiation.agreed",
    ]  # fmt: skip
    for envelope in mine:
        text = str(envelope)
        assert ada.principal_id not in text and bob.principal_id not in text
    receipt = client.get(receipt_url, headers=key(bob.agent_key))
    assert receipt.status_code == 200, receipt.text
    body = receipt.json()
    assert (body["protocol"], body["state"], body["enforcement"]) == (
        "intro",
        "agreed",
        "bilateral",
    )
    assert body["final_terms"] == {
        "turn_index": 0, "proposal": "Saturday rehearsals?", "proposed_by": "initiator",
    }  # fmt: skip
    assert body["artifact"] is not None
    assert client.get(receipt_url, headers=key(ada.owner_key)).json() == body


def test_negotiations_are_listed_by_state(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    settled = declined(client, ada, bob)
    patch_intent(client, ada, intent_of(client, ada, settled), status="archived")
    talking = opened(client, ada, bob)

    def listed(**query: str) -> list[tuple[str, Any, Any]]:
        got = client.get("/api/negotiations", params=query, headers=key(bob.agent_key))
        assert got.status_code == 200, got.text
        return [
            (n["opportunity_id"], n["outcome"], n["awaiting"]) for n in got.json()["negotiations"]
        ]

    assert listed() == [(talking, None, "initiator"), (settled, "closed", None)]
    assert listed(state="open") == [(talking, None, "initiator")]
    assert listed(state="settled") == [(settled, "closed", None)]
    refused = client.get("/api/negotiations", params={"state": "done"}, headers=key(bob.agent_key))
    assert_error(refused, "invalid_request")


def test_archiving_an_intent_closes_its_negotiations_and_expires_its_opportunities(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    opportunity_id = opened(client, ada, bob)
    patch_intent(client, bob, intent_of(client, bob, opportunity_id), status="archived")
    got = client.get(URL.format(opportunity_id), headers=key(ada.owner_key)).json()
    assert got["opportunity"]["status"] == "expired"
    assert got["negotiation"]["outcome"] == "closed"
    assert log(client, ada.owner_key, opportunity_id)[-1]["payload"] == {"reason": "archived"}
    receipt = client.get(negotiation_url(opportunity_id, "/receipt"), headers=key(ada.owner_key))
    assert (receipt.json()["state"], receipt.json()["artifact"]) == ("closed", None)


def test_an_edit_checks_the_pair_again(
    client: httpx.Client, ada: Principal, bob: Principal
) -> None:
    opportunity_id = opened(client, ada, bob)
    first = [e for e in log(client, ada.owner_key, opportunity_id) if e["type"] == "checks"]
    assert first[-1]["payload"]["mutual"] is True
    intent_id = intent_of(client, bob, opportunity_id)
    patch_intent(client, bob, intent_id, statement="Selling a used bicycle in Porto")
    checks = [e for e in log(client, ada.owner_key, opportunity_id) if e["type"] == "checks"]
    assert [c["payload"] for c in checks] == [
        {"mutual": True, "constraint_fit": True},
        {"mutual": False, "constraint_fit": True},
    ]
    patch_intent(client, bob, intent_id, identity={"display_name": "Bob"})  # nothing to check
    again = [e for e in log(client, ada.owner_key, opportunity_id) if e["type"] == "checks"]
    assert again == checks
    # a layer once open stays open
    view = client.get(negotiation_url(opportunity_id), headers=key(ada.agent_key)).json()
    assert view["counterparty"]["layers"]["statement"] == "open"
    assert view["counterparty"]["statement"] == "Selling a used bicycle in Porto"

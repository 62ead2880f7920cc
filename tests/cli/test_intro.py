"""`accord intro` through its real entry point against a live server: each command's answer for
a person and as the API's exact JSON, and the server's refusals said once, on stderr, exit 1
(a usage mistake: exit 2)."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.app.principals import Principals
from accord.cli.main import app
from accord.store.database import Database
from tests.cli.intro_support import (
    CELLIST,
    QUARTET,
    Someone,
    intent,
    ok,
    opened,
    refused,
    said,
)
from tests.conftest import FakeClock, LiveServer, free_port
from tests.principals.conftest import make_principal


@pytest.fixture
def principals(db: Database, clock: FakeClock) -> Principals:
    return Principals(db, clock=clock)


@pytest.fixture
def ada(runner: CliRunner, server: LiveServer, principals: Principals) -> Someone:
    return Someone(runner, server, make_principal(principals, "ada"))


@pytest.fixture
def bea(runner: CliRunner, server: LiveServer, principals: Principals) -> Someone:
    return Someone(runner, server, make_principal(principals, "bea"))


@pytest.fixture
def cy(runner: CliRunner, server: LiveServer, principals: Principals) -> Someone:
    return Someone(runner, server, make_principal(principals, "cy"))


# -- who you are ---------------------------------------------------------------------------


def test_me_says_who_the_key_is(ada: Someone) -> None:
    body = ok(ada.agent("me", "--json"))
    assert (body["name"], body["key"], body["agent_id"]) == ("ada", "agent", "default")
    assert said(ada.owner("me")).splitlines() == [
        f"ada ({ada.principal.principal_id}), with the owner key",
        "selected agent: default",
    ]


def test_a_key_that_opens_nothing_is_unauthenticated(ada: Someone) -> None:
    refused(ada.run("acc_ok_nothing", "me"), "unauthenticated")
    failed = ada.run("acc_ok_nothing", "me", "--json")
    assert failed.exit_code == 1 and failed.stdout == ""
    assert json.loads(failed.stderr)["error"]["code"] == "unauthenticated"


def test_the_owner_selects_the_agent_and_an_agent_may_not(ada: Someone) -> None:
    assert ok(ada.owner("agent", "accord", "--json"))["selected_agent_id"] == "accord"
    assert said(ada.owner("agent", "default")) == "selected agent: default\n"
    refused(ada.agent("agent", "accord"), "forbidden")
    said_ = refused(ada.owner("agent", "nobody"), "invalid_request")
    assert "agent_id" in said_


# -- intents -------------------------------------------------------------------------------


def test_an_intent_with_constraints_and_identity(ada: Someone) -> None:
    body = ok(ada.owner(
        "intents", "create", CELLIST, "--visibility", "public",
        "-c", "city eq Lyon", "-c", "fee_eur between [50, 120]",
        "-c", '{"key": "days", "op": "in", "value": ["sat", "sun"]}',
        "--identity", "display_name=Ada", "--identity", "contact=ada@example.org", "--json",
    ))  # fmt: skip
    made = body["intent"]
    assert made["constraints"] == [
        {"key": "city", "op": "eq", "value": "Lyon"},
        {"key": "fee_eur", "op": "between", "value": [50, 120]},
        {"key": "days", "op": "in", "value": ["sat", "sun"]},
    ]
    assert made["identity"] == {"display_name": "Ada", "contact": "ada@example.org"}
    shown = said(ada.agent("intents", "show", made["intent_id"])).splitlines()
    assert shown == [
        f"intent {made['intent_id']}  active  public",
        f"  {CELLIST}",
        '  constraints: city eq Lyon; fee_eur between [50, 120]; days in ["sat", "sun"]',
        "  identity: display_name=Ada, contact=ada@example.org",
    ]
    listed = ok(ada.agent("intents", "list", "--json"))
    assert [i["intent_id"] for i in listed["intents"]] == [made["intent_id"]]
    assert made["intent_id"] in said(ada.agent("intents", "list"))


@pytest.mark.parametrize(
    ("options", "code", "detail"),
    [
        (["-c", "city near Lyon"], "invalid_request", "constraints"),
        (["--visibility", "secret"], "invalid_request", "visibility"),
    ],
)
def test_the_server_refuses_an_intent_and_names_the_field(
    ada: Someone, options: list[str], code: str, detail: str
) -> None:
    args = ["intents", "create", CELLIST, "--visibility", "public", *options]
    assert detail in refused(ada.owner(*args), code)


def test_an_agent_key_may_not_post_an_intent(ada: Someone) -> None:
    refused(ada.agent("intents", "create", CELLIST, "--visibility", "public"), "forbidden")


@pytest.mark.parametrize(
    "options",
    [["-c", "city Lyon"], ["-c", "[1, 2]"], ["--identity", "name=Ada"], ["--identity", "[1]"]],
)
def test_what_cannot_be_read_is_a_usage_error(ada: Someone, options: list[str]) -> None:
    result = ada.owner("intents", "create", CELLIST, "--visibility", "public", *options)
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == "" and "Traceback" not in result.stderr


def test_another_principals_intent_is_not_found(ada: Someone, bea: Someone) -> None:
    theirs = intent(bea, QUARTET)
    refused(ada.agent("intents", "show", theirs), "not_found")
    refused(ada.owner("intents", "pause", theirs), "not_found")


def test_edit_sets_the_members_named_and_the_status_commands(ada: Someone) -> None:
    mine = intent(ada, CELLIST, "-c", "city eq Lyon")
    edited = ok(ada.owner("intents", "edit", mine, "--statement", "A cellist in Lyon",
                          "-c", "fee_eur lte 120", "--json"))["intent"]  # fmt: skip
    assert edited["statement"] == "A cellist in Lyon"
    assert edited["constraints"] == [{"key": "fee_eur", "op": "lte", "value": 120}]
    cleared = ok(ada.owner("intents", "edit", mine, "--no-constraints", "--json"))["intent"]
    assert cleared["constraints"] == []
    assert ok(ada.owner("intents", "pause", mine, "--json"))["intent"]["status"] == "paused"
    assert "  active  " in said(ada.owner("intents", "activate", mine))
    assert ok(ada.owner("intents", "archive", mine, "--json"))["intent"]["status"] == "archived"
    refused(ada.owner("intents", "edit", mine, "--statement", "again"), "intent_inactive")
    refused(ada.owner("intents", "activate", mine), "intent_inactive")
    nothing = ada.owner("intents", "edit", mine)
    assert nothing.exit_code == 2 and nothing.stdout == ""


# -- chat and networks ---------------------------------------------------------------------


def test_the_chat_between_a_principal_and_its_agent(ada: Someone) -> None:
    mine = intent(ada, CELLIST)
    asked = ok(ada.agent("chat", "write", mine, "Rehearsal space?", "--json"))["message"]
    assert (asked["author"], asked["agent_id"]) == ("agent", "default")
    line = said(ada.owner("chat", "write", mine, "At my place."))
    assert line.endswith("  owner: At my place.\n")
    messages = ok(ada.agent("chat", "read", mine, "--json"))["messages"]
    assert [m["author"] for m in messages] == ["agent", "owner"]
    after = ok(ada.agent("chat", "read", mine, "--after", asked["message_id"], "--json"))
    assert [m["message"] for m in after["messages"]] == ["At my place."]
    assert (
        said(ada.agent("chat", "read", mine))
        .splitlines()[0]
        .endswith("  agent default: Rehearsal space?")
    )
    ok(ada.owner("intents", "archive", mine, "--json"))
    refused(ada.owner("chat", "write", mine, "still there?"), "intent_inactive")


def test_networks_made_listed_and_joined(ada: Someone, bea: Someone) -> None:
    made = ok(ada.owner("networks", "create", "Lyon strings", "--json"))
    assert set(made) == {"network_id", "name", "invite_code"}
    joined = ok(bea.owner("networks", "join", made["invite_code"], "--json"))
    assert joined == {"network_id": made["network_id"], "name": "Lyon strings"}
    assert ok(bea.agent("networks", "list", "--json")) == {"networks": [joined]}
    assert made["network_id"] in said(bea.agent("networks", "list"))
    refused(bea.owner("networks", "join", "not-a-code"), "not_found")
    refused(bea.agent("networks", "create", "Mine"), "forbidden")


def test_a_network_intent_names_its_networks(ada: Someone) -> None:
    network = ok(ada.owner("networks", "create", "Lyon strings", "--json"))["network_id"]
    made = ok(ada.owner("intents", "create", CELLIST, "--visibility", "network",
                        "--network", network, "--json"))["intent"]  # fmt: skip
    assert made["networks"] == [network]
    refused(ada.owner("intents", "create", CELLIST, "--visibility", "network"), "invalid_request")


# -- discovery and opening -----------------------------------------------------------------


def test_discover_then_open(ada: Someone, bea: Someone) -> None:
    mine, theirs = intent(ada, CELLIST), intent(bea, QUARTET)
    (found,) = ok(ada.agent("discover", mine, "--json"))["candidates"]
    assert (found["intent_id"], found["mutual"], found["statement"]) == (theirs, True, QUARTET)
    assert theirs in said(ada.agent("discover", mine, "--query", "quartet", "--limit", "5"))
    first = ok(ada.agent("open", mine, theirs, "--context", "Ask about space", "--json"))
    (opportunity,) = first["opportunities"]
    assert (opportunity["created"], opportunity["your_seat"]) == (True, "initiator")
    assert opportunity["context"] == "Ask about space"
    again = said(ada.agent("open", mine, theirs))
    assert again.startswith(opportunity["opportunity_id"]) and again.endswith("(opened before)\n")


def test_discover_and_open_refusals(ada: Someone, bea: Someone) -> None:
    notes = ok(ada.owner("intents", "create", CELLIST, "--visibility", "private", "--json"))
    private = notes["intent"]["intent_id"]
    assert "reason: private_intent" in refused(ada.agent("discover", private), "invalid_request")
    mine = intent(ada, CELLIST)
    refused(ada.agent("open", mine, "int_unknown"), "not_found")
    refused(ada.agent("discover", mine, "--limit", "99"), "invalid_request")


# -- opportunities, turns, decisions -------------------------------------------------------


def test_opportunities_listed_and_shown(ada: Someone, bea: Someone) -> None:
    mine, _, opportunity_id = opened(ada, bea)
    listed = ok(bea.agent("opportunities", "list", "--json"))["opportunities"]
    assert [(o["opportunity_id"], o["your_seat"]) for o in listed] == [
        (opportunity_id, "responder")
    ]
    assert ok(ada.agent("opportunities", "list", "--status", "accepted", "--json")) == {
        "opportunities": []
    }
    assert ok(ada.agent("opportunities", "list", "--intent", mine, "--json"))["opportunities"]
    shown = ok(ada.agent("opportunities", "show", opportunity_id, "--json"))
    assert set(shown) == {"opportunity", "negotiation", "counterparty"}
    text = said(ada.agent("opportunities", "show", opportunity_id)).splitlines()
    assert text[0] == f"opportunity {opportunity_id}  negotiating  you are the initiator " \
        f"(intent {mine})"  # fmt: skip
    assert "your turn: propose, decline" in text
    assert f"  statement: {QUARTET}" in text
    refused(ada.agent("opportunities", "show", "opp_unknown"), "not_found")


def test_turns_read_the_turn_count_and_say_whose_turn(ada: Someone, bea: Someone) -> None:
    _, _, opportunity_id = opened(ada, bea)
    shown = ok(bea.agent("negotiation", "show", opportunity_id, "--json"))
    assert set(shown) == {"negotiation", "counterparty"}
    assert "waiting for the initiator" in said(bea.agent("negotiation", "show", opportunity_id))
    first = ok(ada.agent("negotiation", "turn", opportunity_id, "propose", "Saturdays?",
                         "--message-id", "m-1", "--json"))  # fmt: skip
    assert (first["negotiation"]["turn_count"], first["negotiation"]["awaiting"]) == (
        1,
        "responder",
    )
    again = ok(ada.agent("negotiation", "turn", opportunity_id, "propose", "Saturdays?",
                         "--message-id", "m-1", "--expected-turn-count", "0",
                         "--json"))  # fmt: skip
    assert again == first  # the same message_id and body: the first answer, nothing appended
    lines = said(bea.agent("negotiation", "turn", opportunity_id, "counter", "Sundays?"))
    assert "#1 round 1 responder counter: Sundays?" in lines
    assert "waiting for the initiator" in lines


@pytest.mark.parametrize(
    ("who", "args", "code"),
    [
        ("owner", ["propose", "Saturdays?"], "forbidden"),
        ("agent", ["propose", "Saturdays?", "--expected-turn-count", "3"], "raced"),
        ("agent", ["accept", "Yes"], "move_not_allowed"),
        ("responder", ["propose", "Saturdays?"], "not_your_turn"),
    ],
)
def test_turn_refusals(ada: Someone, bea: Someone, who: str, args: list[str], code: str) -> None:
    _, _, opportunity_id = opened(ada, bea)
    run = {"owner": ada.owner, "agent": ada.agent, "responder": bea.agent}[who]
    refused(run("negotiation", "turn", opportunity_id, *args), code)


def test_decisions_by_the_owner(ada: Someone, bea: Someone) -> None:
    _, _, opportunity_id = opened(ada, bea)
    refused(ada.agent("decide", opportunity_id, "accept"), "forbidden")
    wrong = ada.owner("decide", opportunity_id, "maybe")
    assert wrong.exit_code == 2 and wrong.stdout == ""
    mine = ok(ada.owner("decide", opportunity_id, "accept", "--json"))["opportunity"]
    assert (mine["status"], mine["decisions"]["yours"]) == ("pending", "accepted")
    assert said(bea.owner("decide", opportunity_id, "withdraw")).splitlines() == [
        f"opportunity {opportunity_id}  expired",
        "decisions: yours expired, theirs accepted",
    ]
    refused(ada.owner("decide", opportunity_id, "reject"), "opportunity_final")


def test_an_unreachable_server_is_said_once(ada: Someone) -> None:
    result = ada.runner.invoke(
        app, ["intro", "me", "--key", "k", "--server", f"http://127.0.0.1:{free_port()}"]
    )
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith("error: cannot reach the Accord server at http://127.0.0.1:")


# -- rounds, questions, log, receipt, the list ---------------------------------------------


def declined(ada: Someone, bea: Someone) -> tuple[str, str]:
    """Ada's intent and an opportunity whose first round ended in her agent's decline."""
    mine, _, opportunity_id = opened(ada, bea)
    said(ada.agent("negotiation", "turn", opportunity_id, "decline", "Not this week."))
    return mine, opportunity_id


def test_resume_after_new_context(ada: Someone, bea: Someone) -> None:
    mine, opportunity_id = declined(ada, bea)
    shown = said(ada.agent("negotiation", "show", opportunity_id))
    assert "the round is over: resume it with new context (negotiation resume)" in shown
    refused(ada.agent("negotiation", "resume", opportunity_id, "Nothing new"), "no_new_context")
    said(ada.owner("chat", "write", mine, "Next week works for me."))
    resumed = ok(ada.agent("negotiation", "resume", opportunity_id, "Next week", "--json"))
    assert (resumed["negotiation"]["round"], resumed["negotiation"]["awaiting"]) == (
        2,
        "initiator",
    )
    assert "your turn: propose, " in said(ada.agent("negotiation", "show", opportunity_id))
    refused(bea.agent("negotiation", "resume", opportunity_id, "Me too"), "move_not_allowed")


def test_questions_asked_listed_and_answered(ada: Someone, bea: Someone) -> None:
    _, _, opportunity_id = opened(ada, bea)
    asked = ok(ada.agent("questions", "ask", opportunity_id, "Which day?", "--why",
                         "to propose one", "--option", "Saturday", "--option", "Sunday",
                         "--json"))["questions"]  # fmt: skip
    (question,) = asked
    assert (question["status"], question["options"]) == ("open", ["Saturday", "Sunday"])
    listed = said(ada.owner("questions", "list", opportunity_id))
    assert listed == (
        f"{question['question_id']}  open  Which day? [Saturday | Sunday] (why: to propose one)\n"
    )
    waiting = said(ada.agent("negotiation", "show", opportunity_id))
    assert "waiting for the owner to answer the agent's questions" in waiting
    refused(ada.agent("questions", "ask", opportunity_id, "More?", "--why", "x"),
            "needs_principal")  # fmt: skip
    refused(ada.agent("questions", "answer", opportunity_id, question["question_id"], "Sunday"),
            "forbidden")  # fmt: skip
    answered = said(
        ada.owner("questions", "answer", opportunity_id, question["question_id"], "Saturday")
    )
    assert answered.endswith("\n  answer: Saturday\n")
    refused(
        ada.owner("questions", "answer", opportunity_id, question["question_id"], "Sunday"),
        "move_not_allowed",
    )
    assert ok(bea.agent("questions", "list", opportunity_id, "--json")) == {"questions": []}
    missing = ada.agent("questions", "ask", opportunity_id, "Which day?")
    assert missing.exit_code == 2 and missing.stdout == ""


def test_the_log_the_receipt_and_accord_verify(
    ada: Someone, bea: Someone, cy: Someone, tmp_path: Path
) -> None:
    _, _, opportunity_id = opened(ada, bea)
    refused(ada.agent("negotiation", "receipt", opportunity_id), "negotiation_open")
    said(ada.agent("negotiation", "turn", opportunity_id, "propose", "Saturdays?"))
    said(bea.agent("negotiation", "turn", opportunity_id, "accept", "Yes"))
    envelopes = ok(bea.agent("negotiation", "log", opportunity_id, "--json"))["envelopes"]
    assert [e["type"] for e in envelopes][-3:] == ["turn.propose", "turn.accept",
                                                   "negotiation.agreed"]  # fmt: skip
    assert "turn.propose" in said(ada.agent("negotiation", "log", opportunity_id))
    refused(cy.agent("negotiation", "log", opportunity_id), "not_a_seat")

    target = tmp_path / "intro-receipt.json"
    written = ada.agent("negotiation", "receipt", opportunity_id, "-o", str(target))
    assert written.exit_code == 0, written.stderr
    assert "agreed: Saturdays? (proposed by the initiator)\nsignature: valid" in written.stdout
    assert f"accord verify {target} --log " in written.stderr
    receipt = json.loads(target.read_text())
    assert (receipt["protocol"], receipt["final_terms"]["proposal"]) == ("intro", "Saturdays?")
    log_file = tmp_path / "intro-receipt.log.json"
    assert json.loads(log_file.read_text())["envelopes"] == envelopes
    checked = ada.runner.invoke(app, [
        "verify", str(target), "--log", str(log_file),
        "--trust-url", f"{ada.server.url}/.well-known/jwks.json", "--json",
    ])  # fmt: skip
    assert checked.exit_code == 0, checked.stdout
    assert json.loads(checked.stdout)["status"] == "valid"


def test_negotiations_listed(ada: Someone, bea: Someone) -> None:
    mine, _, opportunity_id = opened(ada, bea)
    (listed,) = ok(bea.agent("negotiations", "list", "--json"))["negotiations"]
    assert (listed["opportunity_id"], listed["outcome"], listed["awaiting"]) == (
        opportunity_id,
        None,
        "initiator",
    )
    assert ok(ada.agent("negotiations", "list", "--state", "settled", "--json")) == {
        "negotiations": []
    }
    assert opportunity_id in said(ada.agent("negotiations", "list", "--intent", mine))
    refused(ada.agent("negotiations", "list", "--state", "maybe"), "invalid_request")

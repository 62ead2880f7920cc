"""`accord adviser` through its real entry point against a live server: a case from `new` to
`close` as a person reads it, its questions and answers, its brief, a deal review and its
override; `--json` equal to the API's body, the server's refusals said once on stderr (exit 1),
and a file or an option that cannot be read said as a usage error (exit 2)."""

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from typer.testing import CliRunner, Result

from accord.app.principals import Principals
from accord.cli.adviser_review import answer_value
from accord.cli.main import app
from accord.core.times import format_time
from accord.store.database import Database
from tests.cli.intro_support import ok, refused, said
from tests.conftest import START, FakeClock, LiveServer, free_port
from tests.principals.conftest import Principal, make_principal

TITLE = "Buy a used van"
TOPIC = {
    "topic_id": "price",
    "topic": "Price",
    "priority": "critical",
    "best_target": {"value": "EUR 15,000"},
    "minimum_acceptable": {"value": "EUR 19,000"},
}
BATNA = "Rent a van for EUR 600 a month"
PATCHES: list[dict[str, Any]] = [
    {
        "patch_id": "p1",
        "operation": "ADD",
        "path": "/topics_targets_tradeoffs/topics/-",
        "proposed_value": TOPIC,
    },
    {
        "patch_id": "p2",
        "operation": "ADD",
        "path": "/alternatives/user/batna/description",
        "proposed_value": BATNA,
    },
    {"patch_id": "p3", "operation": "ADD", "path": "/objective/colour", "proposed_value": "red"},
]
RESULT_MEMBERS = {"applied", "refused", "held", "warnings", "state_version", "material_change"}
DESCRIPTION = "A van for the shop, this month"


@dataclass
class Someone:
    """A principal at a terminal: `owner(…)` runs `accord adviser …` with the owner key,
    `agent(…)` with its agent's; `api(…)` is the same principal over plain HTTP."""

    runner: CliRunner
    server: LiveServer
    principal: Principal
    clients: list[httpx.Client]

    def run(self, key: str, *args: str, input: str | None = None) -> Result:
        full = ["adviser", *args, "--key", key, "--server", self.server.url]
        return self.runner.invoke(app, full, input=input)

    def owner(self, *args: str, input: str | None = None) -> Result:
        return self.run(self.principal.owner_key, *args, input=input)

    def agent(self, *args: str) -> Result:
        return self.run(self.principal.agent_key, *args)

    def api(self, path: str) -> Any:
        return self.api_response(path).json()

    def api_response(self, path: str) -> httpx.Response:
        client = self.server.client(self.principal.agent_key)
        self.clients.append(client)
        response = client.get(f"/v1/adviser/cases{path}")
        assert response.status_code == 200, response.text
        return response


@pytest.fixture
def clients() -> Iterator[list[httpx.Client]]:
    opened: list[httpx.Client] = []
    yield opened
    for client in opened:
        client.close()


@pytest.fixture
def principals(db: Database, clock: FakeClock) -> Principals:
    return Principals(db, clock=clock)


@pytest.fixture
def ada(
    runner: CliRunner, server: LiveServer, principals: Principals, clients: list[httpx.Client]
) -> Someone:
    return Someone(runner, server, make_principal(principals, "ada"), clients)


@pytest.fixture
def bea(
    runner: CliRunner, server: LiveServer, principals: Principals, clients: list[httpx.Client]
) -> Someone:
    return Someone(runner, server, make_principal(principals, "bea"), clients)


def new_case(someone: Someone, *options: str) -> str:
    case_id: str = ok(someone.owner("new", TITLE, *options, "--json"))["case_id"]
    return case_id


def patch_file(tmp_path: Path, value: Any, name: str = "patches.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(value), encoding="utf-8")
    return str(path)


def usage_error(result: Result) -> str:
    """A usage mistake: exit 2, nothing on stdout; the reason, out of the box it is drawn in
    on stderr, as one line."""
    assert result.exit_code == 2, (result.stdout, result.stderr)
    assert result.stdout == "" and "Traceback" not in result.stderr
    return " ".join(line.strip("│╭╮╰╯─ ") for line in result.stderr.splitlines())


# -- a case, from new to close -------------------------------------------------------------------


def test_a_case_from_new_to_close(ada: Someone, tmp_path: Path) -> None:
    made = said(ada.owner("new", TITLE, "--description", "A van for the shop, this month"))
    first = made.splitlines()[0]
    assert first.startswith("case case_") and first.endswith(f"  {TITLE}")
    case_id = first.split()[1]
    assert "version 1  NEW  active  depth STANDARD" in made
    assert "objective: A van for the shop, this month" in made
    assert "BATNA: not set" in made and "topics: none yet" in made
    assert "  Q-batna (blocking)  If you reach no agreement, what will you do instead?" in made

    patched = ada.owner("patch", case_id, "--file", patch_file(tmp_path, PATCHES))
    assert patched.exit_code == 1, (patched.stdout, patched.stderr)  # p3 was refused
    lines = patched.stdout.splitlines()
    assert lines[:4] == [
        "applied  p1  /topics_targets_tradeoffs/topics/price",
        "applied  p2  /alternatives/user/batna/description",
        "refused  p3  unknown_path: /objective/colour is not in the state's schema",
        "version 2",
    ]
    assert lines[4].startswith("material change chg_") and "version 2" in lines[4]
    change_id = lines[4].split()[2]
    assert "/topics_targets_tradeoffs/topics/price/best_target/value" in lines[4]
    assert f"accord adviser seen {case_id} {change_id}" in patched.stderr

    shown = said(ada.agent("show", case_id))
    assert "version 2  NEW" in shown
    assert f"BATNA: {BATNA} (UNKNOWN)" in shown
    topics = next(line for line in shown.splitlines() if line.lstrip("│ ").startswith("price"))
    assert all(word in topics for word in ("Price", "critical", "EUR 15,000", "EUR 19,000"))
    assert "unseen material changes:" in shown and f"  {change_id}  version 2" in shown
    assert "held patches: none" in shown
    assert "  Q-counterpart  Who are you negotiating with" in shown
    assert "Q-batna" not in shown  # the BATNA is set: its question is no longer open

    history = said(ada.agent("history", case_id)).splitlines()
    assert history[0].startswith("event-1  ") and "case_created  Case opened: " in history[0]
    assert history[2].startswith("event-2  ") and "  material_change  " in history[2]
    assert history[3] == (
        "  changed: /topics_targets_tradeoffs/topics/price, /alternatives/user/batna/description"
    )

    assert said(ada.owner("seen", case_id, change_id)) == f"material change {change_id} seen\n"
    assert "unseen material changes: none" in said(ada.agent("show", case_id))
    listed = ok(ada.agent("list", "--json"))["cases"]
    assert [(c["case_id"], c["unseen_material_changes"]) for c in listed] == [(case_id, 0)]

    closed = said(ada.owner("close", case_id, "--outcome", "no_deal", "--reason", "Bought one"))
    assert closed == f"case {case_id} closed without a deal at version 3\n"
    assert "version 3  NO_DEAL  no_deal" in said(ada.agent("show", case_id))
    last = said(ada.agent("history", case_id)).splitlines()[-3:]
    assert last[0].startswith("event-3  ") and "  closed  " in last[0]
    assert last[1:] == ["  changed: /meta/status, /meta/lifecycle_stage", "  why: Bought one"]
    again = refused(
        ada.owner("patch", case_id, "--file", patch_file(tmp_path, PATCHES)), "case_closed"
    )
    assert "open a new case" in again

    was = said(ada.agent("show", case_id, "--version", "1"))
    assert "version 1  NEW  active" in was and "topics: none yet" in was
    assert "unseen material changes" not in was  # a version is its state only


def test_list_shows_each_case(ada: Someone) -> None:
    assert ada.agent("list").stdout == ""
    case_id = new_case(ada, "--depth", "LIGHT")
    assert said(ada.agent("list")) == (
        f"{case_id}  version 1  NEW  active  0 unseen  updated {format_time(START)}  {TITLE}\n"
    )
    assert ok(ada.agent("show", case_id, "--json"))["state"]["meta"]["analysis_depth"] == "LIGHT"


# -- --json is the API's body --------------------------------------------------------------------


def test_json_is_exactly_the_apis_body(ada: Someone, tmp_path: Path) -> None:
    made = ok(ada.owner("new", TITLE, "--json"))
    case_id = made["case_id"]
    assert made == ada.api(f"/{case_id}")
    assert ok(ada.agent("list", "--json")) == ada.api("")

    result = ok_or_refused(ada.owner("patch", case_id, "--file", patch_file(tmp_path, PATCHES),
                                     "--json"))  # fmt: skip
    assert set(result) == RESULT_MEMBERS
    assert [r["code"] for r in result["refused"]] == ["unknown_path"]
    assert result["state_version"] == ada.api(f"/{case_id}")["state_version"] == 2

    assert ok(ada.agent("show", case_id, "--json")) == ada.api(f"/{case_id}")
    version = ok(ada.agent("show", case_id, "--version", "1", "--json"))
    assert version == ada.api(f"/{case_id}/versions/1")
    assert set(version) == {"case_id", "state_version", "state"}
    assert ok(ada.agent("history", case_id, "--json")) == ada.api(f"/{case_id}/history")

    change_id = result["material_change"]["change_id"]
    assert ok(ada.owner("seen", case_id, change_id, "--json")) == {
        "change_id": change_id,
        "seen": True,
    }
    closed = ok(ada.owner("close", case_id, "--outcome", "closed", "--reason", "Signed",
                          "--json"))  # fmt: skip
    assert set(closed) == RESULT_MEMBERS and closed["state_version"] == 3


def ok_or_refused(result: Result) -> Any:
    """The Result of a patch set with a refused patch: exit 1, the API's JSON on stdout."""
    assert result.exit_code == 1, (result.stdout, result.stderr)
    assert result.stderr == ""
    return json.loads(result.stdout)


def test_a_refusal_under_json_is_the_error_body_on_stderr(ada: Someone) -> None:
    failed = ada.agent("new", TITLE, "--json")
    assert failed.exit_code == 1 and failed.stdout == ""
    assert json.loads(failed.stderr)["error"]["code"] == "forbidden"


# -- patches -------------------------------------------------------------------------------------


def test_a_patch_set_from_stdin_based_on_the_files_version(ada: Someone) -> None:
    case_id = new_case(ada)
    body = {"based_on_state_version": 1, "patches": PATCHES[:1]}
    first = ada.owner("patch", case_id, "--file", "-", "--json", input=json.dumps(body))
    assert ok(first)["applied"] == [
        {"patch_id": "p1", "path": "/topics_targets_tradeoffs/topics/price"}
    ]
    stale = [
        {
            "patch_id": "p4",
            "operation": "UPDATE_WITH_EVIDENCE",
            "path": "/topics_targets_tradeoffs/topics/price/best_target/value",
            "proposed_value": "EUR 14,000",
            "basis": "A dealer's price list",
        }
    ]
    body = {"based_on_state_version": 1, "patches": stale}
    again = ada.owner("patch", case_id, "--file", "-", input=json.dumps(body))
    assert again.exit_code == 1
    assert again.stdout.splitlines()[0].startswith("refused  p4  stale_state_version: ")
    assert "no new version: the case stays at version 2" in again.stdout
    latest = ada.owner("patch", case_id, "--file", "-", input=json.dumps(stale))  # reads v2
    assert said(latest).splitlines()[0] == (
        "applied  p4  /topics_targets_tradeoffs/topics/price/best_target/value"
    )


def test_a_version_above_the_current_one_is_refused_with_its_field(
    ada: Someone, tmp_path: Path
) -> None:
    case_id = new_case(ada)
    file = patch_file(tmp_path, PATCHES[:1])
    message = refused(ada.owner("patch", case_id, "--file", file, "--based-on", "9"),
                      "invalid_request")  # fmt: skip
    assert "  based_on_state_version: at most the current version, 1" in message


def test_a_patch_the_server_cannot_read_is_refused_with_its_fields(
    ada: Someone, tmp_path: Path
) -> None:
    case_id = new_case(ada)
    file = patch_file(tmp_path, [{**PATCHES[0], "operation": "DELETE"}])
    message = refused(ada.owner("patch", case_id, "--file", file), "invalid_request")
    assert "\n  patches.0.operation: " in message
    assert ok(ada.agent("show", case_id, "--json"))["state_version"] == 1


def test_a_missing_file_is_a_usage_error(
    ada: Someone, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    stderr = usage_error(ada.owner("patch", "case_x", "--file", "nowhere.json"))
    assert "Invalid value for --file: file 'nowhere.json' does not exist" in stderr
    stderr = usage_error(ada.owner("patch", "case_x", "--file", "."))
    assert "cannot read '.'" in stderr


@pytest.mark.parametrize(
    ("content", "says"),
    [
        pytest.param('[{"patch_id": "p1",', "is not JSON: malformed JSON", id="truncated"),
        pytest.param('{"patches": [], "patches": []}', "duplicate key", id="duplicate_key"),
        pytest.param('[{"proposed_value": NaN}]', "NaN is not a JSON number", id="nan"),
        pytest.param('"ADD"', "must hold a JSON list of patches", id="a_string"),
        pytest.param("[]", "holds no patches", id="no_patch"),
        pytest.param('{"patches": []}', "holds no patches", id="an_empty_set"),
        pytest.param('{"based_on_state_version": 1}', "must hold a JSON list", id="no_patches"),
        pytest.param('{"patches": [{}], "case": 1}', "other than", id="unknown_member"),
        pytest.param(
            '{"patches": {}}', "patches that are not a JSON list", id="patches_not_a_list"
        ),
    ],
)
def test_a_patch_file_that_cannot_be_read_is_a_usage_error(
    ada: Someone, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str, says: str
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("bad.json").write_text(content, encoding="utf-8")
    stderr = usage_error(ada.owner("patch", "case_x", "--file", "bad.json"))
    assert "Invalid value for --file: bad.json " in stderr and says in stderr


def test_malformed_json_on_stdin_is_a_usage_error(ada: Someone) -> None:
    stderr = usage_error(ada.owner("patch", "case_x", "--file", "-", input="{not json"))
    assert "- is not JSON" in stderr


# -- questions and answers -----------------------------------------------------------------------


def test_the_open_questions_and_an_answer(ada: Someone) -> None:
    case_id = new_case(ada, "--description", DESCRIPTION)
    asked = ada.agent("questions", case_id)
    assert said(asked).splitlines() == [
        "Q-batna  text  blocking  If you reach no agreement, what will you do instead?",
        "Q-counterpart  text  Who are you negotiating with (the organisation)?",
        "Q-deadline  date  By when must this be settled (YYYY-MM-DD)?",
    ]
    assert f"accord adviser answer {case_id} QUESTION_ID ANSWER" in asked.stderr
    assert ok(ada.agent("questions", case_id, "--json")) == ada.api(f"/{case_id}")["questions"]

    answered = said(ada.owner("answer", case_id, "Q-batna", BATNA)).splitlines()
    assert answered[:2] == [
        "question Q-batna: answered",
        "applied  answer-Q-batna  /alternatives/user/batna/description",
    ]
    assert "version 2" in answered
    change = next(line for line in answered if line.startswith("material change chg_"))
    assert "/alternatives/user/batna/description" in change
    assert answered[-4:] == [
        "open questions:",
        "  Q-counterpart  text  Who are you negotiating with (the organisation)?",
        "  Q-deadline  date  By when must this be settled (YYYY-MM-DD)?",
        "  Q-relationship  enum [low | medium | high]  How much does your relationship with "
        "them matter after this deal: low, medium or high?",
    ]

    result = ok(ada.owner("answer", case_id, "Q-deadline", "2027-03-31", "--json"))
    assert set(result) == RESULT_MEMBERS | {"question"}
    assert result["applied"][0] == {"patch_id": "answer-Q-deadline", "path": "/process/deadlines/0"}
    assert result["question"]["status"] == "answered"
    assert result["state_version"] == ada.api(f"/{case_id}")["state_version"] == 3
    quoted = ada.owner("answer", case_id, "Q-counterpart", '"Vans, Ltd"', "--json-answer")
    assert said(quoted).startswith("question Q-counterpart: answered\n")
    organisation = ada.api(f"/{case_id}")["state"]["parties"]["counterpart"]["organisation"]
    assert organisation == "Vans, Ltd"  # as JSON, a comma is just a comma


def test_an_answer_is_refused(ada: Someone) -> None:
    case_id = new_case(ada, "--description", DESCRIPTION)
    wrong = refused(ada.owner("answer", case_id, "Q-deadline", "next spring"), "invalid_request")
    assert "\n  answer: a date YYYY-MM-DD\n" in wrong
    refused(ada.owner("answer", case_id, "Q-nothing", "x"), "not_found")
    ok(ada.owner("answer", case_id, "Q-batna", BATNA, "--json"))
    again = ada.owner("answer", case_id, "Q-batna", "Something else", "--json")
    assert again.exit_code == 1 and again.stdout == ""
    assert json.loads(again.stderr)["error"]["code"] == "question_not_open"
    assert ada.api(f"/{case_id}")["state_version"] == 2
    stderr = usage_error(ada.owner("answer", case_id, "Q-counterpart", "{", "--json-answer"))
    assert "Invalid value for --json-answer: ANSWER is not JSON" in stderr


@pytest.mark.parametrize(
    ("kind", "text", "sent"),
    [
        pytest.param("boolean", " Yes", True, id="yes"),
        pytest.param("boolean", "FALSE", False, id="false"),
        pytest.param("boolean", "maybe", "maybe", id="not_a_boolean_goes_as_typed"),
        pytest.param("list", "Lyon, Paris,, ", ["Lyon", "Paris"], id="list"),
        pytest.param("list", " , ", " , ", id="no_item_goes_as_typed"),
        pytest.param("text", "yes, Lyon", "yes, Lyon", id="text"),
        pytest.param(None, "no", "no", id="not_an_open_question"),
    ],
)
def test_an_answer_is_sent_as_its_questions_kind(kind: str | None, text: str, sent: Any) -> None:
    question = None if kind is None else {"question_id": "Q-x", "kind": kind}
    assert answer_value(text, question) == sent


# -- the brief -----------------------------------------------------------------------------------


def test_the_brief_printed_and_written(ada: Someone, tmp_path: Path) -> None:
    case_id = new_case(ada, "--description", DESCRIPTION)
    markdown = ada.api_response(f"/{case_id}/export").text
    assert markdown.startswith(f"# {TITLE}\n") and "If you reach no agreement" in markdown
    assert said(ada.agent("export", case_id)) == markdown

    brief = tmp_path / "brief.md"
    written = ada.agent("export", case_id, "--version", "1", "-o", str(brief))
    assert said(written) == "" and f"wrote {brief}" in written.stderr
    assert (
        brief.read_text(encoding="utf-8") == ada.api_response(f"/{case_id}/export?version=1").text
    )

    message = refused(ada.agent("export", case_id, "--version", "9"), "not_found")
    assert message == "error: This case has versions 1 to 1. (not_found)\n"
    nowhere = tmp_path / "nowhere" / "brief.md"
    stderr = usage_error(ada.agent("export", case_id, "-o", str(nowhere)))
    expected = f"Invalid value for --output: the folder '{nowhere.parent}' does not exist"
    assert "".join(expected.split()) in "".join(stderr.split())  # a long path may wrap anywhere
    assert not nowhere.parent.exists()


# -- the deal review -----------------------------------------------------------------------------

PREPARED: list[dict[str, Any]] = [
    *PATCHES[:2],
    {
        "patch_id": "p4",
        "operation": "ADD",
        "path": "/alternatives/user/batna/value",
        "proposed_value": "EUR 18,000",
    },
]
"""A van for at most EUR 19,000 (EUR 15,000 aimed for), when renting costs the same as buying
one for EUR 18,000."""


def prepared_case(someone: Someone) -> str:
    case_id = new_case(someone)
    body = json.dumps({"based_on_state_version": 1, "patches": PREPARED})
    assert ok(someone.owner("patch", case_id, "--file", "-", "--json", input=body))["applied"]
    return case_id


def test_a_deal_review_and_its_override(ada: Someone) -> None:
    case_id = prepared_case(ada)
    early = refused(ada.owner("override", case_id, "--reason", "I like it"), "nothing_to_override")
    assert "no deal review recommending other than accept" in early

    reviewed = ada.owner("review", case_id, "--term", "price=EUR 18,500",
                         "--condition", "Subject to an inspection")  # fmt: skip
    lines = said(reviewed).splitlines()
    assert lines[:11] == [
        "recommendation: reject  (status fail)",
        "offer: price: EUR 18,500",
        "  fail         batna_test                 your BATNA",
        "  unknown      implementation_test        your implementation limits and their "
        "authority to agree",
        "  conditional  hidden_timebomb_test       unset terms, open contradictions, key "
        "unknowns and conditions",
        "  pass         priority_topic_test        your minimums on critical and high topics",
        "  not_run      interest_test              your critical and high interests",
        "  not_run      independent_criteria_test  the independent criteria",
        "  not_run      relationship_test          your relationship requirements",
        "  not_run      precommitment_test         what you committed to before the offer",
        "conditions to confirm:",
    ]
    assert lines[11:14] == [
        "  - Subject to an inspection",
        "why: Reject: the offer fails batna_test (your BATNA).",
        "version 3",
    ]
    assert (
        lines[14].startswith("material change chg_") and "/deal_review/recommendation" in lines[14]
    )
    assert f"accord adviser override {case_id} --reason" in reviewed.stderr

    offer = {"offer": {"terms": {"price": "EUR 16,000"}, "text": "EUR 16,000, cash"}}
    body = ok(ada.owner("review", case_id, "--offer", "-", "--json", input=json.dumps(offer)))
    assert set(body) == RESULT_MEMBERS | {"deal_review", "response"}
    assert body["deal_review"] == ada.api(f"/{case_id}")["state"]["deal_review"]
    assert (body["deal_review"]["recommendation"], body["state_version"]) == ("get_information", 4)
    assert body["deal_review"]["offer_reviewed"] == "EUR 16,000, cash"
    assert body["response"]["skill_id"] == "F08"

    overridden = said(ada.owner("override", case_id, "--reason", "The dealer is my cousin",
                                "--new-evidence", "He signs for the garage"))  # fmt: skip
    assert overridden.startswith(
        "override recorded at version 5: you accept against the review's recommendation\n"
    )
    override = ada.api(f"/{case_id}")["state"]["deal_review"]["override"]
    assert (override["occurred"], override["user_reason"], override["new_evidence"]) == (
        True,
        "The dealer is my cousin",
        "He signs for the garage",
    )
    again = ok(ada.owner("override", case_id, "--reason", "Still", "--json"))
    assert set(again) == RESULT_MEMBERS and again["state_version"] == 6


@pytest.mark.parametrize(
    ("options", "says"),
    [
        pytest.param((), "Invalid value for --term: name the offer's terms", id="no_offer"),
        pytest.param(("--term", "price"), "'price' is not TOPIC=VALUE", id="no_equals"),
        pytest.param(("--term", "=EUR 1"), "'=EUR 1' is not TOPIC=VALUE", id="no_topic"),
        pytest.param(("--term", "a=1", "--term", "a=2"), "the topic 'a' twice", id="twice"),
        pytest.param(("--offer", "-", "--text", "x"), "not both", id="file_and_options"),
        pytest.param(("--offer", "nowhere.json"), "'nowhere.json' does not exist", id="no_file"),
    ],
)
def test_an_offer_that_cannot_be_read_is_a_usage_error(
    ada: Someone,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    options: tuple[str, ...],
    says: str,
) -> None:
    monkeypatch.chdir(tmp_path)
    assert says in usage_error(ada.owner("review", "case_x", *options))


# -- keys and refusals ---------------------------------------------------------------------------


def test_an_agent_key_reads_and_may_not_write(ada: Someone, tmp_path: Path) -> None:
    case_id = new_case(ada)
    for args in (
        ("new", TITLE),
        ("patch", case_id, "--file", patch_file(tmp_path, PATCHES)),
        ("seen", case_id, "chg_x"),
        ("close", case_id, "--outcome", "closed", "--reason", "Done"),
        ("answer", case_id, "Q-batna", BATNA),
        ("review", case_id, "--term", "price=EUR 16,000"),
        ("override", case_id, "--reason", "Mine"),
    ):
        message = refused(ada.agent(*args), "forbidden")
        assert message == "error: Only the owner key may do this; an agent may not. (forbidden)\n"
    assert case_id in said(ada.agent("show", case_id))


def test_another_principals_case_is_not_found(ada: Someone, bea: Someone) -> None:
    case_id = new_case(ada)
    refused(bea.agent("show", case_id), "not_found")
    refused(bea.owner("close", case_id, "--outcome", "closed", "--reason", "Mine now"), "not_found")
    refused(ada.owner("seen", case_id, "chg_nothing"), "not_found")
    refused(ada.agent("show", case_id, "--version", "2"), "not_found")
    refused(ada.agent("show", "a/b"), "not_found")  # one path segment, never another route
    refused(bea.agent("export", case_id), "not_found")
    refused(bea.agent("questions", case_id), "not_found")


def test_a_key_that_opens_nothing_is_unauthenticated(ada: Someone) -> None:
    refused(ada.run("acc_ok_nothing", "list"), "unauthenticated")


def test_bad_options_are_usage_errors(ada: Someone) -> None:
    usage_error(ada.owner("new", TITLE, "--depth", "DEEP"))
    usage_error(ada.owner("close", "case_x", "--outcome", "won", "--reason", "x"))
    usage_error(ada.owner("show", "case_x", "--version", "0"))


def test_a_server_that_does_not_answer(runner: CliRunner) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    result = runner.invoke(app, ["adviser", "list", "--key", "acc_ok_x", "--server", url])
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.startswith(f"error: cannot reach the Accord server at {url}: ")

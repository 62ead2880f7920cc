"""F06, role-play and red team: the engine plays the case's material topics on the user's and the
counterpart's limits; what it finds stays at HYPOTHESIS, a deal the runs mostly miss becomes a
vulnerability held for the user, a topic without an estimate gets a question or a warning, and
every patch passes the real orchestrator as F06 sends it."""

from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from accord.adviser.patches import Author, Patch, SetContext, Verdicts, validate
from accord.adviser.pointers import valid_id
from accord.adviser.skills.output import Output, respond
from accord.adviser.skills.registry import BUILTIN
from accord.adviser.skills.roleplay import MAX_TOPICS, RoleplayRequest, run
from accord.adviser.state import NegotiationState
from accord.adviser.values import read_date, read_money, read_number
from accord.adviser.versions import version_one

TOPICS = "/topics_targets_tradeoffs/topics/-"
REQUEST = "req-7"


def money_topic(
    minimum: str,
    target: str,
    reservation: str | None = None,
    *,
    their_target: str | None = None,
    name: str = "Salary",
    priority: str = "critical",
    estimate: bool = True,
) -> dict[str, Any]:
    """A money topic as the API adds it (see SALARY in test_cases_http.py)."""
    extension: dict[str, Any] = {"kind": "money", "currency": "USD"}
    if estimate:
        counterpart: dict[str, Any] = {}
        if reservation is not None:
            counterpart["reservation"] = reservation
        if their_target is not None:
            counterpart["target"] = their_target
        extension["counterpart"] = counterpart
    return {
        "topic": name,
        "priority": priority,
        "best_target": {"value": target},
        "minimum_acceptable": {"value": minimum},
        "x_accord": extension,
    }


def plain_topic(
    name: str, minimum: str, target: str, reservation: str, priority: str = "high"
) -> dict[str, Any]:
    """A number or date topic, its kind read from the form of its values."""
    return {
        "topic": name,
        "priority": priority,
        "best_target": {"value": target},
        "minimum_acceptable": {"value": minimum},
        "x_accord": {"counterpart": {"reservation": reservation}},
    }


def case(*topics: dict[str, Any], batna: str | None = None) -> dict[str, Any]:
    """A version-1 case with the topics (topic-1, topic-2, ...) and the BATNA added by the
    orchestrator, exactly as the API adds them."""
    document = version_one("case-1", "Salary", datetime(2026, 1, 1, tzinfo=UTC))
    patches = [
        Patch(patch_id=f"t{n}", operation="ADD", path=TOPICS, proposed_value=topic)
        for n, topic in enumerate(topics)
    ]
    if batna is not None:
        patches.append(
            Patch(
                patch_id="b",
                operation="ADD",
                path="/alternatives/user/batna/value",
                proposed_value=batna,
            )
        )
    verdicts = validate(SetContext(document, 1), patches)
    assert verdicts.refused == []
    return verdicts.document


def play(
    document: dict[str, Any], request: RoleplayRequest | None = None, request_id: str = REQUEST
) -> Output:
    state = NegotiationState.model_validate(document)
    return run(state, request or RoleplayRequest(), request_id)


def as_f06(document: dict[str, Any], output: Output) -> Verdicts:
    """The output's patches through the orchestrator, sent by F06 with its findings."""
    skill = BUILTIN["F06"]
    context = SetContext(
        document,
        document["meta"]["state_version"],
        Author("F06", writes=skill.writes, red_team=True),
        findings=frozenset(f.finding_id for f in output.findings),
    )
    return validate(context, output.patches)


def cents(text: str) -> int:
    money = read_money(text, "USD")
    assert money is not None
    return money.amount_minor


def median(output: Output, topic: str) -> str:
    prefix = f"Median agreed {topic}: "
    found = [f.finding for f in output.findings if f.finding.startswith(prefix)]
    assert len(found) == 1, [f.finding for f in output.findings]
    return found[0].removeprefix(prefix).split(" (over")[0]


def agreements(output: Output) -> int:
    no_deal = output.findings[0].finding
    assert no_deal.startswith("No agreement in ")
    return 10 - int(no_deal.split()[3])


WIDE = case(money_topic("USD 130,000.00", "USD 150,000.00", "USD 160,000.00"))
NONE = case(money_topic("USD 130,000.00", "USD 150,000.00", "USD 120,000.00"))


def test_the_same_state_and_request_give_the_same_output() -> None:
    request = RoleplayRequest(seeds=[3, 1, 4], rounds=30)
    assert play(WIDE, request) == play(WIDE, request)
    assert play(NONE) == play(NONE)


def test_each_seed_plays_a_counterpart_of_its_own() -> None:
    """Their limit estimated a little above the user's minimum: whether the narrow zone is found
    depends on where exactly the limit lies, so the seeds (each drawing it around the estimate)
    do not all agree."""
    edge = case(money_topic("USD 130,000.00", "USD 150,000.00", "USD 135,000.00",
                            their_target="USD 120,000.00"))  # fmt: skip
    output = play(edge)
    assert 0 < agreements(output) < 10, output.findings[0].finding
    assert play(edge) == output  # the same seeds, the same counterparts


@pytest.mark.parametrize(
    ("topic", "read", "low", "high"),
    [
        # a salary: higher is better for the user; they would pay up to 160,000
        (
            money_topic("USD 130,000.00", "USD 150,000.00", "USD 160,000.00"),
            cents,
            13_000_000,
            16_000_000,
        ),
        # a price the user pays: lower is better; they would sell down to 80,000
        (
            money_topic("USD 100,000.00", "USD 90,000.00", "USD 80,000.00", name="Price"),
            cents,
            8_000_000,
            10_000_000,
        ),
        # days of leave, a number; they would give up to 35
        (plain_topic("Leave", "25", "30", "35"), read_number, Decimal(25), Decimal(35)),
        # a start date: earlier is better; they would take it from 2026-02-01
        (
            plain_topic("Start", "2026-05-01", "2026-03-01", "2026-02-01"),
            read_date,
            date(2026, 2, 1),
            date(2026, 5, 1),
        ),
    ],
    ids=["salary", "price", "number", "date"],
)
def test_a_wide_zone_mostly_agrees_between_the_minimum_and_their_limit(
    topic: dict[str, Any], read: Any, low: Any, high: Any
) -> None:
    output = play(case(topic))
    assert agreements(output) > 5
    value = median(output, topic["topic"])
    assert low <= read(value) <= high
    assert output.confidence == "low"
    assert output.conclusion.startswith("Agreement in ")
    held = as_f06(case(topic), output).held
    assert held == []  # most runs agree: no vulnerability


def test_no_zone_never_agrees_and_holds_a_vulnerability_under_its_finding() -> None:
    output = play(NONE)
    no_deal = output.findings[0]
    assert no_deal.finding.startswith("No agreement in 10 of 10 simulated runs")
    assert no_deal.importance == "high"
    assert not any(f.finding.startswith("Median agreed") for f in output.findings)
    assert output.conclusion == "No agreement in 10 of 10 simulated runs"
    [vulnerability] = [p for p in output.patches if p.path.startswith("/strategy")]
    assert vulnerability.path == "/strategy/vulnerabilities/-"
    assert vulnerability.proposed_value == "No deal in 10 of 10 simulated runs"
    assert vulnerability.x_finding_id == no_deal.finding_id == f"{REQUEST}-1"
    verdicts = as_f06(NONE, output)
    assert verdicts.refused == []
    assert verdicts.held == [(vulnerability, no_deal.finding_id)]
    assert verdicts.document["strategy"]["vulnerabilities"] == []  # held, not applied


@pytest.mark.parametrize(
    ("topic", "question", "warning"),
    [
        (
            money_topic("USD 130,000.00", "USD 150,000.00", estimate=False),
            None,
            "W-no-estimate-topic-1",
        ),
        (money_topic("USD 130,000.00", "USD 150,000.00"), "Q-their-limit-topic-1", None),
        (
            money_topic("USD 130,000.00", "USD 150,000.00", "a lot"),
            "Q-their-limit-topic-1",
            None,
        ),
        (
            # their limit in another currency does not read on a USD topic
            money_topic("USD 130,000.00", "USD 150,000.00", "EUR 140,000.00"),
            "Q-their-limit-topic-1",
            None,
        ),
        (
            money_topic("USD 130,000.00", "USD 130,000.00", "USD 140,000.00"),
            None,
            "W-no-direction-topic-1",
        ),
        (
            {
                **money_topic("USD 130,000.00", "USD 150,000.00", "USD 140,000.00"),
                "minimum_acceptable": {},
            },
            None,
            "W-no-bounds-topic-1",
        ),
    ],
    ids=[
        "no-estimate",
        "no-limit",
        "unreadable-limit",
        "other-currency",
        "no-direction",
        "no-minimum",
    ],
)
def test_a_topic_that_cannot_be_played_asks_or_warns(
    topic: dict[str, Any], question: str | None, warning: str | None
) -> None:
    output = play(case(topic))
    assert [q.question_id for q in output.questions] == ([question] if question else [])
    assert [w[0] for w in output.warnings] == ([warning] if warning else [])
    if question is not None:
        [asked] = output.questions
        assert (
            asked.path
            == "/topics_targets_tradeoffs/topics/topic-1/x_accord/counterpart/reservation"
        )
        assert (asked.kind, asked.currency, asked.asked_by) == ("money", "USD", "F06")
        assert not asked.blocking
        assert asked.question.startswith("What is the most they would accept on Salary?")
    assert not output.findings and not output.patches and output.deliverable is None
    assert output.confidence == "unknown"
    assert output.conclusion.startswith("Nothing to role-play")


def test_only_material_money_number_and_date_topics_are_played() -> None:
    document = case(
        money_topic("USD 5,000.00", "USD 20,000.00", "USD 12,000.00", name="Bonus", priority="low"),
        {"topic": "Title", "priority": "critical", "best_target": {"value": "Lead"}},
        money_topic("USD 130,000.00", "USD 150,000.00", "USD 160,000.00"),
    )
    output = play(document)
    assert output.deliverable is not None
    assert "on Salary." in output.deliverable.content.splitlines()[0]
    assert [f.finding.split(":")[0] for f in output.findings[1:-1]] == ["Median agreed Salary"]
    assert not output.questions and not output.warnings


def test_several_topics_are_played_together_and_written_in_their_own_form() -> None:
    document = case(
        money_topic("USD 130,000.00", "USD 150,000.00", "USD 160,000.00"),
        plain_topic("Start", "2026-05-01", "2026-03-01", "2026-02-01"),
        plain_topic("Leave", "25", "30", "35"),
    )
    request = RoleplayRequest(seeds=[0, 1, 2], rounds=40)
    output = play(document, request)
    assert output.deliverable is not None and output.deliverable.kind == "roleplay"
    lines = output.deliverable.content.splitlines()
    assert [line.split(":")[0] for line in lines[1:]] == ["seed 0", "seed 1", "seed 2"]
    assert "40 rounds per run" in lines[0]
    assert read_money(median(output, "Salary"), "USD") is not None
    assert read_date(median(output, "Start")) is not None
    assert read_number(median(output, "Leave")) is not None
    assert as_f06(document, output).refused == []


def test_past_the_most_important_topics_a_topic_is_warned_not_played() -> None:
    topics = [
        plain_topic(f"Days {n}", "10", "20", "25", priority="critical" if n == 0 else "high")
        for n in range(MAX_TOPICS + 1)
    ]
    output = play(case(*topics), RoleplayRequest(seeds=[0], rounds=10))
    assert [w[0] for w in output.warnings] == [f"W-not-played-topic-{MAX_TOPICS + 1}"]
    medians = [f for f in output.findings if f.finding.startswith("Median agreed")]
    assert len(medians) in (0, MAX_TOPICS)


@pytest.mark.parametrize(
    ("batna", "floor"),
    [(None, 13_000_000), ("USD 142,000.00", 14_200_000), ("USD 120,000.00", 13_000_000)],
    ids=["no-batna", "batna-above-minimum", "batna-below-minimum"],
)
def test_a_batna_better_than_the_minimum_is_the_floor(batna: str | None, floor: int) -> None:
    document = case(money_topic("USD 130,000.00", "USD 150,000.00", "USD 150,000.00"), batna=batna)
    output = play(document)
    assert agreements(output) > 5
    assert floor <= cents(median(output, "Salary")) <= 15_000_000


@pytest.mark.parametrize("document", [WIDE, NONE], ids=["wide", "none"])
def test_role_play_stays_a_hypothesis(document: dict[str, Any]) -> None:
    output = play(document)
    assert output.findings
    for finding in output.findings:
        assert finding.evidence_status == "HYPOTHESIS"
        assert finding.research_refs == [f"roleplay:{REQUEST}"]
        assert finding.finding_id.startswith(f"{REQUEST}-")
    reactions = [p for p in output.patches if "likely_reactions" in p.path]
    assert len(reactions) == len(output.findings)
    for reaction, finding in zip(reactions, output.findings, strict=True):
        value = reaction.proposed_value
        assert isinstance(value, dict)
        assert set(value) == {"reaction_id", "reaction", "evidence_status", "prepared_response"}
        assert value["evidence_status"] == "HYPOTHESIS"
        assert reaction.basis.startswith(f"roleplay:{REQUEST}: {finding.finding_id}")
    assert all(p.basis.startswith(f"roleplay:{REQUEST}") for p in output.patches)


@pytest.mark.parametrize("document", [WIDE, NONE], ids=["wide", "none"])
def test_the_patches_pass_the_orchestrator_as_f06_sends_them(document: dict[str, Any]) -> None:
    output = play(document)
    verdicts = as_f06(document, output)
    assert verdicts.refused == []
    after = verdicts.document
    assert after["roleplay"]["last_snapshot_version"] == 1
    written = after["rapport_reactions_responses"]["likely_reactions"]
    assert [r["reaction_id"] for r in written] == [
        f"reaction-{REQUEST}-{n}" for n in range(1, len(output.findings) + 1)
    ]
    # the response the run makes is a valid SKILL_RESPONSE
    response = respond("F06", REQUEST, 1, output, {})
    assert response.summary.confidence == "low"
    # a later run on a case that already has a snapshot still writes it
    again = play(after, request_id="req-8")
    assert as_f06(after, again).refused == []


def test_a_long_request_id_still_makes_valid_ids() -> None:
    request_id = "r" * 64
    output = play(NONE, request_id=request_id)
    ids = [f.finding_id for f in output.findings]
    ids += [
        str(v["reaction_id"]) for p in output.patches if isinstance(v := p.proposed_value, dict)
    ]
    assert all(valid_id(i) for i in ids) and len(set(ids)) == len(ids)
    assert as_f06(NONE, output).refused == []
    respond("F06", request_id, 1, output, {})


@pytest.mark.parametrize(
    "body",
    [
        {"rounds": 0},
        {"rounds": 1001},
        {"rounds": "20"},
        {"seeds": list(range(51))},
        {"seeds": []},
        {"seeds": ["1"]},
        {"seeds": [-1]},
        {"seeds": [2**31]},
        {"seeds": [True]},
        {"seeds": [1, 1]},
        {"seed": [1]},
    ],
)
def test_a_bad_request_is_refused(body: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        RoleplayRequest.model_validate(body)


@pytest.mark.parametrize(
    "body", [{}, {"seeds": None, "rounds": None}, {"seeds": list(range(50)), "rounds": 1000}]
)
def test_a_good_request_is_taken(body: dict[str, Any]) -> None:
    RoleplayRequest.model_validate(body)


@settings(max_examples=25, deadline=None)
@given(
    minimum=st.integers(50, 150),
    room=st.integers(1, 50),
    reservation=st.integers(20, 250),
    higher=st.booleans(),
)
def test_agreements_never_cross_either_limit(
    minimum: int, room: int, reservation: int, higher: bool
) -> None:
    """Whatever the estimates, a single topic agrees only at or past the user's minimum and at
    or short of their limit, and no output ever rises above HYPOTHESIS or is refused."""
    target = minimum + room if higher else minimum - room
    document = case(
        money_topic(
            f"USD {minimum * 1000:,}", f"USD {target * 1000:,}", f"USD {reservation * 1000:,}"
        )
    )
    output = play(document, RoleplayRequest(seeds=[0, 1], rounds=15))
    assert all(f.evidence_status == "HYPOTHESIS" for f in output.findings)
    assert as_f06(document, output).refused == []
    zone = reservation >= minimum if higher else reservation <= minimum
    if not zone:
        assert output.findings[0].finding.startswith("No agreement in 2 of 2")
        return
    if not output.findings[0].finding.startswith("No agreement in 2 of 2"):
        agreed = read_money(median(output, "Salary"), "USD")
        assert agreed is not None
        low, high = sorted((minimum * 100_000, reservation * 100_000))
        assert low <= agreed.amount_minor <= high

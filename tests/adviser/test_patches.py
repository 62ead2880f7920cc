"""The orchestrator's patch validation: one row per refusal code (and per way to meet it), the
order of the codes, set semantics, the pre-commitment pair, held patches and the warnings."""

from datetime import UTC, datetime
from typing import Any

import pytest

from accord.adviser.patches import CODES, Author, Patch, SetContext, Verdicts, validate
from accord.adviser.state import NegotiationState
from accord.adviser.versions import next_version, version_one

AT = datetime(2026, 12, 3, 9, 0, tzinfo=UTC)
USER = Author()
F02 = Author("F02", writes=("/interests", "/facts_and_research/research_questions"))
TTT_SKILL = Author("x-ttt", writes=("/topics_targets_tradeoffs",))
RED_TEAM = Author("x-red", writes=("/strategy", "/evidence_register"), red_team=True)
F08 = Author("F08", writes=("/deal_review", "/meta/lifecycle_stage"))

SEED = [
    ("ADD", "/topics_targets_tradeoffs/topics/-", {"topic": "Salary", "priority": "critical"}),
    ("ADD", "/topics_targets_tradeoffs/topics/-", {"topic": "Start date", "priority": "low"}),
    (
        "ADD",
        "/topics_targets_tradeoffs/cross_topic_tradeoffs/-",
        {"give": "start later", "receive": "higher salary", "rationale": "they need time"},
    ),
    (
        "ADD",
        "/evidence_register/items/-",
        {"proposition": "Market pays 140k", "materiality": "high"},
    ),
    (
        "ADD",
        "/evidence_register/items/-",
        {"proposition": "They fold", "materiality": "low", "source_ref": "roleplay:run-1"},
    ),
    ("ADD", "/facts_and_research/established_facts/-", {"fact": "Budget set in March"}),
    (
        "ADD",
        "/concessions/ledger/-",
        {"party": "counterpart", "topic": "topic-1", "conditional": False, "reciprocal": "unknown"},
    ),
    ("ADD", "/proposals/proposal_history/-", {"party": "counterpart", "proposal": "Salary: 120k"}),
    ("ADD", "/objective/user_stated_objective", "A fair raise"),
    ("ADD", "/strategy/vulnerabilities", ["They know my deadline"]),
]


def patch(operation: str, path: str, value: Any = None, **extra: Any) -> Patch:
    return Patch.model_validate(
        {"patch_id": extra.pop("patch_id", "p"), "operation": operation, "path": path}
        | {"proposed_value": value, **extra}
    )


def apply(
    state: dict[str, Any], author: Author, *patches: Patch
) -> tuple[Verdicts, dict[str, Any]]:
    verdicts = validate(SetContext(state, state["meta"]["state_version"], author), patches)
    version = next_version(state, verdicts, AT, cause="patches_applied", summary="test")
    return verdicts, (version.document if version else state)


def seeded(*, precommitted: bool = False) -> dict[str, Any]:
    state = version_one("case-1", "Salary review", AT)
    seed = [patch(op, path, value, patch_id=f"s{i}") for i, (op, path, value) in enumerate(SEED)]
    if precommitted:
        seed += [
            patch(
                "ADD",
                "/precommitment",
                {
                    "created": True,
                    "acceptance_criteria": [
                        {
                            "criterion": "pay",
                            "importance": "critical",
                            "threshold": "topic-1 >= USD 130000",
                        }
                    ],
                    "disqualifiers": ["no equity cut"],
                },
                patch_id="pre",
            )
        ]
    verdicts, state = apply(state, USER, *seed)
    assert not verdicts.refused, verdicts.refused
    return state


def refusal(state: dict[str, Any], author: Author, *patches: Patch) -> str | None:
    """The code the last patch of the set gets, or None when it applies or is held."""
    verdicts = validate(SetContext(state, state["meta"]["state_version"], author), patches)
    last = patches[-1].patch_id
    return next((r.code for r in verdicts.refused if r.patch_id == last), None)


T1 = "/topics_targets_tradeoffs/topics/topic-1"
REFUSALS: list[tuple[str, Author, Patch, str]] = [
    ("outside the schema", USER, patch("ADD", "/nope", 1), "unknown_path"),
    ("a member of a value", USER, patch("ADD", "/objective/reversibility/x", 1), "unknown_path"),
    (
        "no such id",
        USER,
        patch(
            "UPDATE_WITH_EVIDENCE", "/topics_targets_tradeoffs/topics/topic-9/topic", "x", basis="b"
        ),
        "unknown_path",
    ),
    (
        "no such position",
        USER,
        patch("UPDATE_WITH_EVIDENCE", "/topics_targets_tradeoffs/topics/7/topic", "x", basis="b"),
        "unknown_path",
    ),
    ("not a pointer", USER, patch("ADD", "objective", 1), "unknown_path"),
    ("append into an object", USER, patch("ADD", "/strategy/-", "x"), "unknown_path"),
    ("the whole state", USER, patch("ADD", "", {}), "unknown_path"),
    (
        "close by status",
        USER,
        patch("UPDATE_WITH_EVIDENCE", "/meta/status", "closed", basis="done"),
        "close_without_event",
    ),
    (
        "close by stage",
        USER,
        patch("UPDATE_WITH_EVIDENCE", "/meta/lifecycle_stage", "NO_DEAL", basis="done"),
        "close_without_event",
    ),
    (
        "a skill outside its writes",
        F02,
        patch("ADD", "/strategy/current_strategy", "x"),
        "path_not_allowed",
    ),
    (
        "the version",
        USER,
        patch("UPDATE_WITH_EVIDENCE", "/meta/state_version", 9, basis="b"),
        "path_not_allowed",
    ),
    (
        "the status, not closing",
        USER,
        patch("UPDATE_WITH_EVIDENCE", "/meta/status", "paused", basis="b"),
        "path_not_allowed",
    ),
    (
        "the meta object",
        USER,
        patch("UPDATE_WITH_EVIDENCE", "/meta", {}, basis="b"),
        "path_not_allowed",
    ),
    (
        "the deal review",
        USER,
        patch("ADD", "/deal_review/recommendation", "accept"),
        "path_not_allowed",
    ),
    (
        "its override",
        USER,
        patch("UPDATE_WITH_EVIDENCE", "/deal_review/override/occurred", True, basis="b"),
        "path_not_allowed",
    ),
    (
        "a topic agreed",
        TTT_SKILL,
        patch("UPDATE_WITH_EVIDENCE", f"{T1}/status", "agreed", basis="b"),
        "specialist_cannot_accept",
    ),
    (
        "a topic provisionally agreed",
        TTT_SKILL,
        patch("UPDATE_WITH_EVIDENCE", f"{T1}/status", "provisionally_agreed", basis="b"),
        "specialist_cannot_accept",
    ),
    (
        "a trade accepted",
        TTT_SKILL,
        patch(
            "UPDATE_WITH_EVIDENCE",
            "/topics_targets_tradeoffs/cross_topic_tradeoffs/trade-1/status",
            "accepted",
            basis="b",
        ),
        "specialist_cannot_accept",
    ),
    (
        "a concession changed",
        USER,
        patch(
            "SUPERSEDE",
            "/concessions/ledger/concession-1",
            {"party": "user", "topic": "t", "conditional": False, "reciprocal": True},
            basis="b",
        ),
        "append_only",
    ),
    (
        "a concession's member",
        USER,
        patch("UPDATE_WITH_EVIDENCE", "/concessions/ledger/0/to", "x", basis="b"),
        "append_only",
    ),
    (
        "the ledger replaced",
        USER,
        patch("UPDATE_WITH_EVIDENCE", "/concessions/ledger", [], basis="b"),
        "append_only",
    ),
    (
        "a proposal changed",
        USER,
        patch(
            "UPDATE_WITH_EVIDENCE",
            "/proposals/proposal_history/proposal-1/proposal",
            "x",
            basis="b",
        ),
        "append_only",
    ),
    (
        "the history",
        USER,
        patch(
            "ADD",
            "/history/material_events/-",
            {"timestamp": "2026-12-03T09:00:00Z", "type": "x", "summary": "x"},
        ),
        "append_only",
    ),
    ("the findings", USER, patch("ADD", "/roleplay/accepted_findings/-", "f"), "append_only"),
    (
        "a BATNA among options",
        USER,
        patch("ADD", "/options/in_agreement/-", {"description": "Other job", "value": "USD 100"}),
        "batna_in_options",
    ),
    (
        "an option among alternatives",
        USER,
        patch("ADD", "/alternatives/user/improvements/-", {"improvement": "x", "option": "y"}),
        "option_in_alternatives",
    ),
    (
        "a notional BATNA as the BATNA",
        USER,
        patch(
            "UPDATE_WITH_EVIDENCE",
            "/alternatives/user/batna",
            {"description": "x", "probability": "50%"},
            basis="b",
        ),
        "notional_in_batna",
    ),
    (
        "notional, from above",
        USER,
        patch(
            "UPDATE_WITH_EVIDENCE",
            "/alternatives/counterpart",
            {"batna": {"description": "x", "cost": "1"}},
            basis="b",
        ),
        "notional_in_batna",
    ),
    (
        "a wrong enumeration",
        USER,
        patch(
            "ADD", "/topics_targets_tradeoffs/topics/-", {"topic": "Bonus", "priority": "urgent"}
        ),
        "invalid_value",
    ),
    (
        "a missing member",
        USER,
        patch("ADD", "/topics_targets_tradeoffs/topics/-", {"priority": "high"}),
        "invalid_value",
    ),
    (
        "an unknown member",
        USER,
        patch(
            "ADD",
            "/topics_targets_tradeoffs/topics/-",
            {"topic": "Bonus", "priority": "high", "colour": "red"},
        ),
        "invalid_value",
    ),
    (
        "a wrong type",
        USER,
        patch("UPDATE_WITH_EVIDENCE", "/objective/desired_outcome", 5, basis="b"),
        "invalid_value",
    ),
    (
        "a repeated id",
        USER,
        patch(
            "ADD",
            "/topics_targets_tradeoffs/topics/-",
            {"topic_id": "topic-1", "topic": "Bonus", "priority": "high"},
        ),
        "invalid_value",
    ),
    (
        "an id of digits",
        USER,
        patch(
            "ADD",
            "/topics_targets_tradeoffs/topics/-",
            {"topic_id": "12", "topic": "Bonus", "priority": "high"},
        ),
        "invalid_value",
    ),
    (
        "an id changed",
        USER,
        patch(
            "SUPERSEDE", T1, {"topic_id": "topic-7", "topic": "Pay", "priority": "high"}, basis="b"
        ),
        "invalid_value",
    ),
    (
        "an update that appends",
        USER,
        patch("UPDATE_WITH_EVIDENCE", "/strategy/vulnerabilities/-", "x", basis="b"),
        "invalid_value",
    ),
    (
        "a superseded field",
        USER,
        patch("SUPERSEDE", "/objective/desired_outcome", "x", basis="b"),
        "invalid_value",
    ),
    (
        "a contradiction elsewhere",
        USER,
        patch(
            "FLAG_CONTRADICTION",
            "/evidence_register/items/-",
            {"proposition_a_ref": "evidence-1", "proposition_b_ref": "fact-1"},
        ),
        "invalid_value",
    ),
    (
        "a contradiction of nothing",
        USER,
        patch(
            "FLAG_CONTRADICTION",
            "/evidence_register/contradictions/-",
            {"proposition_a_ref": "evidence-1", "proposition_b_ref": "fact-9"},
        ),
        "invalid_value",
    ),
    (
        "a held patch without its finding",
        RED_TEAM,
        patch("ADD", "/strategy/current_strategy", "x"),
        "invalid_value",
    ),
    (
        "an ADD over a value",
        USER,
        patch("ADD", "/objective/user_stated_objective", "x"),
        "field_already_set",
    ),
    ("an ADD over an item", USER, patch("ADD", f"{T1}/topic", "Pay"), "field_already_set"),
    (
        "a red-team item above HYPOTHESIS",
        RED_TEAM,
        patch(
            "ADD",
            "/evidence_register/items/-",
            {"proposition": "x", "materiality": "low", "evidence_status": "KNOWN"},
            basis="sim",
        ),
        "roleplay_not_evidence",
    ),
    (
        "a role-play source above HYPOTHESIS",
        USER,
        patch(
            "ADD",
            "/evidence_register/items/-",
            {
                "proposition": "x",
                "materiality": "low",
                "evidence_status": "SUPPORTED_INFERENCE",
                "source_ref": "roleplay:run-2",
            },
            basis="sim",
        ),
        "roleplay_not_evidence",
    ),
    (
        "a model's source above HYPOTHESIS",
        USER,
        patch(
            "ADD",
            "/interests/counterpart/-",
            {"interest": "x", "priority": "high", "evidence_status": "KNOWN", "basis": "llm:req-1"},
            evidence_refs=["evidence-2"],
        ),
        "roleplay_not_evidence",
    ),
    (
        "a role-play item raised through its status",
        USER,
        patch(
            "UPDATE_WITH_EVIDENCE",
            "/evidence_register/items/evidence-2/evidence_status",
            "SUPPORTED_INFERENCE",
            basis="it felt right",
        ),
        "roleplay_not_evidence",
    ),
    (
        "an update without a reason",
        USER,
        patch("UPDATE_WITH_EVIDENCE", "/objective/desired_outcome", "x"),
        "evidence_required",
    ),
    (
        "a supersede without a reason",
        USER,
        patch("SUPERSEDE", T1, {"topic": "Pay", "priority": "high"}),
        "evidence_required",
    ),
    (
        "a new item raised",
        USER,
        patch(
            "ADD",
            "/interests/user/-",
            {"interest": "x", "priority": "high", "evidence_status": "KNOWN"},
        ),
        "evidence_required",
    ),
    (
        "a status raised",
        USER,
        patch(
            "ADD",
            "/parties/counterpart/authority_status",
            {"value": "the CFO", "evidence_status": "HYPOTHESIS"},
        ),
        "evidence_required",
    ),
    (
        "evidence that is not there",
        USER,
        patch(
            "UPDATE_WITH_EVIDENCE", "/objective/desired_outcome", "x", evidence_refs=["evidence-9"]
        ),
        "evidence_required",
    ),
]


@pytest.mark.parametrize(
    ("author", "sent", "code"), [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS]
)
def test_a_refused_patch_gets_its_code_and_changes_nothing(
    author: Author, sent: Patch, code: str
) -> None:
    state = seeded()
    verdicts = validate(SetContext(state, state["meta"]["state_version"], author), [sent])
    assert [r.code for r in verdicts.refused] == [code]
    assert verdicts.document == state
    assert next_version(state, verdicts, AT, cause="patches_applied", summary="x") is None


def test_every_code_has_a_row() -> None:
    covered = {row[3] for row in REFUSALS} | {
        "stale_state_version",
        "precommitment_change_unlogged",
    }
    assert covered == set(CODES)


ACCEPTED: list[tuple[str, Author, Patch]] = [
    (
        "an append with its id given",
        USER,
        patch(
            "ADD",
            "/topics_targets_tradeoffs/topics/-",
            {"topic_id": "bonus", "topic": "Bonus", "priority": "high"},
        ),
    ),
    (
        "an item by position",
        USER,
        patch(
            "UPDATE_WITH_EVIDENCE", "/topics_targets_tradeoffs/topics/1/topic", "Start", basis="b"
        ),
    ),
    (
        "a supersede keeping the id",
        USER,
        patch("SUPERSEDE", T1, {"topic": "Pay", "priority": "high"}, basis="renamed"),
    ),
    (
        "a skill inside its writes",
        F02,
        patch("ADD", "/interests/user/-", {"interest": "security", "priority": "high"}),
    ),
    (
        "F08 writes the review",
        F08,
        patch("UPDATE_WITH_EVIDENCE", "/deal_review/recommendation", "counter", basis="tests"),
    ),
    (
        "an open lifecycle",
        F08,
        patch("UPDATE_WITH_EVIDENCE", "/meta/lifecycle_stage", "DEAL_REVIEW", basis="review"),
    ),
    (
        "a contradiction",
        USER,
        patch(
            "FLAG_CONTRADICTION",
            "/evidence_register/contradictions/-",
            {"proposition_a_ref": "evidence-1", "proposition_b_ref": "fact-1"},
        ),
    ),
    (
        "a held red-team patch",
        RED_TEAM,
        patch("ADD", "/strategy/current_strategy", "anchor high", x_finding_id="f-1"),
    ),
    (
        "x_accord on a topic",
        USER,
        patch("ADD", f"{T1}/x_accord", {"kind": "money", "currency": "USD"}),
    ),
    ("a member of an absent x_accord", USER, patch("ADD", f"{T1}/x_accord/term", "salary")),
    (
        "role-play at HYPOTHESIS",
        RED_TEAM,
        patch(
            "ADD",
            "/evidence_register/items/-",
            {"proposition": "x", "materiality": "low", "evidence_status": "HYPOTHESIS"},
            basis="sim",
        ),
    ),
    (
        "a status raised with a reason",
        USER,
        patch(
            "ADD",
            "/parties/counterpart/authority_status",
            {"value": "the CFO", "evidence_status": "HYPOTHESIS"},
            basis="she said so",
        ),
    ),
    (
        "evidence that is there",
        USER,
        patch(
            "UPDATE_WITH_EVIDENCE", "/objective/desired_outcome", "x", evidence_refs=["evidence-1"]
        ),
    ),
]


@pytest.mark.parametrize(
    ("author", "sent"), [r[1:] for r in ACCEPTED], ids=[r[0] for r in ACCEPTED]
)
def test_a_valid_patch_applies_or_is_held(author: Author, sent: Patch) -> None:
    state = seeded()
    verdicts = validate(
        SetContext(state, state["meta"]["state_version"], author, frozenset({"f-1"})), [sent]
    )
    assert verdicts.refused == []
    assert len(verdicts.applied) + len(verdicts.held) == 1
    NegotiationState.model_validate(verdicts.document)


def test_the_first_code_of_the_table_answers() -> None:
    # outside F02's writes and an invalid value: path_not_allowed comes first
    state = seeded()
    assert (
        refusal(state, F02, patch("ADD", "/strategy/confidence", "certain")) == "path_not_allowed"
    )
    # append-only and without a reason: append_only first
    assert (
        refusal(state, USER, patch("UPDATE_WITH_EVIDENCE", "/concessions/ledger/0/to", 3))
        == "append_only"
    )


def test_a_set_sees_its_earlier_valid_patches_and_not_its_refused_ones() -> None:
    state = seeded()
    verdicts, after = apply(
        state,
        USER,
        patch(
            "ADD",
            "/topics_targets_tradeoffs/topics/-",
            {"topic": "Bonus", "priority": "high"},
            patch_id="a",
        ),
        patch(
            "ADD",
            "/topics_targets_tradeoffs/topics/topic-3/best_target/value",
            "USD 10,000.00",
            patch_id="b",
        ),
        patch(
            "ADD",
            "/topics_targets_tradeoffs/topics/-",
            {"topic": "Car", "priority": "bad"},
            patch_id="c",
        ),
        patch("ADD", "/topics_targets_tradeoffs/topics/topic-4/topic", "Car", patch_id="d"),
    )
    assert verdicts.applied == [
        ("a", "/topics_targets_tradeoffs/topics/topic-3"),
        ("b", "/topics_targets_tradeoffs/topics/topic-3/best_target/value"),
    ]
    assert [(r.patch_id, r.code) for r in verdicts.refused] == [
        ("c", "invalid_value"),
        ("d", "unknown_path"),
    ]
    assert after["meta"]["state_version"] == state["meta"]["state_version"] + 1
    event = after["history"]["material_events"][-1]
    assert event["state_changes"] == [path for _, path in verdicts.applied]
    assert event["type"] == "material_change"  # a new high topic with a target


def test_a_stale_patch_is_refused_where_a_later_version_wrote_and_appends_never_are() -> None:
    state = seeded()
    base = state["meta"]["state_version"]
    _, state = apply(
        state,
        USER,
        patch("UPDATE_WITH_EVIDENCE", f"{T1}/best_target/value", "USD 150,000.00", basis="b"),
    )
    for pointer, code in [
        (f"{T1}/best_target/value", "stale_state_version"),
        (f"{T1}/best_target", "stale_state_version"),
        ("/topics_targets_tradeoffs/topics/0/best_target/value", "stale_state_version"),
        ("/topics_targets_tradeoffs/topics/topic-2/best_target/value", None),
    ]:
        sent = patch(
            "UPDATE_WITH_EVIDENCE",
            pointer,
            "USD 1.00" if pointer.endswith("value") else {"value": "USD 1.00"},
            basis="b",
        )
        verdicts = validate(SetContext(state, base, USER), [sent])
        assert [r.code for r in verdicts.refused] == ([code] if code else []), pointer
    append = patch(
        "ADD", "/topics_targets_tradeoffs/topics/-", {"topic": "Bonus", "priority": "low"}
    )
    assert validate(SetContext(state, base, USER), [append]).refused == []


CHANGE = patch(
    "UPDATE_WITH_EVIDENCE",
    "/precommitment/disqualifiers/0",
    "no pay cut",
    basis="rethought",
    patch_id="change",
)


def log(criterion_id: str = "/precommitment/disqualifiers/0", **changes: Any) -> Patch:
    value = {
        "criterion_id": criterion_id,
        "previous_value": "no equity cut",
        "new_value": "no pay cut",
        "reason": "equity was never offered",
        "approved_by_user": True,
    } | changes
    return patch("ADD", "/precommitment/later_changes/-", value, patch_id="log")


WRONG_TYPE = patch(
    "UPDATE_WITH_EVIDENCE", "/precommitment/disqualifiers/0", 5, basis="b", patch_id="change"
)
PRE_SKILL = Author("x-pre", writes=("/precommitment",))
UNLOGGED = "precommitment_change_unlogged"
INVALID = "invalid_value"


@pytest.mark.parametrize(
    ("sent", "author", "refused", "logs"),
    [
        pytest.param([CHANGE], USER, {"change": UNLOGGED}, 0, id="unlogged"),
        pytest.param([CHANGE, log()], USER, {}, 1, id="logged"),
        pytest.param([log(), CHANGE], USER, {}, 1, id="logged first"),
        # a log that approves no change of the set is an entry of its own
        pytest.param(
            [CHANGE, log(approved_by_user=False)], USER, {"change": UNLOGGED}, 1, id="not approved"
        ),
        pytest.param([CHANGE, log(reason=" ")], USER, {"change": UNLOGGED}, 1, id="no reason"),
        pytest.param(
            [CHANGE, log("another")], USER, {"change": UNLOGGED}, 1, id="another criterion"
        ),
        # one of a pair refused on its own: the other goes with it
        pytest.param(
            [CHANGE, log(colour="red")],
            USER,
            {"change": INVALID, "log": INVALID},
            0,
            id="log refused",
        ),
        pytest.param(
            [WRONG_TYPE, log()], USER, {"change": INVALID, "log": INVALID}, 0, id="change refused"
        ),
        pytest.param(
            [CHANGE, log()], PRE_SKILL, {"change": UNLOGGED, "log": UNLOGGED}, 0, id="a skill"
        ),
    ],
)
def test_a_precommitment_moves_only_with_its_logged_approved_change(
    sent: list[Patch], author: Author, refused: dict[str, str], logs: int
) -> None:
    state = seeded(precommitted=True)
    verdicts = validate(SetContext(state, state["meta"]["state_version"], author), sent)
    assert {r.patch_id: r.code for r in verdicts.refused} == refused
    precommitment = verdicts.document["precommitment"]
    assert (precommitment["disqualifiers"] != state["precommitment"]["disqualifiers"]) == (
        not refused
    )
    assert len(precommitment["later_changes"]) == logs


def test_an_acceptance_criterion_pairs_by_its_id() -> None:
    state = seeded(precommitted=True)
    change = patch(
        "UPDATE_WITH_EVIDENCE",
        "/precommitment/acceptance_criteria/criterion-1/threshold",
        "topic-1 >= USD 125000",
        basis="b",
        patch_id="change",
    )
    verdicts = validate(
        SetContext(state, state["meta"]["state_version"], USER), [change, log("criterion-1")]
    )
    assert verdicts.refused == []


def test_a_precommitment_once_made_stays_made() -> None:
    state = seeded(precommitted=True)
    undo = patch("UPDATE_WITH_EVIDENCE", "/precommitment/created", False, basis="b")
    assert refusal(state, USER, undo) == "invalid_value"


def test_a_precommitment_not_yet_made_moves_freely() -> None:
    state = seeded()
    assert (
        refusal(state, USER, patch("ADD", "/precommitment/disqualifiers/-", "no pay cut")) is None
    )


@pytest.mark.parametrize(
    ("path", "value", "code"),
    [
        (
            "/options/in_agreement/-",
            {"option": "Take another offer instead"},
            "looks_like_alternative",
        ),
        (
            "/options/in_agreement/-",
            {"option": "Talk to the other buyer"},
            "looks_like_alternative",
        ),
        (
            "/alternatives/user/improvements/-",
            {"improvement": "We offer a package"},
            "looks_like_option",
        ),
        (
            "/alternatives/user/improvements/-",
            {"improvement": "In exchange for a car"},
            "looks_like_option",
        ),
        ("/options/in_agreement/-", {"option": "A signing bonus"}, None),
    ],
)
def test_words_warn_but_never_refuse(path: str, value: dict[str, Any], code: str | None) -> None:
    state = seeded()
    verdicts = validate(
        SetContext(state, state["meta"]["state_version"], USER), [patch("ADD", path, value)]
    )
    assert verdicts.refused == []
    assert [w.code for w in verdicts.warnings] == ([code] if code else [])


def test_items_added_without_an_id_get_the_first_free_one() -> None:
    state = seeded()
    verdicts, after = apply(
        state,
        USER,
        patch(
            "ADD",
            "/topics_targets_tradeoffs/topics/-",
            {"topic_id": "topic-4", "topic": "A", "priority": "low"},
            patch_id="a",
        ),
        patch(
            "ADD",
            "/topics_targets_tradeoffs/topics/-",
            {"topic": "B", "priority": "low"},
            patch_id="b",
        ),
        patch(
            "ADD",
            "/topics_targets_tradeoffs/topics/-",
            {"topic": "C", "priority": "low"},
            patch_id="c",
        ),
    )
    ids = [t["topic_id"] for t in after["topics_targets_tradeoffs"]["topics"]]
    assert ids == ["topic-1", "topic-2", "topic-4", "topic-3", "topic-5"]
    assert verdicts.applied[1] == ("b", "/topics_targets_tradeoffs/topics/topic-3")


def test_a_contradiction_opens() -> None:
    state = seeded()
    flag = patch(
        "FLAG_CONTRADICTION",
        "/evidence_register/contradictions/-",
        {"proposition_a_ref": "evidence-1", "proposition_b_ref": "fact-1"},
    )
    _, after = apply(state, USER, flag)
    assert after["evidence_register"]["contradictions"] == [
        {
            "contradiction_id": "contradiction-1",
            "proposition_a_ref": "evidence-1",
            "proposition_b_ref": "fact-1",
            "status": "open",
            "resolution": None,
        }
    ]


def test_version_one_holds_every_member_empty() -> None:
    state = NegotiationState.model_validate(version_one("case-9", "Lease", AT, description="Renew"))
    assert state.meta.state_version == 1
    assert state.objective.user_stated_objective == "Renew"
    assert state.deal_review.status == "not_required"
    assert state.deal_review.batna_test == "not_run"
    assert state.alternatives.user.notional_batna.status == "not_used"
    assert state.alternatives.user.batna.evidence_status == "UNKNOWN"
    assert state.objective.relationship_importance == "unknown"
    assert [e.type for e in state.history.material_events] == ["case_created"]
    assert state.x_accord is not None and state.x_accord.disclosure.never_reveal == []

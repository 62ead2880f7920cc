"""Properties of the orchestrator over any sequence of patch sets from the user and from skills
(adviser-negotiation-state.md §1 and §6): no concession is ever deleted or rewritten, a made
pre-commitment never moves without the user's logged and approved change, evidence is never
raised without a reason, role-play never rises above HYPOTHESIS, no set closes a case, and every
version is reproduced by replaying the sets from version 1."""

from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from accord.adviser.patches import EVIDENCE_RANK, USER, Author, Patch, SetContext, validate
from accord.adviser.state import NegotiationState
from accord.adviser.versions import next_version, version_one

START = datetime(2026, 12, 3, tzinfo=UTC)
AUTHORS = (
    USER,
    Author("x-ledger", writes=("/concessions", "/precommitment", "/evidence_register")),
    Author("x-red", writes=("/strategy", "/evidence_register"), red_team=True),
    Author("x-ttt", writes=("/topics_targets_tradeoffs",)),
)
STATUSES = st.sampled_from(["UNKNOWN", "HYPOTHESIS", "SUPPORTED_INFERENCE", "KNOWN"])
CONCESSION = st.fixed_dictionaries(
    {
        "party": st.sampled_from(["user", "counterpart"]),
        "topic": st.just("topic-1"),
        "conditional": st.booleans(),
        "reciprocal": st.sampled_from([True, False, "unknown"]),
    }
)
LOG = st.fixed_dictionaries(
    {
        "criterion_id": st.just("/precommitment/disqualifiers/0"),
        "previous_value": st.just("no pay cut"),
        "new_value": st.just("no equity cut"),
        "reason": st.sampled_from(["", "they changed the offer"]),
        "approved_by_user": st.booleans(),
    }
)
EVIDENCE = st.fixed_dictionaries(
    {
        "proposition": st.just("Market pays 140k"),
        "materiality": st.just("high"),
        "evidence_status": STATUSES,
        "source_ref": st.sampled_from([None, "interview", "roleplay:run-1", "llm:req-1"]),
    }
)
TARGETS: list[tuple[str, str, st.SearchStrategy[Any]]] = [
    ("ADD", "/concessions/ledger/-", CONCESSION),
    ("SUPERSEDE", "/concessions/ledger/0", CONCESSION),
    ("UPDATE_WITH_EVIDENCE", "/concessions/ledger/0/to", st.just("USD 1")),
    ("UPDATE_WITH_EVIDENCE", "/concessions/ledger", st.just([])),
    ("UPDATE_WITH_EVIDENCE", "/concessions", st.just({"ledger": []})),
    ("ADD", "/evidence_register/items/-", EVIDENCE),
    ("UPDATE_WITH_EVIDENCE", "/evidence_register/items/0/evidence_status", STATUSES),
    ("SUPERSEDE", "/evidence_register/items/0", EVIDENCE),
    ("UPDATE_WITH_EVIDENCE", "/precommitment/created", st.booleans()),
    ("UPDATE_WITH_EVIDENCE", "/precommitment/disqualifiers/0", st.just("no equity cut")),
    ("ADD", "/precommitment/disqualifiers/-", st.just("no relocation")),
    ("UPDATE_WITH_EVIDENCE", "/precommitment/disqualifiers", st.just([])),
    ("ADD", "/precommitment/later_changes/-", LOG),
    ("UPDATE_WITH_EVIDENCE", "/meta/status", st.sampled_from(["closed", "no_deal", "paused"])),
    ("UPDATE_WITH_EVIDENCE", "/meta/lifecycle_stage", st.sampled_from(["CLOSED", "NO_DEAL"])),
    ("ADD", "/topics_targets_tradeoffs/topics/-", st.just({"topic": "Pay", "priority": "high"})),
    ("UPDATE_WITH_EVIDENCE", "/topics_targets_tradeoffs/topics/0/status", st.just("agreed")),
    ("ADD", "/strategy/current_strategy", st.just("Anchor high")),
    ("ADD", "/interests/counterpart/-", st.builds(
        lambda s: {"interest": "Budget", "priority": "high", "evidence_status": s}, STATUSES)),
]  # fmt: skip


@st.composite
def patches(draw: st.DrawFn) -> Patch:
    operation, path, value = draw(st.sampled_from(TARGETS))
    return Patch(
        patch_id=f"p{draw(st.integers(0, 5))}",
        operation=operation,
        path=path,
        proposed_value=draw(value),
        basis=draw(st.sampled_from(["", "they said so"])),
        evidence_refs=draw(st.sampled_from([[], ["evidence-1"]])),
    )


Set = tuple[Author, int, list[Patch]]
SEED: Set = (
    USER,
    0,
    [
        Patch(
            patch_id="seed-concession",
            operation="ADD",
            path="/concessions/ledger/-",
            proposed_value={"party": "counterpart", "topic": "topic-1", "conditional": False,
                            "reciprocal": "unknown"},
        ),
        Patch(
            patch_id="seed-evidence",
            operation="ADD",
            path="/evidence_register/items/-",
            proposed_value={"proposition": "Budget frozen", "materiality": "high"},
        ),
        Patch(
            patch_id="seed-precommitment",
            operation="ADD",
            path="/precommitment",
            proposed_value={"created": True, "disqualifiers": ["no pay cut"]},
        ),
    ],
)  # fmt: skip
"""Where every sequence starts: a concession, an evidence item and a made pre-commitment."""


@st.composite
def sets(draw: st.DrawFn) -> list[tuple[Author, int, list[Patch]]]:
    drawn = []
    for _ in range(draw(st.integers(1, 8))):
        batch = draw(st.lists(patches(), min_size=1, max_size=4, unique_by=lambda p: p.patch_id))
        drawn.append((draw(st.sampled_from(AUTHORS)), draw(st.integers(0, 2)), batch))
    return drawn


def play(drawn: list[Set], applied: list[Patch] | None = None) -> list[dict[str, Any]]:
    """Every version the sets make, from version 1; a set's base is `lag` versions back. The
    patches that applied are added to `applied`."""
    versions = [version_one("case-1", "Salary", START)]
    for index, (author, lag, batch) in enumerate([SEED, *drawn]):
        state = versions[-1]
        base = max(1, state["meta"]["state_version"] - lag)
        verdicts = validate(SetContext(state, base, author), batch)
        if applied is not None:
            ids = {patch_id for patch_id, _ in verdicts.applied}
            applied += [p for p in batch if p.patch_id in ids]
        made = next_version(
            state,
            verdicts,
            START + timedelta(minutes=index + 1),
            cause="patches_applied" if author.is_user else "skill_run",
            summary="set",
        )
        if made is not None:
            versions.append(made.document)
    return versions


def _ledger(state: dict[str, Any]) -> list[Any]:
    ledger: list[Any] = state["concessions"]["ledger"]
    return ledger


def _statuses(state: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    return {
        item["evidence_id"]: (item["evidence_status"], item["source_ref"])
        for item in state["evidence_register"]["items"]
    }


PRECOMMITTED = (
    "acceptance_criteria",
    "disqualifiers",
    "relationship_requirements",
    "fairness_or_independent_criteria_requirements",
    "implementation_risk_limits",
)


@settings(max_examples=300, deadline=None)
@given(sets())
def test_no_sequence_of_sets_breaks_an_invariant(drawn: list[Set]) -> None:
    applied: list[Patch] = []
    versions = play(drawn, applied)
    # nothing changed or raised without a reason
    for patch in applied:
        value = patch.proposed_value
        raised = isinstance(value, dict) and value.get("evidence_status", "UNKNOWN") != "UNKNOWN"
        if patch.operation != "ADD" or raised or patch.path.endswith("/evidence_status"):
            assert patch.basis.strip() or patch.evidence_refs, patch
    for before, after in pairwise(versions):
        NegotiationState.model_validate(after)
        # no concession deleted or rewritten: the ledger only grows
        assert _ledger(after)[: len(_ledger(before))] == _ledger(before)
        # no set closes a case
        assert after["meta"]["status"] not in ("closed", "no_deal")
        assert after["meta"]["lifecycle_stage"] not in ("CLOSED", "NO_DEAL")
        # a made pre-commitment moves only with an approved, reasoned change logged with it
        pre, post = before["precommitment"], after["precommitment"]
        if pre["created"]:
            assert post["created"]
            if any(pre[m] != post[m] for m in PRECOMMITTED):
                logged = post["later_changes"][len(pre["later_changes"]) :]
                assert any(c["approved_by_user"] and c["reason"].strip() for c in logged)
        # role-play stays a hypothesis
        for status, source in _statuses(after).values():
            if str(source or "").startswith(("roleplay:", "llm:")):
                assert EVIDENCE_RANK[status] <= EVIDENCE_RANK["HYPOTHESIS"]


@settings(max_examples=100, deadline=None)
@given(sets())
def test_every_version_is_reproduced_by_replaying_the_sets(drawn: list[Set]) -> None:
    assert play(drawn) == play(drawn)
    # and each version is its predecessor with its own set applied, nothing else carried over
    versions = play(drawn)
    numbers = [v["meta"]["state_version"] for v in versions]
    assert numbers == list(range(1, len(versions) + 1))
    assert [len(v["history"]["material_events"]) for v in versions] == numbers

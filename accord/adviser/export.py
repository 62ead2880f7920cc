"""The one-page brief (adviser-api.md, Export): one version of a case as Markdown a person can
print and take into the room. Lists show their first five entries by priority, then how many
more there are."""

from collections.abc import Sequence
from typing import Any

from accord.adviser.checks import checks
from accord.adviser.state import NegotiationState

FIRST = 5
PRIORITY = {"critical": 0, "high": 1, "medium": 2, "low": 3, "unknown": 4}
TESTS = (
    "interest_test",
    "batna_test",
    "independent_criteria_test",
    "hidden_timebomb_test",
    "priority_topic_test",
    "relationship_test",
    "implementation_test",
    "precommitment_test",
)


def brief(state: NegotiationState, questions: Sequence[dict[str, Any]] = ()) -> str:
    """Markdown for one version; `questions` are the case's open ones (kept beside the state)."""
    meta = state.meta
    lines = [
        f"# {_text(meta.title)}",
        "",
        f"{meta.lifecycle_stage} · version {meta.state_version} · "
        f"{meta.updated_at.date().isoformat()}",
        "",
        "## Objective",
        _or_none(state.objective.user_stated_objective),
        "",
        "## If there is no deal",
        f"- BATNA: {_or_none(state.alternatives.user.batna.description)}"
        + (
            f" ({_text(state.alternatives.user.batna.value)})"
            if state.alternatives.user.batna.value
            else ""
        ),
        f"- WATNA: {_or_none(state.alternatives.user.watna.description)}",
        "",
        "## Topics",
        *_topics(state),
        "",
        "## Interests",
        *_listed(
            [(i.priority, f"{_text(i.interest)} ({i.priority})") for i in state.interests.user]
        ),
        "",
        "## Pre-commitment",
        *_precommitment(state),
        "",
        "## Disclosure",
        *_disclosure(state),
        "",
        "## Offers",
        f"- Yours: {_or_none(state.proposals.current_user_offer)}",
        f"- Theirs: {_or_none(state.proposals.current_counterpart_offer)}",
        "",
        "## Last deal review",
        *_review(state),
        "",
        "## Next move",
        _or_none(state.strategy.recommended_next_move),
        "",
        "## Open questions",
        *_listed([(str(q["priority"]), _text(q["question"])) for q in questions]),
    ]
    return "\n".join(lines) + "\n"


def _topics(state: NegotiationState) -> list[str]:
    material = [
        t for t in state.topics_targets_tradeoffs.topics if t.priority in ("critical", "high")
    ]
    if not material:
        return ["None yet."]
    zones = {c["topic_id"]: c for c in checks(state) if c["check"] == "zopa"}
    rows = [
        "| topic | priority | target | minimum | their target | their walk-away | zone |",
        "|---|---|---|---|---|---|---|",
    ]
    for topic in sorted(material, key=lambda t: PRIORITY[t.priority])[:FIRST]:
        estimate = topic.x_accord.counterpart if topic.x_accord else None
        zone = zones[topic.topic_id]
        span = " to ".join(zone["zone"]) if zone["zone"] else zone["verdict"]
        cells = [
            topic.topic,
            topic.priority,
            topic.best_target.value,
            topic.minimum_acceptable.value,
            estimate.target if estimate else None,
            estimate.reservation if estimate else None,
            span,
        ]
        rows.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    if len(material) > FIRST:
        rows.append(f"\n+ {len(material) - FIRST} more")
    return rows


def _precommitment(state: NegotiationState) -> list[str]:
    pre = state.precommitment
    if not pre.created:
        return ["Not made yet."]
    entries = [
        (c.importance, f"{_text(c.criterion)}" + (f": {_text(c.threshold)}" if c.threshold else ""))
        for c in pre.acceptance_criteria
    ]
    lines = _listed([(PRIORITY_OF_IMPORTANCE[i], text) for i, text in entries])
    if pre.disqualifiers:
        lines += ["", "Walk away if:", *_listed([("", _text(d)) for d in pre.disqualifiers])]
    return lines


PRIORITY_OF_IMPORTANCE = {"critical": "critical", "important": "high", "desirable": "medium"}


def _disclosure(state: NegotiationState) -> list[str]:
    plan = state.x_accord.disclosure if state.x_accord else None
    if plan is None or not (plan.ask or plan.share or plan.never_reveal):
        return ["No plan yet. Your BATNA's value, every minimum and every threshold stay private."]
    return [
        f"- Find out: {_joined(plan.ask)}",
        f"- May share: {_joined(plan.share)}",
        f"- Never say: {_joined(plan.never_reveal)}",
    ]


def _review(state: NegotiationState) -> list[str]:
    review = state.deal_review
    if review.recommendation is None:
        return ["None yet."]
    failing = [
        f"{name.removesuffix('_test').replace('_', ' ')}: {getattr(review, name)}"
        for name in TESTS
        if getattr(review, name) not in ("pass", "not_run")
    ]
    return [
        f"- Recommendation: {review.recommendation}",
        f"- Not passed: {'; '.join(failing) or 'none'}",
        f"- Conditions: {_joined(review.conditions)}",
    ]


def _listed(entries: Sequence[tuple[str, str]]) -> list[str]:
    if not entries:
        return ["None."]
    ordered = sorted(entries, key=lambda e: PRIORITY.get(e[0], 5) if e[0] else 5)
    lines = [f"- {text}" for _, text in ordered[:FIRST]]
    if len(entries) > FIRST:
        lines.append(f"- + {len(entries) - FIRST} more")
    return lines


def _joined(values: Sequence[str]) -> str:
    shown = [_text(v) for v in values[:FIRST]]
    more = f" (+ {len(values) - FIRST} more)" if len(values) > FIRST else ""
    return "; ".join(shown) + more if shown else "nothing"


def _or_none(value: str | None) -> str:
    return _text(value) if value else "Not set."


def _text(value: str) -> str:
    """One line of text, its Markdown control characters shown as written."""
    flat = " ".join(value.split())
    return "".join("\\" + c if c in "\\`*_[]<>#|" else c for c in flat)


def _cell(value: str | None) -> str:
    return _text(value) if value else "–"

"""A case's versions (adviser-api.md, Versions, history, material changes): version 1 holds every
member of the schema, empty; each later version is the previous one with a set's valid patches
applied, one history event naming the pointers they wrote, and, when it moves what the user must
see, a material change."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from accord.adviser.patches import ROOT, Verdicts
from accord.adviser.pointers import value_at
from accord.adviser.schema import complete
from accord.core.times import format_time

CAUSES = frozenset(
    {
        "case_created",
        "patches_applied",
        "answer",
        "skill_run",
        "finding_reconciled",
        "deal_review",
        "table_update",
        "override",
        "closed",
    }
)
WATCHED = (
    "/strategy/current_strategy",
    "/strategy/recommended_next_move",
    "/alternatives/user/batna/description",
    "/alternatives/user/batna/value",
    "/parties/counterpart/authority_status/value",
    "/parties/counterpart/authority_status/evidence_status",
    "/deal_review/recommendation",
)
"""Material members outside the topics (state spec §5)."""
MATERIAL_PRIORITIES = ("critical", "high")


def version_one(
    case_id: str,
    title: str,
    at: datetime,
    *,
    analysis_depth: str = "STANDARD",
    description: str | None = None,
) -> dict[str, Any]:
    """The case as created: every member empty but the bookkeeping, the description standing as
    the user's stated objective, and the `case_created` event."""
    when = format_time(at)
    document: dict[str, Any] = complete(
        ROOT,
        {
            "meta": {
                "negotiation_id": case_id,
                "title": title,
                "state_version": 1,
                "lifecycle_stage": "NEW",
                "analysis_depth": analysis_depth,
                "status": "active",
                "created_at": when,
                "updated_at": when,
            },
            "objective": {"user_stated_objective": description},
            "alternatives": {"user": {"notional_batna": {"status": "not_used"}}},
            "deal_review": {"status": "not_required"},
            "x_accord": {"disclosure": {"ask": [], "share": [], "never_reveal": []}},
        },
    )
    changes = ["/objective/user_stated_objective"] if description else []
    document["history"]["material_events"].append(
        _event(1, when, "case_created", f"Case opened: {title}", None, changes, None)
    )
    return document


@dataclass(frozen=True, slots=True)
class Version:
    document: dict[str, Any]
    material: tuple[str, ...]
    """The material pointers that changed; empty when the version is not material."""


Reading = Callable[[dict[str, Any], str], object]
"""How a value compares (the Values reader); by default, as written."""


def next_version(
    previous: dict[str, Any],
    verdicts: Verdicts,
    at: datetime,
    *,
    cause: str,
    summary: str,
    source_ref: str | None = None,
    rationale: str | None = None,
    extra_changes: Sequence[str] = (),
    read: Reading | None = None,
) -> Version | None:
    """The version a set makes, or None when it applied nothing (a set with no valid patch makes
    no version)."""
    if cause not in CAUSES:
        raise ValueError(f"unknown cause {cause!r}")
    changes = [path for _, path in verdicts.applied] + list(extra_changes)
    if not changes:
        return None
    document = verdicts.document
    number = int(previous["meta"]["state_version"]) + 1
    when = format_time(at)
    document["meta"]["state_version"] = number
    document["meta"]["updated_at"] = when
    material = material_changes(previous, document, read)
    if document["meta"]["analysis_depth"] == "LIGHT":
        material = ()
    kind = "material_change" if material else cause
    document["history"]["material_events"].append(
        _event(number, when, kind, summary, source_ref, changes, rationale)
    )
    return Version(document, material)


def _event(
    number: int,
    when: str,
    kind: str,
    summary: str,
    source_ref: str | None,
    changes: Sequence[str],
    rationale: str | None,
) -> dict[str, Any]:
    return {
        "event_id": f"event-{number}",
        "timestamp": when,
        "type": kind,
        "summary": summary,
        "source_ref": source_ref,
        "state_changes": list(changes),
        "rationale": rationale,
    }


def material_changes(
    before: dict[str, Any], after: dict[str, Any], read: Reading | None = None
) -> tuple[str, ...]:
    """The material pointers whose values differ, values read as the Values section reads them;
    a topic counts when it is critical or high in either version, a new one included."""
    reader: Reading = read or value_at
    changed = [p for p in WATCHED if reader(before, p) != reader(after, p)]
    old = {t["topic_id"]: t for t in before["topics_targets_tradeoffs"]["topics"]}
    for topic in after["topics_targets_tradeoffs"]["topics"]:
        earlier = old.get(topic["topic_id"])
        priorities = {topic["priority"], earlier["priority"] if earlier else None}
        if not priorities & set(MATERIAL_PRIORITIES):
            continue
        base = f"/topics_targets_tradeoffs/topics/{topic['topic_id']}"
        for bound in ("best_target", "minimum_acceptable"):
            path = f"{base}/{bound}/value"
            if earlier is None and reader(after, path) is None:
                continue
            if earlier is None or reader(before, path) != reader(after, path):
                changed.append(path)
    return tuple(changed)

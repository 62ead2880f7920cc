"""The orchestrator's patch validation (adviser-api.md, Patches): a set of patches is validated in
order, each against the state with the set's earlier valid ones applied, and a refused patch gets
the first code of the table it meets. Pure: a state and a set in, the new document and a verdict
per patch out; making the version is `versions`'s."""

import copy
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import Field, JsonValue, ValidationError

from accord.adviser.pointers import (
    Location,
    PointerError,
    covers,
    locate,
    nodes_along,
    parse,
    render,
    valid_id,
    value_at,
)
from accord.adviser.schema import (
    BadValue,
    Shape,
    complete,
    is_empty,
    members,
    shape_of,
)
from accord.adviser.state import NegotiationState
from accord.adviser.words import warning_for
from accord.core import problems
from accord.core.strict import Strict

ROOT = shape_of(NegotiationState)
Operation = Literal["ADD", "UPDATE_WITH_EVIDENCE", "SUPERSEDE", "FLAG_CONTRADICTION"]
CODES = (
    "unknown_path",
    "close_without_event",
    "path_not_allowed",
    "stale_state_version",
    "specialist_cannot_accept",
    "append_only",
    "batna_in_options",
    "option_in_alternatives",
    "notional_in_batna",
    "invalid_value",
    "field_already_set",
    "precommitment_change_unlogged",
    "roleplay_not_evidence",
    "evidence_required",
)
"""The refusal codes in the order a patch is checked against them."""

EVIDENCE_RANK = {"UNKNOWN": 0, "HYPOTHESIS": 1, "SUPPORTED_INFERENCE": 2, "KNOWN": 3}
ACCORD_ONLY = tuple(
    parse(p)
    for p in (
        "/meta/negotiation_id",
        "/meta/state_version",
        "/meta/status",
        "/meta/created_at",
        "/meta/updated_at",
    )
)
DEAL_REVIEW = parse("/deal_review")
CLOSING = {"/meta/status": ("closed", "no_deal"), "/meta/lifecycle_stage": ("CLOSED", "NO_DEAL")}
APPEND_ONLY = tuple(
    parse(p)
    for p in ("/proposals/proposal_history", "/concessions/ledger", "/precommitment/later_changes")
)
ACCORD_WRITES = tuple(
    parse(p)
    for p in (
        "/history",
        "/roleplay/red_team_findings",
        "/roleplay/accepted_findings",
        "/roleplay/rejected_findings",
    )
)
PRECOMMITTED = tuple(
    parse("/precommitment/" + member)
    for member in (
        "acceptance_criteria",
        "disqualifiers",
        "relationship_requirements",
        "fairness_or_independent_criteria_requirements",
        "implementation_risk_limits",
    )
)
LATER_CHANGES = parse("/precommitment/later_changes")
CONTRADICTIONS = "/evidence_register/contradictions/-"
ROLEPLAY_SOURCES = ("roleplay:", "llm:")


class Patch(Strict):
    """One proposed change (skill spec §1), plus `x_finding_id` for a red-team patch to hold."""

    patch_id: str = Field(min_length=1, max_length=64)
    operation: Operation
    path: str = Field(max_length=1000)
    proposed_value: JsonValue = None
    basis: str = ""
    evidence_refs: list[str] = Field(default_factory=list)
    x_finding_id: str | None = None


@dataclass(frozen=True, slots=True)
class Author:
    """Who sends a set: the user (no skill), or a skill with its declared writes."""

    skill_id: str | None = None
    writes: tuple[str, ...] = ()
    red_team: bool = False
    holds_all: bool = False
    """The language-model skill: every valid patch waits for the user."""
    releasing: bool = False
    """The user accepted the finding the patches were held under: they apply now."""

    @property
    def is_user(self) -> bool:
        return self.skill_id is None

    def holds(self, canonical: tuple[str, ...]) -> bool:
        if self.releasing:
            return False
        return self.holds_all or (self.red_team and canonical[:1] == ("strategy",))


USER = Author()


@dataclass(frozen=True, slots=True)
class Refusal:
    patch_id: str
    code: str
    message: str


@dataclass(frozen=True, slots=True)
class Warning:
    patch_id: str
    code: str
    message: str


@dataclass(slots=True)
class Verdicts:
    """A set's outcome: the document with its valid patches applied and each patch's fate."""

    document: dict[str, Any]
    applied: list[tuple[str, str]] = field(default_factory=list)
    """(patch_id, the canonical pointer it wrote: ids in place of positions)."""
    refused: list[Refusal] = field(default_factory=list)
    held: list[tuple[Patch, str]] = field(default_factory=list)
    """(the patch, the finding it waits under)."""
    warnings: list[Warning] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class SetContext:
    state: dict[str, Any]
    """The current version, as JSON."""
    based_on: int
    author: Author = Author()
    findings: frozenset[str] = frozenset()
    """The ids of the findings in the response that brings the set."""


class Refused(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def validate(context: SetContext, patches: Sequence[Patch]) -> Verdicts:
    """Validate and apply a set; a pre-commitment change and the logged change that approves it
    apply or are refused together, the set being validated again without the pair."""
    excluded: dict[str, Refusal] = {}
    while True:
        verdicts, pairs = _run(context, patches, excluded)
        refused = {r.patch_id for r in verdicts.refused}
        broken = [(a, b) for a, b in pairs if (a in refused) != (b in refused)]
        if not broken:
            order = {p.patch_id: i for i, p in enumerate(patches)}
            verdicts.refused = sorted(
                [*verdicts.refused, *excluded.values()], key=lambda r: order[r.patch_id]
            )
            return verdicts
        for change, log in broken:
            gone, kept = (change, log) if change in refused else (log, change)
            reason = next(r for r in verdicts.refused if r.patch_id == gone)
            excluded[kept] = Refusal(kept, reason.code, f"refused with {gone}: {reason.message}")


def _run(
    context: SetContext, patches: Sequence[Patch], excluded: dict[str, Refusal]
) -> tuple[Verdicts, list[tuple[str, str]]]:
    verdicts = Verdicts(copy.deepcopy(context.state))
    pairs: list[tuple[str, str]] = []
    live = [p for p in patches if p.patch_id not in excluded]
    for patch in live:
        try:
            after, location, warnings = _check(context, verdicts.document, patch, live, pairs)
        except Refused as refusal:
            verdicts.refused.append(Refusal(patch.patch_id, refusal.code, refusal.message))
            continue
        verdicts.warnings += warnings
        if context.author.holds(location.canonical):
            verdicts.held.append((patch, patch.x_finding_id or ""))
            continue
        verdicts.document = after
        verdicts.applied.append((patch.patch_id, render(_written(location, after))))
    return verdicts, pairs


def _written(location: Location, after: dict[str, Any]) -> tuple[str, ...]:
    """The pointer a patch wrote: an appended item is named by its id, or its position."""
    if not location.appends:
        return location.canonical
    container = location.container
    assert isinstance(container, list)
    item = container[-1]
    id_member = location.shape.id_member
    return (*location.canonical, str(item[id_member]) if id_member else str(len(container) - 1))


# -- one patch --------------------------------------------------------------------------------


def _check(
    context: SetContext,
    before: dict[str, Any],
    patch: Patch,
    live: Sequence[Patch],
    pairs: list[tuple[str, str]],
) -> tuple[dict[str, Any], Location, list[Warning]]:
    """The patch's new document, where it wrote, and its warnings; `Refused` with the first
    code of the table the patch meets."""
    after = copy.deepcopy(before)
    try:
        location = locate(after, ROOT, patch.path)
    except PointerError as error:
        raise Refused("unknown_path", str(error)) from None
    pointer = location.canonical
    partner = _partner(context, pointer, patch, live)
    if partner is not None:  # paired before any check: the two apply or are refused together
        pairs.append((patch.patch_id, partner))
    old = copy.deepcopy(location.get()) if location.exists else None
    problem = _write(location, patch)  # an operation that does not fit waits for invalid_value
    new = _new(location) if problem is None else None
    author = context.author

    for path, values in CLOSING.items():
        closes = value_at(after, path) in values and value_at(before, path) not in values
        if covers(pointer, parse(path)) and closes:
            raise Refused("close_without_event", "only the close call closes a case")
    if not author.is_user and not any(covers_under(pointer, parse(w)) for w in author.writes):
        raise Refused("path_not_allowed", f"{author.skill_id} does not write {render(pointer)}")
    if any(covers(pointer, p) for p in ACCORD_ONLY) or (
        covers(pointer, DEAL_REVIEW) and author.skill_id != "F08"
    ):
        raise Refused("path_not_allowed", f"Accord alone writes {render(pointer)}")
    if context.based_on < _version(context.state) and not location.appends:
        events = context.state["history"]["material_events"][context.based_on :]
        for event in events:
            if any(covers(pointer, parse(p)) for p in event["state_changes"]):
                raise Refused(
                    "stale_state_version",
                    f"{render(pointer)} changed after version {context.based_on}",
                )
    if not author.is_user and _accepts(before, after):
        raise Refused("specialist_cannot_accept", "only the user agrees a topic or a trade")
    for protected in ACCORD_WRITES:
        if _touches(pointer, protected, before, after, appended=False):
            raise Refused("append_only", f"Accord alone writes {render(protected)}")
    for protected in APPEND_ONLY:
        if _touches(pointer, protected, before, after, appended=location.appends):
            raise Refused("append_only", f"{render(protected)} only takes appended items")
    _check_placement(pointer, patch.proposed_value)
    _check_value(context, before, after, location, patch, problem)
    if patch.operation == "ADD" and not location.appends and not is_empty(old, location.shape):
        raise Refused("field_already_set", f"{render(pointer)} is already set: update it")
    _check_precommitment(context, pointer, before, after, partner)
    _check_evidence(context, before, after, location, patch, old, new)
    return after, location, _warnings(pointer, patch)


def _new(location: Location) -> Any:
    """What is at the location after the write: the appended item when it appends."""
    if location.appends:
        assert isinstance(location.container, list)
        return location.container[-1]
    return location.get() if location.exists else None


def _touches(
    pointer: tuple[str, ...],
    protected: tuple[str, ...],
    before: dict[str, Any],
    after: dict[str, Any],
    *,
    appended: bool,
) -> bool:
    """Whether a write changes a protected list other than by appending to it (`appended`: the
    patch appends there; a write above the list counts only where the list changed)."""
    if len(pointer) < len(protected) and protected[: len(pointer)] == pointer:
        was, now = value_at(before, render(protected)), value_at(after, render(protected))
        kept = isinstance(was, list) and isinstance(now, list) and now[: len(was)] == was
        grew = kept and isinstance(now, list) and isinstance(was, list) and len(now) > len(was)
        return not kept or (grew and not appended and protected in ACCORD_WRITES)
    return covers(pointer, protected) and not (appended and pointer == protected)


def covers_under(pointer: tuple[str, ...], write: tuple[str, ...]) -> bool:
    return pointer[: len(write)] == write


def _version(state: dict[str, Any]) -> int:
    return int(state["meta"]["state_version"])


def _write(location: Location, patch: Patch) -> str | None:
    """Apply the patch at its location; what is wrong with the operation, or None."""
    value = patch.proposed_value
    container = location.container
    if patch.operation == "FLAG_CONTRADICTION":
        if render(location.canonical) + "/-" != CONTRADICTIONS or not location.appends:
            return f"FLAG_CONTRADICTION appends at {CONTRADICTIONS} only"
        if not isinstance(value, dict):
            return "a contradiction is an object"
        value = {**value, "status": "open", "resolution": None}
    if location.appends:
        if patch.operation not in ("ADD", "FLAG_CONTRADICTION"):
            return f"{patch.operation} does not append: ADD does"
        assert isinstance(container, list)
        try:
            item = complete(location.shape, value, container)
        except BadValue as error:
            return str(error)
        container.append(item)
        return None
    if patch.operation == "SUPERSEDE" and not location.in_list:
        return "SUPERSEDE replaces a list item"
    if isinstance(container, dict) and not location.exists and patch.operation != "ADD":
        return f"{render(location.canonical)} is not set: ADD it"  # an absent x_accord member
    siblings = container if isinstance(container, list) else None
    try:
        new = complete(location.shape, value, siblings, keep=location.get())
    except BadValue as error:
        return str(error)
    if isinstance(container, list):
        assert isinstance(location.key, int)
        container[location.key] = new
    else:
        container[str(location.key)] = new
    return None


def _accepts(before: dict[str, Any], after: dict[str, Any]) -> bool:
    def states(document: dict[str, Any]) -> set[tuple[str, str]]:
        ttt = document.get("topics_targets_tradeoffs")
        ttt = ttt if isinstance(ttt, dict) else {}
        found = set()
        for kind, member, accepted in (
            ("topics", "topic_id", ("agreed", "provisionally_agreed")),
            ("cross_topic_tradeoffs", "trade_id", ("accepted",)),
        ):
            items = ttt.get(kind)
            for item in items if isinstance(items, list) else []:
                if isinstance(item, dict) and item.get("status") in accepted:
                    found.add((kind, str(item.get(member))))
        return found

    return bool(states(after) - states(before))


def _check_placement(pointer: tuple[str, ...], value: Any) -> None:
    """Options and alternatives never mix (invariants 4 and 5), however deep the value."""
    for where, item in _objects(pointer, value):
        keys = item.keys()
        optional = {"option", "topics_affected"} & keys
        if where[:1] == ("options",) and {"description", "value"} & keys and not optional:
            raise Refused("batna_in_options", "an alternative to agreement is no option in it")
        if where[:1] == ("alternatives",) and optional:
            raise Refused(
                "option_in_alternatives", "an option inside an agreement is no alternative"
            )
        under_batna = where[:1] == ("alternatives",) and "batna" in where[2:3]
        if under_batna and {"probability", "timing", "cost", "downside"} & keys:
            raise Refused("notional_in_batna", "a hoped-for alternative is the notional BATNA")


def _objects(
    where: tuple[str, ...], value: Any
) -> Iterator[tuple[tuple[str, ...], dict[str, Any]]]:
    """Every object in a written value, with the pointer it lands at."""
    if isinstance(value, dict):
        yield where, value
        for key, inner in value.items():
            yield from _objects((*where, key), inner)
    elif isinstance(value, list):
        for position, inner in enumerate(value):
            yield from _objects((*where, str(position)), inner)


def _check_value(
    context: SetContext,
    before: dict[str, Any],
    after: dict[str, Any],
    location: Location,
    patch: Patch,
    problem: str | None,
) -> None:
    if problem is not None:
        raise Refused("invalid_value", problem)
    try:
        NegotiationState.model_validate(after)
    except ValidationError as error:
        first = error.errors()[0]
        where = "/".join(str(part) for part in first["loc"])
        raise Refused("invalid_value", f"/{where}: {problems.problem(first)}") from None
    for items, member in _lists(location, after):
        ids = [item.get(member) for item in items]
        if any(not valid_id(i) for i in ids):
            raise Refused(
                "invalid_value", "an id is 1-64 of A-Z a-z 0-9 _ . : - and not only digits"
            )
        if len(set(ids)) < len(ids):
            raise Refused("invalid_value", f"{member} repeats an id of its list")
    if patch.operation == "FLAG_CONTRADICTION":
        known = _ids(before, "evidence_register", "items", "evidence_id") | _ids(
            before, "facts_and_research", "established_facts", "fact_id"
        )
        item = location.container[-1] if isinstance(location.container, list) else {}
        for ref in ("proposition_a_ref", "proposition_b_ref"):
            if item.get(ref) not in known:
                raise Refused("invalid_value", f"{ref} names no evidence or fact")
    if before["precommitment"]["created"] and not after["precommitment"]["created"]:
        raise Refused("invalid_value", "a pre-commitment once made stays made")
    if context.author.holds(location.canonical) and patch.x_finding_id not in context.findings:
        raise Refused(
            "invalid_value", "a held patch names a finding of its response (x_finding_id)"
        )


def _lists(location: Location, after: dict[str, Any]) -> Iterator[tuple[list[Any], str]]:
    """The lists of items with ids that the write reached: the one it is in, and any inside it."""

    def walk(node: Any, shape: Shape) -> Iterator[tuple[list[Any], str]]:
        if shape.kind == "list" and isinstance(node, list) and shape.item:
            if shape.item.id_member:
                yield node, shape.item.id_member
            for item in node:
                yield from walk(item, shape.item)
        elif shape.kind == "model" and isinstance(node, dict) and shape.model:
            for key, member in members(shape.model).items():
                yield from walk(node.get(key), member)

    if location.in_list and location.shape.id_member and isinstance(location.container, list):
        yield location.container, location.shape.id_member
    yield from walk(_new(location), location.shape)


def _ids(document: dict[str, Any], section: str, name: str, member: str) -> set[str]:
    return {item[member] for item in document[section][name]}


def _check_precommitment(
    context: SetContext,
    pointer: tuple[str, ...],
    before: dict[str, Any],
    after: dict[str, Any],
    partner: str | None,
) -> None:
    if not context.state["precommitment"]["created"]:
        return
    changed = [
        p
        for p in PRECOMMITTED
        if covers(pointer, p) and value_at(before, render(p)) != value_at(after, render(p))
    ]
    if not changed:
        return
    if not context.author.is_user:
        raise Refused("precommitment_change_unlogged", "a skill never moves a pre-commitment")
    if partner is None:
        raise Refused(
            "precommitment_change_unlogged",
            f"{render(pointer)} is pre-committed: log the change at /precommitment/later_changes/-"
            " in the same set, with the reason and approved_by_user true",
        )


def _partner(
    context: SetContext, pointer: tuple[str, ...], patch: Patch, live: Sequence[Patch]
) -> str | None:
    """The logged change in the set that approves this pre-commitment change, if any."""
    if not context.state["precommitment"]["created"]:
        return None
    if not any(covers(pointer, p) for p in PRECOMMITTED):
        return None
    keys = {render(pointer), patch.path}
    if pointer[:2] == ("precommitment", "acceptance_criteria") and len(pointer) > 2:
        keys.add(pointer[2])
    return next((o.patch_id for o in live if o.patch_id != patch.patch_id and _logs(o, keys)), None)


def _logs(patch: Patch, keys: set[str]) -> bool:
    value = patch.proposed_value
    return (
        patch.operation == "ADD"
        and patch.path == render(LATER_CHANGES) + "/-"
        and isinstance(value, dict)
        and value.get("criterion_id") in keys
        and "previous_value" in value
        and "new_value" in value
        and bool(str(value.get("reason") or "").strip())
        and value.get("approved_by_user") is True
    )


def _check_evidence(
    context: SetContext,
    before: dict[str, Any],
    after: dict[str, Any],
    location: Location,
    patch: Patch,
    old: Any,
    new: Any,
) -> None:
    leaf = location.canonical[-1] if location.canonical else ""
    raised = [(was, now) for was, now in _statuses(old, new, leaf) if _rank(now) > _rank(was)]
    roleplay_items = {
        item["evidence_id"]
        for item in before["evidence_register"]["items"]
        if str(item.get("source_ref") or "").startswith(ROLEPLAY_SOURCES)
    }
    from_roleplay = (
        context.author.red_team
        or context.author.holds_all
        or any(str(s).startswith(ROLEPLAY_SOURCES) for s in _sources(new))
        or any(str(s).startswith(ROLEPLAY_SOURCES) for s in _enclosing_sources(after, location))
        or (bool(patch.evidence_refs) and set(patch.evidence_refs) <= roleplay_items)
    )
    if from_roleplay and any(_rank(now) > 1 for _, now in _statuses(None, new, leaf)):
        raise Refused("roleplay_not_evidence", "role-play output stays at HYPOTHESIS at most")
    needs = patch.operation in ("UPDATE_WITH_EVIDENCE", "SUPERSEDE") or bool(raised)
    if needs and not patch.basis.strip() and not patch.evidence_refs:
        raise Refused("evidence_required", "say why: a basis or evidence_refs")
    known = _ids(before, "evidence_register", "items", "evidence_id")
    missing = [ref for ref in patch.evidence_refs if ref not in known]
    if missing:
        raise Refused("evidence_required", f"no evidence item {missing[0]!r}")


def _enclosing_sources(after: dict[str, Any], location: Location) -> Iterator[Any]:
    """The `source_ref` of each object the write lands inside: raising the status of an item
    that came from role-play is role-play output too."""
    for node in nodes_along(after, location.canonical[:-1]):
        if isinstance(node, dict):
            yield node.get("source_ref")


def _rank(status: Any) -> int:
    return EVIDENCE_RANK.get(status, 0) if isinstance(status, str) else 0


def _statuses(old: Any, new: Any, key: str = "") -> Iterator[tuple[Any, Any]]:
    """Each evidence_status the write reached, before and after (absent before: UNKNOWN)."""
    if isinstance(new, dict):
        for member, value in new.items():
            was = old.get(member) if isinstance(old, dict) else None
            if member == "evidence_status":
                yield (was or "UNKNOWN"), value
            else:
                yield from _statuses(was, value, member)
    elif isinstance(new, list):
        olds = old if isinstance(old, list) else []
        for i, value in enumerate(new):
            yield from _statuses(olds[i] if i < len(olds) else None, value)
    elif key == "evidence_status":
        yield (old or "UNKNOWN"), new


def _sources(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for member, inner in value.items():
            if member == "source_ref":
                yield inner
            else:
                yield from _sources(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _sources(inner)


def _warnings(pointer: tuple[str, ...], patch: Patch) -> list[Warning]:
    found = warning_for(pointer, patch.proposed_value)
    return [] if found is None else [Warning(patch.patch_id, *found)]

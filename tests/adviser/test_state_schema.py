"""The adviser state models (`accord/adviser/state.py` and its sections) hold the schema's state
exactly: at every path of `data/negotiation-state.schema.yaml`, the same members, all required,
the same scalar types and enumerations, and the same array items; and a state is refused for any
member, value or change the schema does not allow."""

import copy
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from types import NoneType, UnionType
from typing import Annotated, Any, Final, Literal, Union, get_args, get_origin

import pytest
import yaml
from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo

from accord.adviser.enums import (
    AnalysisDepth,
    DealReviewStatus,
    EvidenceStatus,
    LifecycleStage,
    TopicStatus,
)
from accord.adviser.state import NegotiationState

SCHEMA_FILE: Final = Path(__file__).parent / "data" / "negotiation-state.schema.yaml"
SCHEMA: Final[Mapping[str, Any]] = yaml.safe_load(SCHEMA_FILE.read_text())["negotiation"]

NAMED: Final[Mapping[str, type[StrEnum]]] = {
    "evidence_status": EvidenceStatus,
    "analysis_depth": AnalysisDepth,
    "lifecycle_stage": LifecycleStage,
    "topic_status": TopicStatus,
    "deal_review_status": DealReviewStatus,
}
SECTION_2: Final[Mapping[str, list[str]]] = {
    # adviser-negotiation-state.md §2, the enumerations the schema names
    "evidence_status": ["KNOWN", "SUPPORTED_INFERENCE", "HYPOTHESIS", "UNKNOWN"],
    "analysis_depth": ["LIGHT", "STANDARD", "FULL"],
    "lifecycle_stage": [
        "NEW", "TRIAGE", "QUICK_ADVICE", "PREPARING", "STRATEGY_READY", "ENGAGED", "IMPASSE",
        "OFFER_RECEIVED", "DEAL_REVIEW", "PAUSED", "CLOSED", "NO_DEAL",
    ],
    "topic_status": ["open", "provisionally_agreed", "agreed", "withdrawn"],
    "deal_review_status": [
        "not_required", "required", "in_progress", "pass", "fail", "conditional",
        "insufficient_information",
    ],
}  # fmt: skip
SCALARS: Final[Mapping[str, type]] = {
    "string": str,
    "integer": int,
    "boolean": bool,
    "datetime": datetime,
}
EXTENDED: Final = frozenset(
    # adviser-api.md, `x_accord`: the only member beyond the schema, on these objects alone
    {
        "/",
        "/interests/user/*",
        "/interests/counterpart/*",
        "/interests/common/*",
        "/topics_targets_tradeoffs/topics/*",
        "/alternatives/user/batna",
        "/independent_criteria/*",
    }
)
T0: Final = "2026-09-01T12:00:00Z"

Shape = tuple[bool, object]
"""Whether null is allowed, and a type or the set of `(type, value)` an enumeration allows."""


# The schema and the models, walked together


@dataclass(frozen=True)
class Node:
    path: str
    schema: Mapping[str, Any]
    model: type[BaseModel]


def pointer(parent: str, name: str) -> str:
    return f"{parent.rstrip('/')}/{name}"


def members(model: type[BaseModel]) -> dict[str, FieldInfo]:
    """By wire name: `from` is the one member whose Python name differs."""
    return {field.alias or name: field for name, field in model.model_fields.items()}


def strip(annotation: Any) -> Any:
    while get_origin(annotation) is Annotated:
        annotation = get_args(annotation)[0]
    return annotation


def alternatives(annotation: Any) -> list[Any]:
    annotation = strip(annotation)
    if get_origin(annotation) in (Union, UnionType):
        return [strip(member) for member in get_args(annotation)]
    return [annotation]


def as_model(annotation: Any) -> type[BaseModel] | None:
    annotation = strip(annotation)
    is_model = isinstance(annotation, type) and issubclass(annotation, BaseModel)
    return annotation if is_model else None


def list_item(annotation: Any) -> Any:
    annotation = strip(annotation)
    return strip(get_args(annotation)[0]) if get_origin(annotation) is list else None


def walk(schema: Mapping[str, Any], model: type[BaseModel], path: str = "/") -> Iterator[Node]:
    """Every object of the schema that the models reach; one that they do not is missed here and
    named by `test_every_schema_object_has_a_model`."""
    yield Node(path, schema, model)
    fields = members(model)
    for name, member in schema.items():
        if name not in fields:
            continue
        annotation = fields[name].annotation
        if isinstance(member, dict) and (inner := as_model(annotation)):
            yield from walk(member, inner, pointer(path, name))
        elif isinstance(member, list) and (item := as_model(list_item(annotation))):
            yield from walk(member[0], item, pointer(path, name) + "/*")


def schema_objects(schema: Mapping[str, Any], path: str = "/") -> Iterator[str]:
    yield path
    for name, member in schema.items():
        if isinstance(member, dict):
            yield from schema_objects(member, pointer(path, name))
        elif isinstance(member, list) and isinstance(member[0], dict):
            yield from schema_objects(member[0], pointer(path, name) + "/*")


def schema_value(text: str) -> tuple[type, object]:
    if text in ("true", "false"):
        return bool, text == "true"
    return (int, int(text)) if text.isdigit() else (str, text)


def schema_shape(spec: str) -> Shape:
    """`string | null`, `lifecycle_stage`, `low | medium | high`, `1 | 2 | 3`…"""
    parts = spec.split(" | ")
    rest = [part for part in parts if part != "null"]
    if len(rest) == 1 and rest[0] in SCALARS:
        return "null" in parts, SCALARS[rest[0]]
    if len(rest) == 1 and rest[0] in NAMED:
        return "null" in parts, NAMED[rest[0]]
    return "null" in parts, frozenset(schema_value(part) for part in rest)


def model_shape(annotation: Any) -> Shape:
    options = alternatives(annotation)
    rest = [option for option in options if option is not NoneType]
    if len(rest) == 1 and get_origin(rest[0]) is not Literal:
        return NoneType in options, rest[0]
    values: set[object] = set()
    for option in rest:
        if get_origin(option) is Literal:
            values |= {(type(value), value) for value in get_args(option)}
        elif option is bool:
            values |= {(bool, True), (bool, False)}
        else:
            values.add(("not an enumeration", option))
    return NoneType in options, frozenset(values)


NODES: Final = list(walk(SCHEMA, NegotiationState))
SCALAR_MEMBERS: Final = [
    pytest.param(spec, members(node.model).get(name), id=pointer(node.path, name))
    for node in NODES
    for name, spec in node.schema.items()
    if isinstance(spec, str)
]
ARRAY_MEMBERS: Final = [
    pytest.param(spec[0], members(node.model).get(name), id=pointer(node.path, name))
    for node in NODES
    for name, spec in node.schema.items()
    if isinstance(spec, list)
]


def by_path(nodes: list[Node]) -> list[Any]:
    return [pytest.param(node, id=node.path) for node in nodes]


def test_every_schema_object_has_a_model() -> None:
    assert [node.path for node in NODES] == list(schema_objects(SCHEMA))


@pytest.mark.parametrize("node", by_path(NODES))
def test_object_has_the_schema_members(node: Node) -> None:
    extension = {"x_accord"} if node.path in EXTENDED else set()
    assert set(members(node.model)) == set(node.schema) | extension


@pytest.mark.parametrize("node", by_path(NODES))
def test_object_requires_every_schema_member(node: Node) -> None:
    required = {name for name, field in members(node.model).items() if field.is_required()}
    assert required == set(node.schema)


@pytest.mark.parametrize(("spec", "field"), SCALAR_MEMBERS)
def test_scalar_takes_the_schema_type_or_enumeration(spec: str, field: FieldInfo | None) -> None:
    assert field is not None, "no such member"
    assert model_shape(field.annotation) == schema_shape(spec)


@pytest.mark.parametrize(("item", "field"), ARRAY_MEMBERS)
def test_array_holds_the_schema_items(item: object, field: FieldInfo | None) -> None:
    assert field is not None, "no such member"
    inner = list_item(field.annotation)
    if isinstance(item, dict):
        assert as_model(inner) is not None, f"items are {inner!r}, not objects"
    else:
        assert inner is SCALARS[str(item)]


@pytest.mark.parametrize("name", list(SECTION_2))
def test_named_enumeration_has_the_spec_values(name: str) -> None:
    assert [member.value for member in NAMED[name]] == SECTION_2[name]


def test_extensions_sit_on_objects_of_the_schema() -> None:
    assert {node.path for node in NODES} >= EXTENDED


# A state, accepted and refused


def empty(spec: object) -> object:
    """Version 1's empty value (adviser-api.md): null, [], false, `not_run`, `unknown`, else the
    enumeration's first value."""
    if isinstance(spec, dict):
        return {name: empty(member) for name, member in spec.items()}
    if isinstance(spec, list):
        return []
    nullable, kind = schema_shape(str(spec))
    if nullable:
        return None
    if kind is bool:
        return False
    if isinstance(kind, type) and issubclass(kind, StrEnum):
        values: list[object] = [member.value for member in kind]
    elif isinstance(kind, frozenset):
        values = [schema_value(part)[1] for part in str(spec).split(" | ")]
    else:
        raise AssertionError(f"no empty value for {spec}")
    return next(
        (value for value in ("not_run", "unknown", "UNKNOWN") if value in values), values[0]
    )


def version_one() -> dict[str, Any]:
    meta = {
        "negotiation_id": "case-1",
        "title": "Renew the office lease",
        "state_version": 1,
        "lifecycle_stage": "NEW",
        "analysis_depth": "STANDARD",
        "status": "active",
        "created_at": T0,
        "updated_at": T0,
    }
    sections = {name: empty(member) for name, member in SCHEMA.items() if name != "meta"}
    disclosure: dict[str, list[str]] = {"ask": [], "share": [], "never_reveal": []}
    return {"meta": meta, **sections, "x_accord": {"disclosure": disclosure}}


REMOVE: Final = object()


def changed(at: tuple[str, ...], value: object) -> dict[str, Any]:
    state = copy.deepcopy(version_one())
    parent = state
    for name in at[:-1]:
        parent = parent[name]
    if value is REMOVE:
        del parent[at[-1]]
    else:
        parent[at[-1]] = value
    return state


CONCESSION: Final = {
    "concession_id": "concession-1",
    "timestamp": T0,
    "party": "counterpart",
    "topic": "topic-1",
    "from": "EUR 2,400.00",
    "to": "EUR 2,300.00",
    "stated_reason": None,
    "requested_exchange": None,
    "received_exchange": None,
    "conditional": False,
    "reciprocal": "unknown",
    "strategic_assessment": None,
    "source_event_id": "rooms:room-1#4",
}
UNKNOWN_1: Final = {"unknown_id": "u-1", "question": "Who signs?", "decision_impact": "authority"}
FINDING: Final = {"finding_id": "f-1", "finding": "They walk at 2,500"}


def test_version_one_is_a_valid_state_and_round_trips() -> None:
    document = version_one()
    state = NegotiationState.model_validate(document)
    assert state == NegotiationState.model_validate_json(json.dumps(document))
    assert state.meta.lifecycle_stage is LifecycleStage.NEW
    assert state.model_dump(mode="json", exclude_unset=True) == document


def test_a_concession_keeps_its_wire_member_from() -> None:
    state = NegotiationState.model_validate(changed(("concessions", "ledger"), [CONCESSION]))
    concession = state.concessions.ledger[0]
    assert concession.from_ == "EUR 2,400.00"
    assert concession.timestamp == datetime(2026, 9, 1, 12, tzinfo=UTC)
    assert state.model_dump(mode="json")["concessions"]["ledger"] == [CONCESSION]


@pytest.mark.parametrize(
    ("at", "value", "normal"),
    [
        pytest.param(("meta", "created_at"), "2026-09-01T14:00:00+02:00", T0, id="offset"),
        pytest.param(("meta", "created_at"), datetime(2026, 9, 1, 12, tzinfo=UTC), T0,
                     id="aware_datetime"),
        pytest.param(("meta", "lifecycle_stage"), LifecycleStage.TRIAGE, "TRIAGE",
                     id="enum_member"),
    ],
)  # fmt: skip
def test_values_are_held_in_their_wire_form(
    at: tuple[str, ...], value: object, normal: str
) -> None:
    state = NegotiationState.model_validate(changed(at, value))
    dumped: Any = state.model_dump(mode="json")
    for name in at:
        dumped = dumped[name]
    assert dumped == normal


@pytest.mark.parametrize(
    ("at", "value", "loc"),
    [
        pytest.param(("surprise",), "x", ("surprise",), id="unknown_member_at_the_root"),
        pytest.param(("meta", "colour"), "blue", ("meta", "colour"), id="unknown_member_nested"),
        pytest.param(("concessions", "ledger"), [{**CONCESSION, "mood": "calm"}],
                     ("concessions", "ledger", 0, "mood"), id="unknown_member_in_an_item"),
        pytest.param(("concessions", "ledger"), [{**CONCESSION, "from_": "EUR 1"}],
                     ("concessions", "ledger", 0, "from_"), id="python_name_for_from"),
        pytest.param(("x_accord",), {"disclosure": {"ask": [], "share": [], "never_reveal": []},
                                     "tone": "warm"},
                     ("x_accord", "tone"), id="unknown_member_in_x_accord"),
        pytest.param(("meta", "lifecycle_stage"), "DONE", ("meta", "lifecycle_stage"),
                     id="named_enumeration"),
        pytest.param(("alternatives", "user", "batna", "evidence_status"), "known",
                     ("alternatives", "user", "batna", "evidence_status"),
                     id="named_enumeration_in_another_case"),
        pytest.param(("objective", "relationship_importance"), "very high",
                     ("objective", "relationship_importance"), id="inline_enumeration"),
        pytest.param(("meta", "status"), "ACTIVE", ("meta", "status"),
                     id="inline_enumeration_in_another_case"),
        pytest.param(("roleplay", "red_team_findings"),
                     [{**FINDING, "reconciliation_status": "accept"}],
                     ("roleplay", "red_team_findings", 0, "reconciliation_status"),
                     id="enumeration_in_an_item"),
        pytest.param(("evidence_register", "unresolved_material_unknowns"),
                     [{**UNKNOWN_1, "priority": True}],
                     ("evidence_register", "unresolved_material_unknowns", 0, "priority"),
                     id="true_for_priority_1"),
        pytest.param(("evidence_register", "unresolved_material_unknowns"),
                     [{**UNKNOWN_1, "priority": 4}],
                     ("evidence_register", "unresolved_material_unknowns", 0, "priority"),
                     id="priority_4"),
        pytest.param(("concessions", "ledger"), [{**CONCESSION, "reciprocal": "yes"}],
                     ("concessions", "ledger", 0, "reciprocal"), id="reciprocal_yes"),
        pytest.param(("objective", "desired_outcome"), REMOVE, ("objective", "desired_outcome"),
                     id="nullable_member_left_out"),
        pytest.param(("history",), REMOVE, ("history",), id="section_left_out"),
        pytest.param(("meta", "title"), None, ("meta", "title"), id="null_for_a_string"),
        pytest.param(("parties", "user", "role"), 5, ("parties", "user", "role"),
                     id="number_for_a_string"),
        pytest.param(("meta", "state_version"), True, ("meta", "state_version"),
                     id="boolean_for_an_integer"),
        pytest.param(("meta", "state_version"), "1", ("meta", "state_version"),
                     id="string_for_an_integer"),
        pytest.param(("precommitment", "created"), "false", ("precommitment", "created"),
                     id="string_for_a_boolean"),
        pytest.param(("meta", "created_at"), "2026-09-01T12:00:00", ("meta", "created_at"),
                     id="timestamp_without_offset"),
        pytest.param(("meta", "created_at"), datetime(2026, 9, 1, 12), ("meta", "created_at"),
                     id="naive_datetime"),
        pytest.param(("meta", "updated_at"), "2026-09-01", ("meta", "updated_at"),
                     id="date_for_a_timestamp"),
        pytest.param(("stakeholders",), {}, ("stakeholders",), id="object_for_an_array"),
        pytest.param(("strategy", "assumptions"), [None], ("strategy", "assumptions", 0),
                     id="null_in_an_array_of_strings"),
    ],
)  # fmt: skip
def test_invalid_state_is_refused(at: tuple[str, ...], value: object, loc: tuple[Any, ...]) -> None:
    with pytest.raises(ValidationError) as refused:
        NegotiationState.model_validate(changed(at, value))
    assert any(error["loc"][: len(loc)] == loc for error in refused.value.errors()), (
        refused.value.errors()
    )


def test_a_state_cannot_be_changed_in_place() -> None:
    state = NegotiationState.model_validate(version_one())
    with pytest.raises(ValidationError, match="frozen"):
        state.history = state.history  # type: ignore[misc]  # proving the model is frozen
    with pytest.raises(ValidationError, match="frozen"):
        state.meta.title = "Another title"  # type: ignore[misc]  # proving the model is frozen
    assert state.meta.title == "Renew the office lease"

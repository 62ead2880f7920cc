"""Subject schemas, terms and limits: validation, normalisation and comparison.

DESIGN.md, Rooms: fields `[a-z0-9_]{1,64}`, at most 32, typed string, int, bool, enum, date,
timerange or money; terms normalised before hashing so that equal terms hash equally.
"""

import re
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Annotated, Any, Final, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    TypeAdapter,
    ValidationError,
    model_validator,
)
from pydantic_core import ErrorDetails

from accord.core.jsonio import JSON, MAX_SAFE_INTEGER
from accord.core.money import is_amount_minor, is_currency
from accord.core.times import RFC3339, format_time, parse_time

DATE: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
MAX_FIELDS: Final = 32
MAX_STRING: Final = 2000
MAX_LABEL: Final = 200
MAX_ENUM_VALUES: Final = 100
TYPES: Final = ("string", "int", "bool", "enum", "date", "timerange", "money")
RANGE_TYPES: Final = frozenset({"int", "money", "date", "timerange"})

Problems = dict[str, str]
"""Field path → what is wrong with it, in a sentence a person can act on."""


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# -- the subject schema: one strict model per type of field ----------------------------------

Label = Annotated[str, StringConstraints(min_length=1, max_length=MAX_LABEL)]
FieldName = Annotated[str, StringConstraints(pattern=r"^[a-z0-9_]{1,64}$")]
# Members a field may have, in the order its problems are told (the first one found is).
MEMBERS: Final = ("type", "label", "optional", "values", "currency")
_NULL_IS_ABSENT: Final = frozenset({"values", "currency"})


def _distinct(values: list[str]) -> list[str]:
    if len(set(values)) != len(values):
        raise ValueError("the values must be distinct")
    return values


def _currency(code: str) -> str:
    if not is_currency(code):
        raise ValueError("not an ISO 4217 code with minor units")
    return code


class _Field(BaseModel):
    """What every field may have besides its type: a label, and whether it may be absent."""

    model_config = ConfigDict(strict=True, frozen=True, extra="forbid")

    label: Label | None = None
    optional: bool = False

    @model_validator(mode="before")
    @classmethod
    def _null_is_absent(cls, data: Any) -> Any:
        """`values: null` and `currency: null` count as absent, on a field of any type."""
        if isinstance(data, dict):
            return {k: v for k, v in data.items() if v is not None or k not in _NULL_IS_ABSENT}
        return data


class StringField(_Field):
    type: Literal["string"]


class IntField(_Field):
    type: Literal["int"]


class BoolField(_Field):
    type: Literal["bool"]


class EnumField(_Field):
    type: Literal["enum"]
    values: Annotated[
        list[Label], Field(min_length=1, max_length=MAX_ENUM_VALUES), AfterValidator(_distinct)
    ]


class DateField(_Field):
    type: Literal["date"]


class TimerangeField(_Field):
    type: Literal["timerange"]


class MoneyField(_Field):
    type: Literal["money"]
    currency: Annotated[str, AfterValidator(_currency)]


FieldSpec = Annotated[
    StringField | IntField | BoolField | EnumField | DateField | TimerangeField | MoneyField,
    Field(discriminator="type"),
]
# The number of fields is counted apart: pydantic's max_length would hide the fields' problems.
SUBJECT_SCHEMA: Final[TypeAdapter[dict[str, Any]]] = TypeAdapter(
    Annotated[dict[FieldName, FieldSpec], Field(min_length=1)]
)

_WRONG: Final = {
    "label": f"label must be a string of 1-{MAX_LABEL} characters",
    "optional": "optional must be true or false",
    "values": f"an enum needs values: 1-{MAX_ENUM_VALUES} distinct non-empty strings",
    "currency": "a money field needs currency: an ISO 4217 code with minor units, like EUR",
}
_MISPLACED: Final = {
    "values": "values is only for enum fields",
    "currency": "currency is only for money fields",
}


def validate_schema(schema: object) -> Problems:
    """Problems with a subject schema, keyed by `subject_schema.<field>`; empty when valid."""
    problems: Problems = {}
    if isinstance(schema, dict) and len(schema) > MAX_FIELDS:
        problems["subject_schema"] = f"at most {MAX_FIELDS} fields"
    try:
        SUBJECT_SCHEMA.validate_python(schema)
    except ValidationError as exc:
        by_field: dict[str, list[ErrorDetails]] = {}
        for error in exc.errors():
            if not error["loc"]:
                problems["subject_schema"] = "give an object with at least one field"
            else:
                by_field.setdefault(str(error["loc"][0]), []).append(error)
        for name, errors in by_field.items():
            problems[f"subject_schema.{name}"] = _field_problem(errors)
    return problems


def _field_problem(errors: Sequence[ErrorDetails]) -> str:
    """One sentence for one field's errors, whose locations are (name, "[key]") for the name,
    (name,) for the field as a whole and (name, type, member, ...) for one of its members."""
    if any(error["loc"][1:] == ("[key]",) for error in errors):
        return "field names are 1-64 characters of a-z, 0-9 and _"
    members = {str(e["loc"][2]): e["type"] for e in errors if len(e["loc"]) > 2}
    if not members and isinstance(spec := errors[0]["input"], dict):
        # With no type to pick a model by, its unknown members still come first.
        members = {str(m): "extra_forbidden" for m in spec.keys() - set(MEMBERS)}
    if not members:
        if any(error["type"].startswith("union_tag_") for error in errors):
            return f"type must be one of {list(TYPES)}"
        return "describe the field as an object with a type"
    if unknown := sorted(members.keys() - set(MEMBERS)):
        return f"unknown members {unknown}; allowed are {sorted(MEMBERS)}"
    member = min(members, key=MEMBERS.index)
    return (_MISPLACED if members[member] == "extra_forbidden" else _WRONG)[member]


def _normal_time(value: object) -> str | None:
    if not isinstance(value, str):
        return None
    match = RFC3339.fullmatch(value)
    # Whole seconds only, however many fraction digits: parse_time keeps just six of them.
    if match is None or (match.group(2) or "").strip("0"):
        return None
    try:
        at = parse_time(value)
    except ValueError:
        return None
    return format_time(at)


def _normal_date(value: object) -> str | None:
    # fromisoformat also reads week dates like 2026-W49-1; the wire form is YYYY-MM-DD only.
    if not (isinstance(value, str) and DATE.fullmatch(value)):
        return None
    try:
        return date.fromisoformat(value).isoformat()
    except ValueError:
        return None


def normalize_value(spec: Mapping[str, Any], value: object) -> tuple[JSON, str | None]:
    """The value in normal form, or a problem sentence."""
    kind = spec["type"]
    if kind == "string":
        if isinstance(value, str) and len(value) <= MAX_STRING:
            return value, None
        return None, f"a string of at most {MAX_STRING} characters"
    if kind == "int":
        if _is_int(value) and abs(value) <= MAX_SAFE_INTEGER:  # type: ignore[arg-type]
            return value, None
        return None, "an integer within ±(2^53−1)"
    if kind == "bool":
        if isinstance(value, bool):
            return value, None
        return None, "true or false"
    if kind == "enum":
        if isinstance(value, str) and value in spec["values"]:
            return value, None
        return None, f"one of {spec['values']}"
    if kind == "date":
        normal = _normal_date(value)
        return (normal, None) if normal else (None, "a date written YYYY-MM-DD")
    if kind == "timerange":
        problem = "an object {start, end} of RFC 3339 times (whole seconds), start before end"
        if not (isinstance(value, dict) and value.keys() == {"start", "end"}):
            return None, problem
        start, end = _normal_time(value["start"]), _normal_time(value["end"])
        if start is None or end is None or not start < end:
            return None, problem
        return {"start": start, "end": end}, None
    if kind == "money":
        currency = spec["currency"]
        problem = f"an object {{amount_minor, currency}}: a non-negative integer in {currency}"
        if not (isinstance(value, dict) and value.keys() == {"amount_minor", "currency"}):
            return None, problem
        if value["currency"] != currency or not is_amount_minor(value["amount_minor"]):
            return None, problem
        return {"amount_minor": value["amount_minor"], "currency": currency}, None
    raise AssertionError(f"unknown field type {kind!r}")


def normalize_terms(schema: Mapping[str, Any], terms: object) -> tuple[dict[str, JSON], Problems]:
    """Terms in normal form (absent optional fields omitted, never null), or their problems."""
    if not isinstance(terms, dict):
        return {}, {"terms": "give the terms as an object, one member per field"}
    problems: Problems = {}
    normal: dict[str, JSON] = {}
    for name in sorted(terms.keys() - schema.keys()):
        problems[f"terms.{name}"] = "not a field of this room's subject schema"
    for name, spec in schema.items():
        if name not in terms or terms[name] is None:
            if not spec.get("optional", False):
                problems[f"terms.{name}"] = "required"
            continue
        value, problem = normalize_value(spec, terms[name])
        if problem:
            problems[f"terms.{name}"] = f"must be {problem}"
        else:
            normal[name] = value
    return normal, problems


def _bound(kind: str, value: JSON) -> JSON:
    """The comparable part of a bound or term value."""
    return value["amount_minor"] if kind == "money" else value


def normalize_limits(schema: Mapping[str, Any], limits: object) -> tuple[dict[str, JSON], Problems]:
    """A seat's limits in normal form, or their problems (keyed `limits.<field>`)."""
    if limits is None:
        return {}, {}
    if not isinstance(limits, dict):
        return {}, {"limits": "give limits as an object, one member per field"}
    problems: Problems = {}
    normal: dict[str, JSON] = {}
    for name, limit in limits.items():
        path = f"limits.{name}"
        spec = schema.get(name)
        if spec is None:
            problems[path] = "not a field of this room's subject schema"
            continue
        value, problem = _normalize_limit(spec, limit)
        if problem:
            problems[path] = problem
        else:
            normal[name] = value
    return normal, problems


def _normalize_limit(spec: Mapping[str, Any], limit: object) -> tuple[JSON, str | None]:
    kind = spec["type"]
    if not isinstance(limit, dict):
        return None, "give the limit as an object"
    if kind in RANGE_TYPES:
        if not limit or not limit.keys() <= {"min", "max"}:
            return None, "a range limit is {min?, max?} with at least one bound"
        normal: dict[str, JSON] = {}
        for key, value in limit.items():
            if kind == "timerange":  # its bounds are instants that start and end must keep
                bound: JSON = _normal_time(value)
                problem = None if bound else "an RFC 3339 time in whole seconds"
            else:
                bound, problem = normalize_value(spec, value)
            if problem:
                return None, f"{key} must be {problem}"
            normal[key] = bound
        if (
            "min" in normal
            and "max" in normal
            and _bound(kind, normal["min"]) > _bound(kind, normal["max"])
        ):
            return None, "min must not be above max"
        return normal, None
    if kind == "enum":
        one_of = limit.get("one_of")
        if not (
            limit.keys() == {"one_of"}
            and isinstance(one_of, list)
            and one_of
            and all(isinstance(v, str) and v in spec["values"] for v in one_of)
            and len(set(one_of)) == len(one_of)
        ):
            return None, f"an enum limit is {{one_of}}: distinct values of {spec['values']}"
        return {"one_of": sorted(one_of)}, None
    if kind == "bool":
        if limit.keys() != {"equals"} or not isinstance(limit["equals"], bool):
            return None, "a bool limit is {equals: true|false}"
        return {"equals": limit["equals"]}, None
    return None, f"a {kind} field takes no limits"


def outside_limits(
    schema: Mapping[str, Any], limits: Mapping[str, Any], terms: Mapping[str, Any]
) -> list[str]:
    """Fields of `terms` that break `limits`, sorted; an absent optional field breaks none."""
    fields = []
    for name, limit in limits.items():
        if name not in terms or name not in schema:
            continue
        kind = schema[name]["type"]
        value = terms[name]
        if kind in RANGE_TYPES:
            points = [value["start"], value["end"]] if kind == "timerange" else [value]
            low, high = limit.get("min"), limit.get("max")
            for point in points:
                if low is not None and _bound(kind, point) < _bound(kind, low):
                    fields.append(name)
                    break
                if high is not None and _bound(kind, point) > _bound(kind, high):
                    fields.append(name)
                    break
        elif kind == "enum":
            if value not in limit["one_of"]:
                fields.append(name)
        elif kind == "bool" and value != limit["equals"]:
            fields.append(name)
    return sorted(fields)


def incompatible_fields(
    schema: Mapping[str, Any], first: Mapping[str, Any], second: Mapping[str, Any]
) -> list[str]:
    """Fields whose two limits cannot both hold for any value (named, never the numbers)."""
    fields = []
    for name in sorted(first.keys() & second.keys()):
        kind = schema[name]["type"]
        a, b = first[name], second[name]
        if kind in RANGE_TYPES:
            lows = [_bound(kind, x["min"]) for x in (a, b) if "min" in x]
            highs = [_bound(kind, x["max"]) for x in (a, b) if "max" in x]
            if lows and highs:
                low, high = max(lows), min(highs)
                # A timerange needs start before end, so its window must have room.
                if low > high or (kind == "timerange" and low == high):
                    fields.append(name)
        elif kind == "enum":
            if not set(a["one_of"]) & set(b["one_of"]):
                fields.append(name)
        elif kind == "bool" and a["equals"] != b["equals"]:
            fields.append(name)
    return fields

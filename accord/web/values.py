"""A room's terms as form controls and back: each schema field's value as the text a control
shows, and a submitted form's texts as terms the protocol then checks (a text that is not a
value of its type is named here, beside its field); and any form's values as the strict body a
service takes."""

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from accord.core.money import currency_exponent
from accord.core.problems import problems
from accord.core.refusals import RefusalCode, refuse

JSON = Any


def control_value(spec: Mapping[str, Any], value: JSON) -> str | dict[str, str]:
    """What a control shows for a value (a timerange shows two)."""
    kind = spec["type"]
    if value is None:
        return {"start": "", "end": ""} if kind == "timerange" else ""
    if kind == "money":
        exponent = currency_exponent(spec["currency"]) or 0
        amount = Decimal(value["amount_minor"]).scaleb(-exponent)
        return f"{amount:.{exponent}f}"
    if kind == "timerange":
        return {"start": value["start"], "end": value["end"]}
    if kind == "bool":
        return "yes" if value else "no"
    return str(value)


def parsed_field(spec: Mapping[str, Any], form: Mapping[str, str], name: str) -> tuple[JSON, str]:
    """The field's value from the form (None when left empty), or what is wrong with it."""
    kind = spec["type"]
    if kind == "timerange":
        start, end = form.get(f"{name}.start", "").strip(), form.get(f"{name}.end", "").strip()
        if not start and not end:
            return None, ""
        return {"start": start, "end": end}, ""
    text = form.get(name, "").strip()
    if not text:
        return None, ""
    if kind == "money":
        exponent = currency_exponent(spec["currency"]) or 0
        try:
            amount = Decimal(text.replace(",", ""))
        except InvalidOperation:
            return None, f"an amount in {spec['currency']}, such as 420.00"
        minor = amount.scaleb(exponent)
        if minor != minor.to_integral_value() or minor < 0:
            return None, f"an amount in {spec['currency']} with at most {exponent} decimals"
        return {"amount_minor": int(minor), "currency": spec["currency"]}, ""
    if kind == "int":
        try:
            return int(text), ""
        except ValueError:
            return None, "a whole number"
    if kind == "bool":
        if text not in ("yes", "no"):
            return None, "yes or no"
        return text == "yes", ""
    return text, ""


def parsed_terms(
    schema: Mapping[str, Mapping[str, Any]], form: Mapping[str, str]
) -> tuple[dict[str, JSON], dict[str, str]]:
    """Terms from a counter's form, and a problem per field that is not a value of its type."""
    terms: dict[str, JSON] = {}
    problems: dict[str, str] = {}
    for name, spec in schema.items():
        value, problem = parsed_field(spec, form, name)
        if problem:
            problems[name] = problem
        elif value is not None:
            terms[name] = value
    return terms, problems


RANGE_KINDS = ("int", "money", "date")


def parsed_limits(
    schema: Mapping[str, Mapping[str, Any]], form: Mapping[str, list[str]]
) -> tuple[dict[str, JSON], dict[str, str]]:
    """A seat's private limits from a form: `limit.<field>.min` and `.max` for numbers, money
    and dates, `limit.<field>.one_of` (checked values) for a choice, `limit.<field>.equals`
    for yes or no. A field left empty has no limit."""
    first = {key: values[0] for key, values in form.items() if values}
    limits: dict[str, JSON] = {}
    problems: dict[str, str] = {}
    for name, spec in schema.items():
        kind = spec["type"]
        if kind in RANGE_KINDS:
            bounds: dict[str, JSON] = {}
            for bound in ("min", "max"):
                value, problem = parsed_field(spec, first, f"limit.{name}.{bound}")
                if problem:
                    problems[f"limits.{name}"] = f"{bound}: {problem}"
                elif value is not None:
                    bounds[bound] = value
            if bounds:
                limits[name] = bounds
        elif kind == "enum":
            chosen = [v for v in form.get(f"limit.{name}.one_of", []) if v in spec["values"]]
            if chosen:
                limits[name] = {"one_of": chosen}
        elif kind == "bool":
            value, problem = parsed_field(spec, first, f"limit.{name}.equals")
            if problem:
                problems[f"limits.{name}"] = problem
            elif value is not None:
                limits[name] = {"equals": value}
    return limits, problems


FIELD_ROWS = 6
FIELD_TYPES = ("money", "int", "date", "enum", "bool", "string", "timerange")


def parsed_schema(form: Mapping[str, str]) -> tuple[dict[str, JSON], dict[str, str]]:
    """A subject schema from the builder's rows (`field.<n>.name`, `.label`, `.type`,
    `.currency`, `.values`, `.optional`); rows without a name are left out. The protocol
    checks the rest."""
    schema: dict[str, JSON] = {}
    problems: dict[str, str] = {}
    for row in range(FIELD_ROWS):
        name = form.get(f"field.{row}.name", "").strip()
        if not name:
            continue
        kind = form.get(f"field.{row}.type", "string")
        spec: dict[str, JSON] = {"type": kind}
        label = form.get(f"field.{row}.label", "").strip()
        if label:
            spec["label"] = label
        if kind == "money":
            spec["currency"] = form.get(f"field.{row}.currency", "").strip().upper()
        if kind == "enum":
            spec["values"] = [
                v.strip() for v in form.get(f"field.{row}.values", "").split(",") if v.strip()
            ]
        if form.get(f"field.{row}.optional"):
            spec["optional"] = True
        if name in schema:
            problems[f"subject_schema.{name}"] = "two fields have this name"
        schema[name] = spec
    if not schema and not problems:
        problems["subject_schema"] = "name at least one field"
    return schema, problems


M = TypeVar("M", bound=BaseModel)


def checked(model: type[M], **values: Any) -> M:
    """A form's values as the body a service takes; what does not fit is `invalid_request`
    with a message per field, as the API's refusal says it (never a server error)."""
    try:
        return model(**values)
    except ValidationError as invalid:
        fields = problems(invalid, whole="form")
        raise refuse(
            RefusalCode.INVALID_REQUEST, "Fix the form: see what is wrong below.", fields=fields
        ) from None

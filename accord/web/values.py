"""A room's terms as form controls and back: each schema field's value as the text a control
shows, and a submitted form's texts as terms the protocol then checks (a text that is not a
value of its type is named here, beside its field)."""

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from accord.core.money import currency_exponent

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

"""Reading what a person types for `accord rooms`: schemas in a compact form, terms as JSON or
field=value pairs read by field type, invites as a token or a whole URL."""

import json
import re
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any, Final

import typer

from accord.core.money import currency_exponent

_PAIR_SPLIT: Final = re.compile(r",(?=[a-z0-9_]{1,64}=)")
_INVITE_IN_URL: Final = re.compile(r"#(?P<token>[^#\s]+)$")


def json_value(text: str, option: str) -> Any:
    """Inline JSON, or the path of a JSON file."""
    stripped = text.strip()
    if not stripped.startswith(("{", "[")):
        path = Path(text).expanduser()
        if not path.is_file():
            raise typer.BadParameter("give JSON or the path of a JSON file", param_hint=option)
        try:
            stripped = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise typer.BadParameter(
                f"cannot read {path}: {exc.strerror}", param_hint=option
            ) from None
    try:
        return json.loads(stripped)
    except ValueError as exc:
        raise typer.BadParameter(f"not JSON: {exc}", param_hint=option) from None


def json_object(text: str, option: str) -> dict[str, Any]:
    value = json_value(text, option)
    if not isinstance(value, dict):
        raise typer.BadParameter("give a JSON object", param_hint=option)
    return value


def looks_like_json(text: str) -> bool:
    stripped = text.strip()
    return stripped.startswith("{") or (stripped.endswith(".json") and "=" not in stripped)


def parse_schema(text: str) -> dict[str, Any]:
    """A subject schema: JSON, a JSON file, or `price:money:EUR,day:date,size:enum:S|M|L`
    (a `?` after a name makes the field optional: `note?:string`)."""
    if looks_like_json(text) or Path(text).expanduser().is_file():
        return json_object(text, "--schema")
    schema: dict[str, Any] = {}
    for item in text.split(","):
        name, _, rest = item.strip().partition(":")
        kind, _, argument = rest.partition(":")
        optional = name.endswith("?")
        name = name.removesuffix("?")
        if not name or not kind:
            raise typer.BadParameter(
                f"{item!r}: write name:type, like price:money:EUR or day:date",
                param_hint="--schema",
            )
        spec: dict[str, Any] = {"type": kind}
        if kind == "money":
            spec["currency"] = argument
        elif kind == "enum":
            spec["values"] = argument.split("|")
        elif argument:
            raise typer.BadParameter(
                f"{item!r}: only money (currency) and enum (values) take a third part",
                param_hint="--schema",
            )
        if optional:
            spec["optional"] = True
        schema[name] = spec
    return schema


def parse_terms(values: Sequence[str], schema: Mapping[str, Any], option: str) -> dict[str, Any]:
    """Terms: one JSON object (or file), or `field=value` pairs, repeated or comma-separated,
    read by the field's type: `price=90.00` (or `90.00 EUR`), `when=START/END`, `paid=yes`."""
    if len(values) == 1 and looks_like_json(values[0]):
        return json_object(values[0], option)
    terms: dict[str, Any] = {}
    for value in values:
        for pair in _PAIR_SPLIT.split(value):
            name, equals, raw = pair.partition("=")
            name = name.strip()
            if not equals:
                raise typer.BadParameter(
                    f"{pair!r}: write field=value, or give the terms as JSON", param_hint=option
                )
            spec = schema.get(name)
            if not isinstance(spec, dict):
                raise typer.BadParameter(
                    f"{name!r} is not a field; the fields are {', '.join(schema)}",
                    param_hint=option,
                )
            terms[name] = _field_value(name, spec, raw, option)
    return terms


def _field_value(name: str, spec: Mapping[str, Any], raw: str, option: str) -> Any:
    if raw.strip().startswith("{"):
        return json_object(raw, option)
    kind = spec.get("type")
    text = raw.strip()
    if kind == "money":
        currency = spec.get("currency")
        return {"amount_minor": _amount_minor(name, text, currency, option), "currency": currency}
    if kind == "int":
        try:
            return int(text)
        except ValueError:
            raise typer.BadParameter(f"{name} is a whole number", param_hint=option) from None
    if kind == "bool":
        lowered = text.lower()
        if lowered in ("true", "yes", "y", "1"):
            return True
        if lowered in ("false", "no", "n", "0"):
            return False
        raise typer.BadParameter(f"{name} is yes or no", param_hint=option)
    if kind == "timerange":
        start, slash, end = text.partition("/")
        if not slash:
            raise typer.BadParameter(f"{name} is START/END (RFC 3339)", param_hint=option)
        return {"start": start.strip(), "end": end.strip()}
    return raw  # string, enum, date: the server judges them


def _amount_minor(name: str, text: str, currency: object, option: str) -> int:
    """`90`, `90.5` or `90.50 EUR` → minor units of the field's currency."""
    if not isinstance(currency, str):
        raise typer.BadParameter(f"{name} has no currency in the schema", param_hint=option)
    number, _, code = text.partition(" ")
    if code.strip() and code.strip() != currency:
        raise typer.BadParameter(f"{name} is in {currency}", param_hint=option)
    exponent = currency_exponent(currency) or 0
    try:
        amount = Decimal(number) * 10**exponent
    except InvalidOperation:
        raise typer.BadParameter(f"{name} is an amount, like 90.00", param_hint=option) from None
    if not amount.is_finite() or amount < 0 or amount != amount.to_integral_value():
        raise typer.BadParameter(
            f"{name} is a non-negative amount with at most {exponent} decimals", param_hint=option
        )
    return int(amount)


def invite_token(text: str) -> str:
    """The invite token, also when given as the invite URL (`…/rooms/join#TOKEN`)."""
    match = _INVITE_IN_URL.search(text)
    return match.group("token") if match else text.strip()

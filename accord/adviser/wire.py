"""Scalar types that take the adviser state as parsed JSON as well as from Python: an
enumeration by its wire string, a datetime as UTC RFC 3339 (adviser-api.md)."""

from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, TypeVar

from pydantic import BeforeValidator, Strict

from accord.core.times import parse_time

E = TypeVar("E", bound=StrEnum)
Wire = Annotated[E, Strict(False)]
"""An enumeration that also takes its wire string: strict mode takes only a member from Python,
and the state mostly arrives as parsed JSON. Any other value is still refused."""


def _utc(value: object) -> object:
    # Datetimes are UTC RFC 3339 (adviser-api.md); strict mode alone would take no string from
    # parsed JSON, and would keep another offset as given.
    if isinstance(value, str):
        return parse_time(value)
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise ValueError("a naive datetime has no place in the state")
        return value.astimezone(UTC)
    return value


UtcDatetime = Annotated[datetime, BeforeValidator(_utc)]

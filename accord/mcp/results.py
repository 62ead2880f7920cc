"""How an application-layer answer or refusal becomes a tool result: the REST body as
structured content (and the same JSON as text), a refusal as a tool error whose text is the
REST error body, so that the model can read it and correct itself."""

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any, TypeVar, cast

from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, TypeAdapter, ValidationError

from accord.core.problems import problems
from accord.core.refusals import Refusal, RefusalCode, Refused

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)
JSONBody = dict[str, Any]

log = logging.getLogger("accord.mcp")


def error_body(refusal: Refusal) -> JSONBody:
    return {"error": {"code": str(refusal.code), "message": refusal.message, **refusal.details}}


def refused(refusal: Refusal) -> CallToolResult:
    text = json.dumps(error_body(refusal))
    return CallToolResult(content=[TextContent(type="text", text=text)], is_error=True)


def parsed(model: type[M], value: JSONBody) -> M:
    """A request model built from a tool's arguments; a mistake is `invalid_request` with
    `fields`, as the REST API says it."""
    return parsed_as(TypeAdapter(model), value)


def parsed_as(adapter: TypeAdapter[T], value: JSONBody) -> T:
    try:
        return adapter.validate_python(value)
    except ValidationError as error:
        fields = problems(error)
        raise Refused(
            Refusal(
                RefusalCode.INVALID_REQUEST,
                "Fix the arguments: see fields for what does not fit.",
                {"fields": fields},
            )
        ) from None


async def attempt(call: Callable[[], T]) -> T | CallToolResult:
    """Run a blocking application call off the event loop; a refusal becomes a tool error, and
    anything unexpected `internal`, with no details."""
    try:
        return await asyncio.to_thread(call)
    except Refused as refusal:
        return refused(refusal.refusal)
    except Exception:
        log.exception("a tool failed")
        return refused(Refusal(RefusalCode.INTERNAL, "Something failed on the server's side."))


async def answer(call: Callable[[], JSONBody]) -> JSONBody:
    """A tool's answer: the REST body, or a tool error in its place. The SDK passes a
    `CallToolResult` through as the whole result (it cannot be declared beside the body's
    type, which gives the tool its output schema), hence the cast."""
    return cast(JSONBody, await attempt(call))


def members(**given: Any) -> JSONBody:
    """A request body without the arguments left out (None): the models read absent, not null."""
    return {name: value for name, value in given.items() if value is not None}

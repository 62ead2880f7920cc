"""Strict JSON bodies, read only after the route's credential and permission checks.

FastAPI reads and parses a body before it solves a route's dependencies, so an anonymous
client could make the server parse whatever it sends before being told it may not send it.
A `StrictRoute` keeps the endpoint it was given for the OpenAPI document, but serves the
request with the same endpoint minus its body parameter: the dependencies (the credential
first) run, then the body is read, parsed strictly (duplicate keys, NaN, unsafe integers and
out-of-bounds documents refused; large bodies in a worker thread) and validated.

A route whose endpoint answers with a `Response` of its own and asks only for what a `Plan`
fills (the hot ones: a move in a room or a session) is served without FastAPI's per-request
solver (`plans.py`); every other route is served by FastAPI.
"""

import inspect
from collections.abc import Callable, Coroutine
from typing import Any, Final, get_type_hints

from fastapi import Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from pydantic import TypeAdapter, ValidationError
from starlette.routing import request_response

from accord.core.jsonio import Bounds, JSONError, parse
from accord.core.refusals import RefusalCode, refuse
from accord.http.plans import Plan, compile_plan

BODY_BOUNDS: Final = Bounds(depth=32, members=1000, items=1000)
"""Far above what any request of Accord's needs (32 fields, 200 tokens, 100 enum values)."""

INLINE_BYTES: Final = 4096
"""Bodies above this size are parsed and validated in a worker thread, off the event loop."""

_REQUEST: Final = "_strict_request"


Handler = Callable[[Request], Coroutine[Any, Any, Response]]


class StrictRoute(APIRoute):
    plan: Plan | None = None
    """How a request's arguments are filled, when FastAPI's solver is not needed."""

    _planned: Handler | None = None

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        self._route_kwargs = kwargs
        super().__init__(path, endpoint, **kwargs)
        if self._planned is not None:  # without FastAPI's exit stacks: only its solver uses them
            self.app = request_response(self._planned)

    def get_route_handler(self) -> Handler:
        body = [param.name for param in self.dependant.body_params]
        if len(body) > 1:
            raise TypeError(f"{self.path}: a strict route takes one body parameter, not {body}")
        served = (
            APIRoute(self.path, _body_last(self.endpoint, body[0]), **self._route_kwargs)
            if body
            else self
        )
        if _answers_itself(self.endpoint):
            self.plan = compile_plan(served.dependant)
        if self.plan is None:
            return super().get_route_handler() if served is self else served.get_route_handler()
        self._planned = _planned(self.plan)
        return self._planned


def _answers_itself(endpoint: Callable[..., Any]) -> bool:
    """The endpoint returns a `Response`: nothing of FastAPI's serialization applies."""
    returns = get_type_hints(endpoint).get("return")
    return isinstance(returns, type) and issubclass(returns, Response)


def _planned(plan: Plan) -> Handler:
    async def handler(request: Request) -> Response:
        response: Response = await plan.run(request, {})
        return response

    return handler


def _body_last(endpoint: Callable[..., Any], name: str) -> Callable[..., Any]:
    """`endpoint` without its body parameter `name`, which it reads itself once every
    dependency has been solved."""
    signature = inspect.signature(endpoint)
    hints = get_type_hints(endpoint, include_extras=True)
    adapter: TypeAdapter[Any] = TypeAdapter(hints[name])
    params = [
        p.replace(kind=inspect.Parameter.KEYWORD_ONLY, annotation=hints.get(p.name, p.annotation))
        for p in signature.parameters.values()
        if p.name != name
    ]
    request_name = next((p.name for p in params if p.annotation is Request), None)
    if request_name is None:
        params.append(
            inspect.Parameter(_REQUEST, inspect.Parameter.KEYWORD_ONLY, annotation=Request)
        )
    is_async = inspect.iscoroutinefunction(endpoint)

    async def served(**values: Any) -> Any:
        request: Request = values[request_name] if request_name else values.pop(_REQUEST)
        values[name] = await read_body(request, adapter)
        if is_async:
            return await endpoint(**values)
        return await run_in_threadpool(endpoint, **values)

    served.__name__ = endpoint.__name__
    served.__doc__ = endpoint.__doc__
    served.__signature__ = signature.replace(  # type: ignore[attr-defined]  # read by FastAPI
        parameters=params, return_annotation=hints.get("return", signature.return_annotation)
    )
    return served


async def read_body(request: Request, adapter: TypeAdapter[Any]) -> Any:
    """The body, validated as FastAPI would (errors located under `body`), after a strict
    parse; the size and read time are bounded by the limits middleware."""
    raw = await request.body()
    if len(raw) > INLINE_BYTES:
        return await run_in_threadpool(_decode, raw, _is_json(request), adapter)
    return _decode(raw, _is_json(request), adapter)


def _is_json(request: Request) -> bool:
    """`application/json` or `application/…+json`, whatever its parameters and case."""
    media_type = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    kind, _, subtype = media_type.partition("/")
    return kind == "application" and (subtype == "json" or subtype.endswith("+json"))


def _decode(raw: bytes, is_json: bool, adapter: TypeAdapter[Any]) -> Any:
    if not raw:
        raise RequestValidationError(
            [{"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}]
        )
    value: Any = raw  # not JSON: validated as bytes, which no body model accepts
    if is_json:
        try:
            value = parse(raw, BODY_BOUNDS)
        except JSONError as exc:
            raise refuse(
                RefusalCode.INVALID_REQUEST, "Send a strict JSON body.", reason=exc.reason
            ) from None
    try:
        return adapter.validate_python(value, from_attributes=True)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        raise RequestValidationError(
            [{**error, "loc": ("body", *error["loc"])} for error in errors]
        ) from None

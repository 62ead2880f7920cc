"""A route's parameters filled without FastAPI's per-request solver.

FastAPI solves a route's parameters anew on every request, level by level: every level reads
the query string, headers and cookies again and looks up its caches, and the call runs inside
two exit stacks and its telemetry. On a move that was 13% of the server's instructions
(benchmarks/README.md). The hot routes ask for little: path parameters, the request, and the
credential dependencies made of those. Such a route is compiled once, when it is declared,
into a `Plan` that fills exactly those; a route that asks for anything else has no plan and
FastAPI serves it as before.
"""

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import Request
from fastapi.concurrency import run_in_threadpool
from fastapi.dependencies.models import Dependant


@dataclass(frozen=True, slots=True)
class Plan:
    call: Callable[..., Any]
    is_async: bool
    path_params: tuple[str, ...]
    request_params: tuple[str, ...]
    """The parameters that receive the request (as a `Request` or an `HTTPConnection`)."""
    needs: tuple[tuple[str | None, "Plan"], ...]
    """Sub-dependencies in declaration order, each under its parameter's name (None for a
    route's `dependencies=[…]`)."""

    async def arguments(self, request: Request, solved: dict[int, Any]) -> dict[str, Any]:
        """The keyword arguments of `call`. Each dependency runs at most once a request, as
        FastAPI caches it: `solved` holds what ran, by the identity of its callable."""
        values: dict[str, Any] = {}
        for name, need in self.needs:
            key = id(need.call)
            if key in solved:
                value = solved[key]
            else:
                value = await need.run(request, solved)
                solved[key] = value
            if name is not None:
                values[name] = value
        path = request.path_params
        for name in self.path_params:
            values[name] = path[name]
        for name in self.request_params:
            values[name] = request
        return values

    async def run(self, request: Request, solved: dict[int, Any]) -> Any:
        """`call` with its arguments; a plain function in a worker thread, as FastAPI does."""
        values = await self.arguments(request, solved)
        if self.is_async:
            return await self.call(**values)
        return await run_in_threadpool(self.call, **values)


def compile_plan(dependant: Dependant) -> Plan | None:
    """The plan for `dependant`, or None when it asks for more than a plan fills: query,
    header, cookie or body parameters, typed or constrained path parameters, the response,
    background tasks, security scopes, websockets, `yield` dependencies or limited
    concurrency."""
    call = dependant.call
    if call is None or _is_generator(call) or not _is_plain(dependant):
        return None
    path_params = []
    for field in dependant.path_params:
        info = field.field_info
        if info.annotation is not str or info.metadata or field.alias != field.name:
            return None
        path_params.append(field.name)
    needs = []
    for sub in dependant.dependencies:
        plan = compile_plan(sub)
        if plan is None or not sub.use_cache:
            return None
        needs.append((sub.name, plan))
    return Plan(
        call=call,
        is_async=_is_async(call),
        path_params=tuple(path_params),
        request_params=tuple(
            name
            for name in (dependant.request_param_name, dependant.http_connection_param_name)
            if name is not None
        ),
        needs=tuple(needs),
    )


def _is_plain(dependant: Dependant) -> bool:
    return not (
        dependant.query_params
        or dependant.header_params
        or dependant.cookie_params
        or dependant.body_params
        or dependant.websocket_param_name
        or dependant.response_param_name
        or dependant.background_tasks_param_name
        or dependant.security_scopes_param_name
        or dependant.own_oauth_scopes
        or dependant.concurrency is not None
    )


def _is_async(call: Callable[..., Any]) -> bool:
    """A coroutine function, or an object whose `__call__` is one (FastAPI's security
    schemes)."""
    return inspect.iscoroutinefunction(call) or inspect.iscoroutinefunction(
        getattr(call, "__call__", None)  # noqa: B004  # the method itself, not callable()
    )


def _is_generator(call: Callable[..., Any]) -> bool:
    method = getattr(call, "__call__", None)  # noqa: B004
    return any(
        inspect.isgeneratorfunction(f) or inspect.isasyncgenfunction(f) for f in (call, method)
    )

"""Routes served from a compiled plan: which routes get one, and that a plan fills the
endpoint's arguments as FastAPI would (each dependency once a request, plain functions in a
worker thread, a refusal from a dependency before the body is read)."""

import threading
from collections.abc import Callable
from typing import Annotated, Any, Final

import pytest
from fastapi import APIRouter, Depends, FastAPI, Header, Path, Request
from fastapi.responses import Response
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from fastapi.testclient import TestClient
from pydantic import BaseModel

from accord.core.refusals import RefusalCode, refuse
from accord.http import errors, rooms, sessions
from accord.http.plans import compile_plan
from accord.http.strict import StrictRoute

PLANNED: Final = {
    ("POST", "/v1/rooms/{room_id}/moves"),
    ("POST", "/v1/sessions/{session_id}/messages"),
}


def test_the_hot_routes_and_only_they_are_planned() -> None:
    planned = {
        (method, route.path)
        for router in (rooms.router, sessions.router)
        for route in router.routes
        if isinstance(route, StrictRoute) and route.plan is not None
        for method in route.methods or ()
    }
    assert planned == PLANNED


_scheme = HTTPBearer(auto_error=False)


async def _token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_scheme)],
) -> str:
    return credentials.credentials if credentials else ""


def _sync_token(request: Request) -> str:
    return request.headers.get("authorization", "")


def _gen() -> Any:
    yield "x"


class Body(BaseModel):
    n: int


def _dependant(endpoint: Callable[..., Any]) -> Any:
    return APIRoute("/things/{thing_id}", endpoint).dependant


async def _path_and_request(thing_id: str, request: Request) -> None: ...
async def _security(thing_id: str, token: Annotated[str, Depends(_token)]) -> None: ...
async def _sync_dependency(token: Annotated[str, Depends(_sync_token)]) -> None: ...
async def _query(thing_id: str, limit: int = 10) -> None: ...
async def _header(x_thing: Annotated[str | None, Header()] = None) -> None: ...
async def _typed_path(thing_id: int) -> None: ...
async def _constrained_path(thing_id: Annotated[str, Path(min_length=3)]) -> None: ...
async def _body(thing_id: str, body: Body) -> None: ...
async def _yielding(value: Annotated[str, Depends(_gen)]) -> None: ...
async def _uncached(token: Annotated[str, Depends(_token, use_cache=False)]) -> None: ...


@pytest.mark.parametrize(
    ("endpoint", "planned"),
    [
        (_path_and_request, True),
        (_security, True),
        (_sync_dependency, True),
        (_query, False),
        (_header, False),
        (_typed_path, False),
        (_constrained_path, False),
        (_body, False),
        (_yielding, False),
        (_uncached, False),
    ],
)
def test_what_a_plan_fills(endpoint: Callable[..., Any], planned: bool) -> None:
    assert (compile_plan(_dependant(endpoint)) is not None) is planned


def _served(router: APIRouter) -> TestClient:
    app = FastAPI()
    errors.install(app)
    app.router.routes.extend(router.routes)
    return TestClient(app)


def test_a_plan_runs_each_dependency_once_and_plain_functions_in_a_thread() -> None:
    threads: dict[str, list[int]] = {"counted": [], "loop": []}

    def counted(request: Request) -> str:
        threads["counted"].append(threading.get_ident())
        return request.headers.get("authorization", "")

    async def first(thing_id: str, token: Annotated[str, Depends(counted)]) -> str:
        threads["loop"].append(threading.get_ident())
        return f"{thing_id}:{token}"

    async def second(token: Annotated[str, Depends(counted)]) -> str:
        return token

    router = APIRouter(route_class=StrictRoute)

    @router.post("/things/{thing_id}")
    async def thing(
        thing_id: str,
        body: Body,
        a: Annotated[str, Depends(first)],
        b: Annotated[str, Depends(second)],
    ) -> Response:
        return Response(f"{thing_id} {a} {b} {body.n}", media_type="text/plain")

    route = router.routes[0]
    assert isinstance(route, StrictRoute) and route.plan is not None
    with _served(router) as client:
        answer = client.post("/things/t1", json={"n": 7}, headers={"authorization": "Bearer k"})
    assert answer.status_code == 200, answer.text
    assert answer.text == "t1 t1:Bearer k Bearer k 7"
    assert len(threads["counted"]) == 1  # once, though two dependencies ask for it
    assert threads["counted"] != threads["loop"]  # in a worker thread, off the event loop


def test_a_refusing_dependency_answers_before_the_body_is_read() -> None:
    def deny(token: Annotated[str, Depends(_token)]) -> str:
        if token != "good":
            raise refuse(RefusalCode.UNAUTHENTICATED, "Send a credential.")
        return token

    router = APIRouter(route_class=StrictRoute)

    @router.post("/things/{thing_id}")
    async def thing(thing_id: str, body: Body, token: Annotated[str, Depends(deny)]) -> Response:
        return Response(str(body.n), media_type="text/plain")

    with _served(router) as client:
        refused = client.post("/things/t1", content=b"not json")
        invalid = client.post(
            "/things/t1", content=b"not json", headers={"authorization": "Bearer good"}
        )
        served = client.post("/things/t1", json={"n": 3}, headers={"authorization": "Bearer good"})
    assert refused.status_code == 401
    assert refused.json()["error"]["code"] == "unauthenticated"
    assert invalid.status_code == 400
    assert invalid.json()["error"]["code"] == "invalid_request"
    assert served.text == "3"

"""Adviser cases over HTTP (spec/adviser-api.md, Cases). A route on one case finds it for the
key before the body is read: a case that is not the caller's is `not_found` before its key is
`forbidden`, and both before the body is looked at."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Path, Query, Request, Response
from fastapi.responses import PlainTextResponse
from sse_starlette import EventSourceResponse

from accord.adviser.requests import (
    AnswerInput,
    CaseInput,
    CloseInput,
    Empty,
    LinkInput,
    OverrideInput,
    PatchSet,
    ReconcileInput,
    ReviewInput,
    RunInput,
)
from accord.adviser.skills.registry import Declaration
from accord.app.adviser import Adviser
from accord.app.adviser_links import AdviserLinks
from accord.app.adviser_skills import AdviserSkills
from accord.app.identity import PrincipalCaller
from accord.app.principals import Action, Principals
from accord.http import streams
from accord.http.auth import ApiKey
from accord.http.principals import Owner, Reader, principal_stream
from accord.http.strict import StrictRoute

router = APIRouter(route_class=StrictRoute, tags=["adviser"])
CASES = "/v1/adviser/cases"


def _adviser(request: Request) -> Adviser:
    adviser: Adviser = request.app.state.accord.adviser
    return adviser


def _skills(request: Request) -> AdviserSkills:
    skills: AdviserSkills = request.app.state.accord.adviser_skills
    return skills


def _found(request: Request, key: str | None, case_id: str, action: Action) -> PrincipalCaller:
    principals: Principals = request.app.state.accord.principals
    caller = principals.authorize(key, Action.READ)
    _adviser(request).find(caller, case_id, action)
    return caller


def case_reader(request: Request, key: ApiKey, case_id: str) -> PrincipalCaller:
    return _found(request, key, case_id, Action.READ)


def case_owner(request: Request, key: ApiKey, case_id: str) -> PrincipalCaller:
    return _found(request, key, case_id, Action.WRITE)


CaseReader = Annotated[PrincipalCaller, Depends(case_reader)]
CaseOwner = Annotated[PrincipalCaller, Depends(case_owner)]


@router.post(CASES, status_code=201, summary="Open a case (owner key)")
def create_case(body: CaseInput, request: Request, caller: Owner) -> dict[str, Any]:
    return _adviser(request).create(caller, body)


@router.get(CASES, summary="Your cases, last updated first")
def list_cases(request: Request, caller: Reader) -> dict[str, Any]:
    return _adviser(request).list_own(caller)


@router.get(CASES + "/{case_id}", summary="One of your cases, as it now stands")
def get_case(case_id: str, request: Request, caller: CaseReader) -> dict[str, Any]:
    return _adviser(request).get(caller, case_id)


@router.get(CASES + "/{case_id}/versions/{number}", summary="A case as it was at one version")
def get_version(
    case_id: str,
    number: Annotated[int, Path(ge=1, le=2**53 - 1)],
    request: Request,
    caller: CaseReader,
) -> dict[str, Any]:
    return _adviser(request).version(caller, case_id, number)


@router.get(CASES + "/{case_id}/history", summary="A case's history: one event per version")
def get_history(case_id: str, request: Request, caller: CaseReader) -> dict[str, Any]:
    return _adviser(request).history(caller, case_id)


@router.get(
    CASES + "/{case_id}/export",
    summary="A version as a one-page Markdown brief",
    response_class=PlainTextResponse,
    responses={200: {"content": {"text/markdown": {"schema": {"type": "string"}}}}},
)
def get_export(
    case_id: str,
    request: Request,
    caller: CaseReader,
    version: Annotated[
        int | None,
        Query(ge=1, le=2**53 - 1, description="The version; the current one if left out."),
    ] = None,
) -> PlainTextResponse:
    text = _adviser(request).export(caller, case_id, version)
    return PlainTextResponse(text, media_type="text/markdown; charset=utf-8")


@router.post(CASES + "/{case_id}/patches", summary="Your own edits, as one version (owner key)")
def post_patches(
    case_id: str, body: PatchSet, request: Request, caller: CaseOwner
) -> dict[str, Any]:
    return _adviser(request).patch(caller, case_id, body)


@router.post(CASES + "/{case_id}/answers", summary="Answer one of the case's questions (owner key)")
def post_answer(
    case_id: str, body: AnswerInput, request: Request, caller: CaseOwner
) -> dict[str, Any]:
    return _adviser(request).answer(caller, case_id, body)


@router.post(
    CASES + "/{case_id}/material-changes/{change_id}/seen",
    summary="Mark a material change seen (owner key)",
)
def post_seen(
    case_id: str, change_id: str, body: Empty, request: Request, caller: CaseOwner
) -> dict[str, Any]:
    return _adviser(request).seen(caller, case_id, change_id)


@router.post(CASES + "/{case_id}/deal-review", summary="Review an offer (F08; owner key)")
def post_review(
    case_id: str, body: ReviewInput, request: Request, caller: CaseOwner
) -> dict[str, Any]:
    return _adviser(request).review(caller, case_id, body)


@router.post(
    CASES + "/{case_id}/deal-review/override",
    summary="Accept against the review's recommendation, on the record (owner key)",
)
def post_override(
    case_id: str, body: OverrideInput, request: Request, caller: CaseOwner
) -> dict[str, Any]:
    return _adviser(request).override(caller, case_id, body)


@router.post(CASES + "/{case_id}/close", summary="Close a case for good (owner key)")
def post_close(
    case_id: str, body: CloseInput, request: Request, caller: CaseOwner
) -> dict[str, Any]:
    return _adviser(request).close(caller, case_id, body)


@router.post(
    CASES + "/{case_id}/skills/{skill_id}/runs",
    summary="Run a skill on the case: a built-in, or a registered skill's response (owner key)",
)
def post_run(
    case_id: str, skill_id: str, body: RunInput, request: Request, caller: CaseOwner
) -> dict[str, Any]:
    return _skills(request).run(caller, case_id, skill_id, body)


@router.post(
    CASES + "/{case_id}/findings/{finding_id}",
    summary="Reconcile a red-team finding: ACCEPT, TEST, REJECT or DEFER (owner key)",
)
def post_finding(
    case_id: str, finding_id: str, body: ReconcileInput, request: Request, caller: CaseOwner
) -> dict[str, Any]:
    return _skills(request).reconcile(caller, case_id, finding_id, body)


@router.post(
    CASES + "/{case_id}/links",
    status_code=201,
    summary="Follow a seat of a room, an arbitrated session or an introduction (owner key)",
)
def post_link(case_id: str, body: LinkInput, request: Request, caller: CaseOwner) -> dict[str, Any]:
    links: AdviserLinks = request.app.state.accord.adviser_links
    return links.link(caller, case_id, body)


@router.get("/v1/adviser/skills", summary="The built-in skills and your own")
def list_skills(request: Request, caller: Reader) -> dict[str, Any]:
    return _skills(request).list(caller)


@router.post(
    "/v1/adviser/skills",
    status_code=201,
    summary="Register a skill of your own, or replace it (200) (owner key)",
)
def post_skill(
    body: Declaration, request: Request, response: Response, caller: Owner
) -> dict[str, Any]:
    skill, new = _skills(request).declare(caller, body)
    if not new:
        response.status_code = 200
    return skill


@router.get(
    "/v1/adviser/events",
    summary="Server-Sent Events of your cases: versions, material changes, questions",
    response_class=EventSourceResponse,
    responses={200: {"content": {"text/event-stream": {"schema": {"type": "string"}}}}},
)
async def adviser_events(
    request: Request,
    caller: Reader,
    key: ApiKey,
    last_event_id: Annotated[str | None, Header(alias="Last-Event-ID")] = None,
) -> Response:
    """Every key of the principal hears its cases' events (ids and versions, never their
    content); the key is looked up again before each frame."""
    return principal_stream(request, caller, key, last_event_id, keep=streams.is_adviser)

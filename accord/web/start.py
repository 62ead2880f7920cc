"""Starting from a browser (interfaces.md, Web pages): open a room from a schema builder, join
one from its invite (what the room is shown first, A6), and this browser's rooms. Opening or
joining makes the browser that seat's owner; a panel shown once gives the tokens an agent or
the command line would need."""

import json
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from accord.core.refusals import Refusal, RefusalCode, Refused
from accord.protocols.rooms.moves import JoinRequest, ListRequest, OpenRequest
from accord.web import security
from accord.web.pages import _accord, _refusal, _status, page
from accord.web.values import FIELD_ROWS, FIELD_TYPES, parsed_limits, parsed_schema, parsed_terms

router = APIRouter(include_in_schema=False)

JOIN_HELP = "join.html"


async def _form(request: Request) -> tuple[dict[str, str], dict[str, list[str]]]:
    async with request.form() as form:
        lists: dict[str, list[str]] = {}
        for key, value in form.multi_items():
            if isinstance(value, str):
                lists.setdefault(key, []).append(value)
    return {key: values[0] for key, values in lists.items()}, lists


def _invalid(problems: dict[str, str], message: str) -> Refused:
    return Refused(Refusal(RefusalCode.INVALID_REQUEST, message, {"fields": problems}))


def _opened(
    request: Request, answer: dict[str, Any], *, invite: dict[str, Any] | None = None
) -> HTMLResponse:
    """The once-only panel, with the owner's cookie set on it."""
    room = answer["room"]
    shown = page(
        "opened.html",
        credentialed=True,
        room=room,
        seat_token=answer["seat_token"],
        owner_token=answer["owner_token"],
        invite=invite,
    )
    base_url = _accord(request).settings.base_url
    security.set_credential(shown, base_url, room["room_id"], answer["owner_token"])
    return shown


# -- join ---------------------------------------------------------------------------------------


@router.get("/rooms/join", response_class=HTMLResponse)
def join_form(request: Request) -> HTMLResponse:
    """The page an invite link opens; the invite is the fragment, which the browser keeps."""
    return page(JOIN_HELP, base=_accord(request).settings.base_url)


@router.post("/rooms/join/preview", response_class=HTMLResponse)
async def join_preview(request: Request) -> HTMLResponse:
    accord = _accord(request)
    form, _ = await _form(request)
    invite = form.get("invite", "").strip().rsplit("#", 1)[-1]
    try:
        security.check_origin(request, accord.settings.base_url)
        preview = accord.rooms.invite_preview(invite)
    except Refused as refused:
        return page(
            JOIN_HELP,
            status=_status(refused.refusal),
            error=_refusal(refused),
            base=accord.settings.base_url,
            invite=invite,
        )
    return page("join_preview.html", preview=preview, invite=invite)


@router.post("/rooms/join", response_class=HTMLResponse)
async def join(request: Request) -> Response:
    accord = _accord(request)
    form, lists = await _form(request)
    invite = form.get("invite", "")
    preview: dict[str, Any] | None = None
    try:
        security.check_origin(request, accord.settings.base_url)
        preview = accord.rooms.invite_preview(invite)
        limits, problems = parsed_limits(preview["subject_schema"], lists)
        if problems:
            raise _invalid(problems, "Fix your limits: see each field.")
        answer = accord.rooms.join(JoinRequest(invite_token=invite, limits=limits or None))
    except Refused as refused:
        if preview is None:
            return page(
                JOIN_HELP,
                status=_status(refused.refusal),
                error=_refusal(refused),
                base=accord.settings.base_url,
            )
        return page(
            "join_preview.html",
            status=_status(refused.refusal),
            error=_refusal(refused),
            preview=preview,
            invite=invite,
            form=form,
        )
    return _opened(request, answer)


# -- open ---------------------------------------------------------------------------------------


@router.get("/rooms/new", response_class=HTMLResponse)
def new_form() -> HTMLResponse:
    return page("new.html", rows=range(FIELD_ROWS), types=FIELD_TYPES, form={})


@router.post("/rooms/new", response_class=HTMLResponse)
async def new(request: Request) -> Response:
    """Two steps: the fields, then (with the schema carried along) your offer and limits."""
    accord = _accord(request)
    form, lists = await _form(request)
    step = form.get("step", "fields")
    try:
        security.check_origin(request, accord.settings.base_url)
        if step == "fields":
            schema, problems = parsed_schema(form)
            if problems:
                raise _invalid(problems, "Fix the fields: see each one.")
            return page("new_terms.html", schema=schema, schema_json=json.dumps(schema), form=form)
        schema = json.loads(form.get("schema", "{}"))
        terms, term_problems = parsed_terms(schema, form)
        limits, limit_problems = parsed_limits(schema, lists)
        problems = {f"terms.{k}": v for k, v in term_problems.items()} | limit_problems
        if problems:
            raise _invalid(problems, "Fix your offer or limits: see each field.")
        request_body = {
            "title": form.get("title", "").strip() or None,
            "subject_schema": schema,
            "subject": terms or None,
            "limits": limits or None,
            "deadline": form.get("deadline", "").strip() or None,
            "message": form.get("message", "").strip() or None,
        }
        answer = accord.rooms.open(
            OpenRequest.model_validate({k: v for k, v in request_body.items() if v is not None})
        )
    except Refused as refused:
        if step == "fields":
            return page(
                "new.html",
                status=_status(refused.refusal),
                error=_refusal(refused),
                rows=range(FIELD_ROWS),
                types=FIELD_TYPES,
                form=form,
            )
        schema = json.loads(form.get("schema", "{}"))
        return page(
            "new_terms.html",
            status=_status(refused.refusal),
            error=_refusal(refused),
            schema=schema,
            schema_json=json.dumps(schema),
            form=form,
        )
    except ValueError:
        return page("new.html", status=400, rows=range(FIELD_ROWS), types=FIELD_TYPES, form=form)
    return _opened(request, answer, invite=answer["invite"])


# -- this browser's rooms -----------------------------------------------------------------------


@router.get("/rooms", response_class=HTMLResponse)
def rooms(request: Request) -> HTMLResponse:
    tokens = [
        value
        for name, value in request.cookies.items()
        if name.startswith(security.COOKIE_PREFIX + "room_")
    ][:200]
    listed = (
        _accord(request).rooms.list_rooms(ListRequest(tokens=tokens, include_closed=True))
        if tokens
        else {"rooms": []}
    )
    return page("rooms.html", credentialed=True, rooms=listed["rooms"])

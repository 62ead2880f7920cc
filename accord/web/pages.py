"""The pages (interfaces.md, Web pages): claim a link, a room as its owner sees it with the
moves they may make and the confirmations waiting for them, and checking a receipt. Plain forms
with POST-redirect-GET; a refused form comes back with its entries and an error summary."""

import asyncio
import json
import secrets
from collections.abc import Mapping
from importlib.resources import files
from typing import Annotated, Any, Final

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from jinja2 import Environment, PackageLoader, select_autoescape

from accord import __version__
from accord.app.events import SeatAudience
from accord.app.identity import CredentialKind, PrincipalCaller, SeatCaller, SessionCaller
from accord.app.links import Redeemed
from accord.app.root import Accord
from accord.core.refusals import Refusal, RefusalCode, Refused
from accord.core.statuses import STATUS_BY_CODE
from accord.protocols.rooms.moves import ConfirmRequest, MoveRequest
from accord.protocols.rooms.words import MOVE_WORDS, format_limit, format_value
from accord.trust.verify import load_trusted, verify_receipt
from accord.web import live, security
from accord.web.values import control_value, parsed_terms

router = APIRouter(include_in_schema=False)
ENV: Final = Environment(
    loader=PackageLoader("accord.web", "templates"),
    autoescape=select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)
ENV.filters["value"] = lambda value, spec: format_value(spec, value)
ENV.filters["limit"] = lambda limit, spec: format_limit(spec, limit)
STATIC: Final = {
    "accord.js": "text/javascript",
    "accord.css": "text/css",
    "htmx.min.js": "text/javascript",
    "htmx-ext-sse.js": "text/javascript",
}
PARTS: Final = frozenset({"status", "table", "confirmation", "history"})
"""The regions of a room's page that follow it live: each one fetched again on `changed`."""
MAX_RECEIPT: Final = 1 << 20
ENDINGS: Final = {"reject": "Reject the terms", "cancel": "Withdraw from the room"}


def _accord(request: Request) -> Accord:
    accord: Accord = request.app.state.accord
    return accord


def page(
    name: str, *, status: int = 200, credentialed: bool = False, **context: Any
) -> HTMLResponse:
    text = ENV.get_template(name).render(version=__version__, **context)
    headers = security.CREDENTIALED if credentialed else security.HEADERS
    return HTMLResponse(text, status_code=status, headers=headers)


def _refusal(refused: Refused) -> dict[str, Any]:
    refusal = refused.refusal
    return {"code": str(refusal.code), "message": refusal.message, **refusal.details}


def _status(refusal: Refusal) -> int:
    return STATUS_BY_CODE.get(refusal.code, 400)


# -- the way in ---------------------------------------------------------------------------------


@router.get("/", response_class=HTMLResponse)
def home() -> HTMLResponse:
    return page("home.html")


@router.get("/claim", response_class=HTMLResponse)
def claim_form() -> HTMLResponse:
    return page("claim.html")


@router.post("/claim")
def claim(request: Request, code: Annotated[str, Form(max_length=200)] = "") -> Response:
    accord = _accord(request)
    try:
        security.check_origin(request, accord.settings.base_url)
        redeemed = accord.links.redeem(code.strip().rsplit("#", 1)[-1], "web", kinds=SHOWN)
    except Refused as refused:
        return page(
            "claim.html", status=_status(refused.refusal), error=_refusal(refused), code=code
        )
    return landing(redeemed, accord.settings.base_url)


SHOWN: Final = frozenset(
    {CredentialKind.OWNER, CredentialKind.SESSION, CredentialKind.PRINCIPAL_OWNER}
)
"""What a claimed link may open here: a room's owner seat, a buyer's session, a principal."""
PRINCIPAL_COOKIE: Final = "principal"


def landing(redeemed: Redeemed, base_url: str) -> Response:
    """A browser that redeemed a link code: the credential as its cookie, and its page (a
    principal's introductions)."""
    match redeemed.caller:
        case PrincipalCaller():
            where, cookie = "/opportunities", PRINCIPAL_COOKIE
        case SeatCaller(negotiation_id=room_id):
            where, cookie = f"/rooms/{room_id}", room_id
        case SessionCaller(negotiation_id=session_id):
            where, cookie = f"/sessions/{session_id}", session_id
        case other:
            raise AssertionError(f"a link in SHOWN opens no page for {other!r}")
    answer = RedirectResponse(where, status_code=303)
    security.set_credential(answer, base_url, cookie, redeemed.token)
    return answer


@router.post("/forget")
@router.post("/logout")
def forget(request: Request) -> Response:
    """ "Forget this browser": every credential cookie it holds is cleared."""
    try:
        security.check_origin(request, _accord(request).settings.base_url)
    except Refused as refused:
        return page(
            "message.html",
            status=403,
            error=_refusal(refused),
            heading="Nothing was forgotten",
            text="This browser still holds its links. To forget them, use the button on "
            "this server's own page.",
        )
    answer = RedirectResponse("/", status_code=303)
    security.forget_all(request, answer)
    return answer


# -- a room -------------------------------------------------------------------------------------


def _owner_token(request: Request, room_id: str) -> str | None:
    return request.cookies.get(security.cookie_name(room_id))


def _no_cookie() -> HTMLResponse:
    """The same for a room that exists and one that does not (401 before 404)."""
    return page("message.html", status=401, credentialed=True, heading="Open your link", text=(
        "This browser holds no credential for this room. Open the link you were given for "
        "it (it ends in /claim#…), or the room from the browser you claimed it in."
    ))  # fmt: skip


def room_page(
    request: Request,
    room_id: str,
    token: str,
    *,
    status: int = 200,
    error: dict[str, Any] | None = None,
    form: Mapping[str, str] | None = None,
    ending: str | None = None,
    link: Mapping[str, Any] | None = None,
) -> HTMLResponse:
    rooms = _accord(request).rooms
    try:
        room = rooms.show(token, room_id)
        pending = rooms.pending(token, room_id)["confirmations"]
        moves = rooms.history(token, room_id)
    except Refused as refused:
        if refused.refusal.code in (RefusalCode.UNAUTHENTICATED, RefusalCode.FORBIDDEN):
            return _no_cookie()
        return page(
            "message.html",
            status=_status(refused.refusal),
            credentialed=True,
            heading="This room cannot be shown",
            error=_refusal(refused),
        )
    schema = room["subject_schema"]
    table = room["table"]
    terms = table["terms"] if table else {}
    controls = {name: control_value(spec, terms.get(name)) for name, spec in schema.items()}
    if form:
        controls |= {
            name: form.get(name, "")
            if spec["type"] != "timerange"
            else {"start": form.get(f"{name}.start", ""), "end": form.get(f"{name}.end", "")}
            for name, spec in schema.items()
        }
    part = request.query_params.get("part")
    name = (
        f"_room_{part}.html" if part in PARTS and request.headers.get("hx-request") else "room.html"
    )
    return page(
        name,
        status=status,
        credentialed=True,
        room=room,
        schema=schema,
        pending=pending,
        controls=controls,
        error=error,
        form=form or {},
        ending=ending,
        endings=ENDINGS,
        link=link,
        telegram=_accord(request).links.telegram_bot is not None,
        redemptions=[  # this seat's own links only: the other side's are theirs
            r for r in _accord(request).links.redemptions(room_id) if r["party"] == room["seat"]
        ],
        message_id=secrets.token_hex(16),
        moves=[_move_words(move, room["seat"], schema) for move in reversed(moves)],
    )


BY: Final = {
    ("you", None): "You",
    ("they", None): "They",
    ("you", "agent"): "You, by your agent",
    ("you", "owner"): "You, yourself",
    ("you", "confirmed"): "You, by your agent, confirmed by you",
    ("they", "agent"): "They, by their agent",
    ("they", "owner"): "They, in person",
    ("they", "confirmed"): "They, by their agent, confirmed by them",
}
"""Who moved and through which door, as the shared log records it for both seats. The opening
offer comes with the room from whoever opened it, so it names no door."""


def _move_words(move: Mapping[str, Any], seat: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    terms = move.get("terms") or {}
    changed = move.get("changed")
    names = [n for n in schema if n in terms] + [n for n in terms if n not in schema]
    side = "you" if move.get("seat") == seat else "they"
    return {
        "who": BY[side, None if move.get("type") == "offer" else move["via"]],
        "what": MOVE_WORDS.get(move.get("type", ""), move.get("type", "")),
        "terms": [
            (
                schema.get(name, {}).get("label", name),
                format_value(schema.get(name), terms[name]),
                changed is not None and name in changed,
            )
            for name in names
        ],
        "unchanged": changed == [],
        "message": move.get("message"),
        "at": move.get("at"),
    }


@router.get("/rooms/{room_id}", response_class=HTMLResponse)
def show_room(request: Request, room_id: str) -> HTMLResponse:
    token = _owner_token(request, room_id)
    if token is None:
        return _no_cookie()
    return room_page(request, room_id, token)


@router.get("/rooms/{room_id}/events")
async def room_events(request: Request, room_id: str) -> Response:
    """`event: changed` for each new event of the owner's audience: the page fetches its
    live regions again. Refused before the stream starts, like the page."""
    token = _owner_token(request, room_id)
    if token is None:
        return Response(status_code=401, headers=security.CREDENTIALED)
    accord = _accord(request)
    try:
        access = await asyncio.to_thread(accord.rooms.follow, token, room_id)
        after = await asyncio.to_thread(accord.events.last_id)
    except Refused as refused:
        return Response(status_code=_status(refused.refusal), headers=security.CREDENTIALED)
    return live.changes(accord.events, SeatAudience.of(access), after)


@router.get("/rooms/{room_id}/end", response_class=HTMLResponse)
def end_room(request: Request, room_id: str, type: str = "cancel") -> HTMLResponse:
    """The second page before a move that closes the room for both."""
    token = _owner_token(request, room_id)
    if token is None:
        return _no_cookie()
    return room_page(request, room_id, token, ending=type if type in ENDINGS else "cancel")


@router.post("/rooms/{room_id}/moves")
async def move(request: Request, room_id: str) -> Response:
    token = _owner_token(request, room_id)
    if token is None:
        return _no_cookie()
    form = {key: str(value) for key, value in (await request.form()).items()}
    accord = _accord(request)
    try:
        security.check_origin(request, accord.settings.base_url)
        body = _move_body(accord, token, room_id, form)
        accord.rooms.move(token, room_id, MoveRequest.model_validate(body))
    except Refused as refused:
        return room_page(
            request,
            room_id,
            token,
            status=_status(refused.refusal),
            error=_refusal(refused),
            form=form,
        )
    return RedirectResponse(f"/rooms/{room_id}", status_code=303)


def _move_body(accord: Accord, token: str, room_id: str, form: Mapping[str, str]) -> dict[str, Any]:
    kind = form.get("type", "")
    body: dict[str, Any] = {"type": kind, "message_id": form.get("message_id") or None}
    if form.get("expected_seq", "").isdigit():
        body["expected_seq"] = int(form["expected_seq"])
    if form.get("message", "").strip():
        body["message"] = form["message"].strip()
    if kind == "approve":
        body["subject_hash"] = form.get("subject_hash") or None
    if kind in ("offer", "counter"):
        schema = accord.rooms.show(token, room_id)["subject_schema"]
        terms, problems = parsed_terms(schema, form)
        if problems:
            raise Refused(
                Refusal(
                    RefusalCode.INVALID_TERMS,
                    "Fix the terms to fit the subject schema.",
                    {"fields": {f"terms.{name}": p for name, p in problems.items()}},
                )
            )
        body["terms"] = terms
    return {key: value for key, value in body.items() if value is not None}


@router.post("/rooms/{room_id}/links", response_class=HTMLResponse)
def open_elsewhere(request: Request, room_id: str) -> HTMLResponse:
    """A one-time link to this room's owner credential, for another device or the Telegram
    bot (an hour)."""
    token = _owner_token(request, room_id)
    if token is None:
        return _no_cookie()
    accord = _accord(request)
    try:
        security.check_origin(request, accord.settings.base_url)
        accord.rooms.pending(token, room_id)  # only the room's owner hands it on
        minted = accord.links.mint(token)
    except Refused as refused:
        return room_page(
            request, room_id, token, status=_status(refused.refusal), error=_refusal(refused)
        )
    return room_page(request, room_id, token, link=minted)


@router.post("/rooms/{room_id}/confirmations/{confirmation_id}")
def decide(
    request: Request,
    room_id: str,
    confirmation_id: str,
    decision: Annotated[str, Form()] = "",
) -> Response:
    token = _owner_token(request, room_id)
    if token is None:
        return _no_cookie()
    accord = _accord(request)
    try:
        security.check_origin(request, accord.settings.base_url)
        answer = ConfirmRequest.model_validate({"decision": decision})
        accord.rooms.confirm(token, room_id, confirmation_id, answer)
    except Refused as refused:
        return room_page(
            request, room_id, token, status=_status(refused.refusal), error=_refusal(refused)
        )
    except ValueError:
        refusal = Refusal(RefusalCode.INVALID_REQUEST, "Choose Confirm or Decline.", {})
        return room_page(request, room_id, token, status=400, error=_refusal(Refused(refusal)))
    return RedirectResponse(f"/rooms/{room_id}", status_code=303)


@router.get("/rooms/{room_id}/receipt", response_class=HTMLResponse)
def receipt_page(request: Request, room_id: str) -> HTMLResponse:
    """The receipt in words, checked here against this server's keys and the whole log."""
    token = _owner_token(request, room_id)
    if token is None:
        return _no_cookie()
    accord = _accord(request)
    try:
        room = accord.rooms.show(token, room_id)
        receipt = accord.rooms.receipt(token, room_id)
        log = accord.rooms.log(token, room_id)["envelopes"]
    except Refused as refused:
        if refused.refusal.code in (RefusalCode.UNAUTHENTICATED, RefusalCode.FORBIDDEN):
            return _no_cookie()
        return page(
            "message.html",
            status=_status(refused.refusal),
            credentialed=True,
            heading="No receipt yet",
            error=_refusal(refused),
        )
    checked = verify_receipt(receipt, trusted=load_trusted(accord.keys.jwks()), log=log)
    return page(
        "receipt.html",
        credentialed=True,
        room=room,
        receipt=receipt,
        schema=room["subject_schema"],
        result=checked.to_json(),
    )


@router.get("/rooms/{room_id}/receipt.json")
def receipt_file(request: Request, room_id: str) -> Response:
    return _file(request, room_id, "receipt")


@router.get("/rooms/{room_id}/log.json")
def log_file(request: Request, room_id: str) -> Response:
    return _file(request, room_id, "log")


def _file(request: Request, room_id: str, what: str) -> Response:
    token = _owner_token(request, room_id)
    if token is None:
        return _no_cookie()
    rooms = _accord(request).rooms
    try:
        body = rooms.receipt(token, room_id) if what == "receipt" else rooms.log(token, room_id)
    except Refused as refused:
        return Response(
            json.dumps({"error": _refusal(refused)}),
            status_code=_status(refused.refusal),
            media_type="application/json",
            headers=security.CREDENTIALED,
        )
    headers = {
        **security.CREDENTIALED,
        "Content-Disposition": f'attachment; filename="{room_id}-{what}.json"',
    }
    return Response(json.dumps(body, indent=2), media_type="application/json", headers=headers)


# -- checking a receipt -------------------------------------------------------------------------


def _limit_kib(request: Request) -> int:
    return min(MAX_RECEIPT, _accord(request).settings.max_body_bytes) // 1024


@router.get("/verify", response_class=HTMLResponse)
def verify_form(request: Request) -> HTMLResponse:
    return page("verify.html", limit_kib=_limit_kib(request))


@router.post("/verify", response_class=HTMLResponse)
async def verify(request: Request) -> HTMLResponse:
    accord = _accord(request)
    try:
        security.check_origin(request, accord.settings.base_url)
    except Refused as refused:
        return page(
            "verify.html", status=403, error=_refusal(refused), limit_kib=_limit_kib(request)
        )
    texts: dict[str, str] = {}
    async with request.form(max_part_size=MAX_RECEIPT + 1) as form:
        for name in ("receipt", "log", "jwks"):
            value = form.get(name)
            upload = form.get(f"{name}_file")
            if upload is not None and not isinstance(upload, str):
                raw = await upload.read(MAX_RECEIPT + 1)
                if raw:
                    value = raw.decode("utf-8", errors="replace")
            texts[name] = value if isinstance(value, str) else ""
    if any(len(text) > MAX_RECEIPT for text in texts.values()):
        error = {"code": "payload_too_large", "message": "A file is larger than 1 MiB."}
        return page(
            "verify.html", status=413, error=error, texts=texts, limit_kib=_limit_kib(request)
        )
    try:
        receipt = json.loads(texts["receipt"])
        log = json.loads(texts["log"]) if texts["log"].strip() else None
        jwks = json.loads(texts["jwks"]) if texts["jwks"].strip() else accord.keys.jwks()
        if isinstance(log, dict):
            log = log.get("envelopes")
        trusted = load_trusted(jwks)
    except (ValueError, TypeError) as problem:
        error = {
            "code": "invalid_request",
            "message": f"That is not JSON Accord can read: {problem}",
        }
        return page(
            "verify.html", status=400, error=error, texts=texts, limit_kib=_limit_kib(request)
        )
    checked = verify_receipt(receipt, trusted=trusted, log=log, allow_test=True)
    return page(
        "verify.html",
        texts=texts,
        result=checked.to_json(),
        own_keys=not texts["jwks"].strip(),
        limit_kib=_limit_kib(request),
    )


@router.get("/static/{name}")
def static(name: str) -> Response:
    kind = STATIC.get(name)
    if kind is None:
        return Response(status_code=404)
    text = files("accord.web").joinpath("static", name).read_text()
    return Response(text, media_type=kind, headers={"Cache-Control": "public, max-age=3600"})

"""Signing in, and a merchant's pages (interfaces.md, Web pages): sign in with a secret key (or
a principal's owner key, or a link code); the key's mode's
sessions (test ones badged), each with every verdict in words; after the end, reveal the
committed floor and publish a manual hand-off. The key lives in a cookie of its own per mode."""

import asyncio
from typing import Annotated, Any, Final

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from accord.app.events import Level, own_audience
from accord.app.identity import MerchantCaller
from accord.core.refusals import Refusal, RefusalCode, Refused
from accord.protocols.arbitrated.moves import HandoffRequest
from accord.web import live, principal, security
from accord.web.pages import SHOWN, _accord, _refusal, _status, landing, page
from accord.web.session import CLOSES, _currency, verdicts_in_words

router = APIRouter(include_in_schema=False)
MODES: Final = ("live", "test")
SECRET_PREFIX: Final = "acc_sk_"
OWNER_PREFIX: Final = "acc_ok_"


def _keys(request: Request) -> dict[str, str]:
    """mode → the secret key this browser holds for it."""
    found = {mode: request.cookies.get(security.cookie_name(f"merchant_{mode}")) for mode in MODES}
    return {mode: key for mode, key in found.items() if key}


def _key_for(request: Request, mode: str | None) -> str | None:
    keys = _keys(request)
    return keys.get(mode or "") if mode else next(iter(keys.values()), None)


@router.get("/login", response_class=HTMLResponse)
def login_form() -> HTMLResponse:
    return page("login.html")


@router.post("/login")
def login(request: Request, secret: Annotated[str, Form(max_length=300)] = "") -> Response:
    """A merchant's secret key, or a link code (as `/claim` takes it)."""
    accord = _accord(request)
    value = secret.strip()
    try:
        security.check_origin(request, accord.settings.base_url)
        if value.startswith(SECRET_PREFIX):
            caller = accord.doors.identify(value)
            if not isinstance(caller, MerchantCaller) or caller.key_kind != "secret":
                raise Refused(Refusal(RefusalCode.FORBIDDEN, "Sign in with a secret key.", {}))
            answer = RedirectResponse(f"/merchant?mode={caller.mode}", status_code=303)
            security.set_credential(
                answer, accord.settings.base_url, f"merchant_{caller.mode}", value
            )
            return answer
        if value.startswith(OWNER_PREFIX):
            principal._caller(request, value)
            return principal.signed_in(request, value, accord.settings.base_url)
        if value.startswith("acc_"):
            raise Refused(
                Refusal(
                    RefusalCode.FORBIDDEN,
                    "Sign in with a merchant's secret key, a principal's owner key or a link "
                    "code; an agent's or a publishable key is for programs.",
                    {},
                )
            )
        redeemed = accord.links.redeem(value.rsplit("#", 1)[-1], "web", kinds=SHOWN)
    except Refused as refused:
        return page("login.html", status=_status(refused.refusal), error=_refusal(refused))
    return landing(redeemed, accord.settings.base_url)


def _signed_out() -> HTMLResponse:
    return page("message.html", status=401, credentialed=True, heading="Sign in", text=(
        "This browser holds no merchant key. Sign in with your secret key first."
    ))  # fmt: skip


@router.get("/merchant", response_class=HTMLResponse)
def sessions(request: Request, mode: str | None = None) -> HTMLResponse:
    key = _key_for(request, mode)
    if key is None:
        return _signed_out()
    try:
        listed = _accord(request).sessions.list_sessions(key, 100)
        me = _accord(request).doors.identify(key)
    except Refused as refused:
        return page(
            "message.html",
            status=_status(refused.refusal),
            credentialed=True,
            heading="Sign in again",
            error=_refusal(refused),
        )
    assert isinstance(me, MerchantCaller)
    return page(
        "merchant.html",
        credentialed=True,
        sessions=listed["sessions"],
        mode=me.mode,
        modes=sorted(_keys(request)),
    )


def _session_page(
    request: Request,
    key: str,
    session_id: str,
    *,
    status: int = 200,
    error: dict[str, Any] | None = None,
    reveals: list[Any] | None = None,
) -> HTMLResponse:
    try:
        view = _accord(request).sessions.show(key, session_id)
    except Refused as refused:
        return page(
            "message.html",
            status=_status(refused.refusal),
            credentialed=True,
            heading="This session cannot be shown",
            error=_refusal(refused),
        )
    return page(
        "merchant_session.html",
        status=status,
        credentialed=True,
        session=view,
        verdicts=verdicts_in_words(view["log"], _currency(view["log"])),
        close_reason=CLOSES.get((view["close"] or {}).get("reason", ""), None),
        error=error,
        reveals=reveals,
        published=view["state"] == "agreed"
        and _accord(request).sessions.handoff_published(key, session_id),
    )


def _session_key(request: Request, session_id: str) -> str | None:
    """The browser's key for the session's mode (a session id does not say its mode)."""
    keys = _keys(request)
    for key in keys.values():
        try:
            _accord(request).sessions.check_merchant(key, session_id)
        except Refused:
            continue
        return key
    return None


@router.get("/merchant/sessions/{session_id}", response_class=HTMLResponse)
def session(request: Request, session_id: str) -> HTMLResponse:
    key = _session_key(request, session_id)
    if key is None:
        return _signed_out() if not _keys(request) else _not_yours()
    return _session_page(request, key, session_id)


@router.get("/merchant/sessions/{session_id}/events")
async def session_events(request: Request, session_id: str) -> Response:
    """`changed` for each new event of the session, as the key's tenant and mode follow it: the
    page fetches its live region again."""
    key = await asyncio.to_thread(_session_key, request, session_id)
    if key is None:
        status = 404 if _keys(request) else 401
        return Response(status_code=status, headers=security.CREDENTIALED)
    accord = _accord(request)
    me = await asyncio.to_thread(accord.doors.identify, key)
    audience = own_audience(me, Level.OWNER)
    assert audience is not None  # a secret key: its tenant's mode
    after = await asyncio.to_thread(accord.events.last_id)
    return live.changes(
        accord.events, audience, after, lambda row: row.negotiation_id == session_id
    )


def _not_yours() -> HTMLResponse:
    return page("message.html", status=404, credentialed=True, heading="No such session", text=(
        "None of your keys opens a session with this id."
    ))  # fmt: skip


@router.post("/merchant/sessions/{session_id}/reveal", response_class=HTMLResponse)
def reveal(request: Request, session_id: str) -> HTMLResponse:
    key = _session_key(request, session_id)
    if key is None:
        return _signed_out() if not _keys(request) else _not_yours()
    accord = _accord(request)
    try:
        security.check_origin(request, accord.settings.base_url)
        revealed = accord.sessions.merchant_reveal(key, session_id)
    except Refused as refused:
        return _session_page(
            request, key, session_id, status=_status(refused.refusal), error=_refusal(refused)
        )
    return _session_page(request, key, session_id, reveals=revealed["reveals"])


@router.post("/merchant/sessions/{session_id}/handoff")
async def handoff(request: Request, session_id: str) -> Response:
    key = _session_key(request, session_id)
    if key is None:
        return _signed_out() if not _keys(request) else _not_yours()
    accord = _accord(request)
    async with request.form() as form:
        fields = {name: str(value) for name, value in form.items()}
    try:
        security.check_origin(request, accord.settings.base_url)
        try:
            published = HandoffRequest.model_validate(fields)
        except ValueError:
            raise Refused(
                Refusal(
                    RefusalCode.INVALID_REQUEST,
                    "Give the hand-off's kind, value, checkout URL and when it expires.",
                    {},
                )
            ) from None
        accord.sessions.publish_handoff(key, session_id, published)
    except Refused as refused:
        return _session_page(
            request, key, session_id, status=_status(refused.refusal), error=_refusal(refused)
        )
    return RedirectResponse(f"/merchant/sessions/{session_id}", status_code=303)

"""A principal's pages (interfaces.md, Web pages): sign in with the owner key; the
opportunities in words, the other side layer by layer (a closed layer shows only what opens
it, never why a check failed), the agents' turns quoted as data, the person's own decision
(Accept introduction or Pass), the answers to their agent's questions, and each intent's chat
with the agent that works it."""

import asyncio
from collections.abc import Callable
from typing import Annotated, Any, Final, TypeVar

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from accord.app.events import PrincipalAudience
from accord.app.identity import PrincipalCaller
from accord.core.refusals import Refusal, RefusalCode, Refused
from accord.protocols.intro.intents import ChatInput
from accord.protocols.intro.moves import AnswerRequest
from accord.protocols.intro.opportunities import DecisionInput
from accord.store.events import EventRow
from accord.web import live, security
from accord.web.pages import PRINCIPAL_COOKIE, _accord, _refusal, _status, page

router = APIRouter(include_in_schema=False)
COOKIE: Final = PRINCIPAL_COOKIE
T = TypeVar("T")

STATUSES: Final = {
    "open": "Your agents are talking it over.",
    "pending": "The agents agree it is worth it: you and they decide.",
    "accepted": "Introduced: you both accepted.",
    "rejected": "Not introduced.",
    "expired": "It waited too long for a decision and lapsed.",
}
OPENS: Final = {
    "statement": "Their statement opens once both agents find the pair worth talking about.",
    "constraints": "Their constraints open once they are seen to fit yours.",
    "identity": "Who they are opens once you both accept the introduction.",
}


def _key(request: Request) -> str | None:
    return request.cookies.get(security.cookie_name(COOKIE))


def _signed_out() -> HTMLResponse:
    return page("message.html", status=401, credentialed=True, heading="Sign in", text=(
        "This browser holds no principal's key. Sign in with your owner key first."
    ))  # fmt: skip


def _caller(request: Request, key: str) -> PrincipalCaller:
    caller = _accord(request).doors.identify(key)
    if not isinstance(caller, PrincipalCaller) or caller.level != "owner":
        raise Refused(Refusal(RefusalCode.FORBIDDEN, "Sign in with your owner key.", {}))
    return caller


def signed_in(request: Request, key: str, base_url: str) -> Response:
    """After `/login` took an owner key: the cookie, and the opportunities."""
    answer = RedirectResponse("/opportunities", status_code=303)
    security.set_credential(answer, base_url, COOKIE, key)
    return answer


def _read(request: Request, read: Callable[[PrincipalCaller], T]) -> T | HTMLResponse:
    key = _key(request)
    if key is None:
        return _signed_out()
    try:
        return read(_caller(request, key))
    except Refused as refused:
        if refused.refusal.code in (RefusalCode.UNAUTHENTICATED, RefusalCode.FORBIDDEN):
            return _signed_out()
        return page(
            "message.html",
            status=_status(refused.refusal),
            credentialed=True,
            heading="This cannot be shown",
            error=_refusal(refused),
        )


@router.get("/opportunities", response_class=HTMLResponse)
def opportunities(request: Request) -> HTMLResponse:
    found = _read(request, lambda c: _accord(request).opportunities.list_seated(c, None, None))
    if isinstance(found, HTMLResponse):
        return found
    return page(
        "opportunities.html",
        credentialed=True,
        opportunities=found["opportunities"],
        statuses=STATUSES,
    )


def _opportunity_page(
    request: Request,
    opportunity_id: str,
    *,
    status: int = 200,
    error: dict[str, Any] | None = None,
) -> HTMLResponse:
    def read(caller: PrincipalCaller) -> dict[str, Any]:
        service = _accord(request).opportunities
        return {
            **service.get(caller, opportunity_id),
            "questions": service.questions(caller, opportunity_id)["questions"],
        }

    found = _read(request, read)
    if isinstance(found, HTMLResponse):
        return found
    return page(
        "opportunity.html",
        status=status,
        credentialed=True,
        opportunity=found["opportunity"],
        negotiation=found["negotiation"],
        counterparty=found["counterparty"],
        questions=found["questions"],
        statuses=STATUSES,
        opens=OPENS,
        error=error,
    )


@router.get("/opportunities/{opportunity_id}", response_class=HTMLResponse)
def opportunity(request: Request, opportunity_id: str) -> HTMLResponse:
    return _opportunity_page(request, opportunity_id)


def write(
    request: Request,
    where: str,
    change: Callable[[PrincipalCaller], Any],
    again: Callable[..., HTMLResponse],
    item_id: str,
) -> Response:
    """A principal's form: checked, applied with the owner key, then back to `where`; a
    refusal shows the page again (`again`) with its error summary."""
    key = _key(request)
    if key is None:
        return _signed_out()
    accord = _accord(request)
    try:
        security.check_origin(request, accord.settings.base_url)
        change(_caller(request, key))
    except Refused as refused:
        return again(request, item_id, status=_status(refused.refusal), error=_refusal(refused))
    return RedirectResponse(where, status_code=303)


def _write(
    request: Request, opportunity_id: str, change: Callable[[PrincipalCaller], Any]
) -> Response:
    where = f"/opportunities/{opportunity_id}"
    return write(request, where, change, _opportunity_page, opportunity_id)


@router.post("/opportunities/{opportunity_id}/decision")
def decide(
    request: Request, opportunity_id: str, status: Annotated[str, Form(max_length=20)] = ""
) -> Response:
    body = DecisionInput(status=status)
    return _write(
        request,
        opportunity_id,
        lambda caller: _accord(request).opportunities.decide(caller, opportunity_id, body),
    )


@router.post("/opportunities/{opportunity_id}/questions/{question_id}")
def answer(
    request: Request,
    opportunity_id: str,
    question_id: str,
    answer: Annotated[str, Form(max_length=2000)] = "",
) -> Response:
    body = AnswerRequest(answer=answer)
    return _write(
        request,
        opportunity_id,
        lambda caller: _accord(request).opportunities.answer(
            caller, opportunity_id, question_id, body
        ),
    )


def _chat_page(
    request: Request,
    intent_id: str,
    *,
    status: int = 200,
    error: dict[str, Any] | None = None,
) -> HTMLResponse:
    def read(caller: PrincipalCaller) -> dict[str, Any]:
        intents = _accord(request).intents
        return {**intents.get(caller, intent_id), **intents.messages(caller, intent_id, None)}

    found = _read(request, read)
    if isinstance(found, HTMLResponse):
        return found
    return page(
        "chat.html",
        status=status,
        credentialed=True,
        intent=found["intent"],
        messages=found["messages"],
        error=error,
    )


@router.get("/intents/{intent_id}/chat", response_class=HTMLResponse)
def chat(request: Request, intent_id: str) -> HTMLResponse:
    return _chat_page(request, intent_id)


@router.post("/intents/{intent_id}/chat")
def chat_post(
    request: Request, intent_id: str, message: Annotated[str, Form(max_length=4000)] = ""
) -> Response:
    body = ChatInput(message=message)
    return write(
        request,
        f"/intents/{intent_id}/chat",
        lambda caller: _accord(request).intents.post_message(caller, intent_id, body),
        _chat_page,
        intent_id,
    )


async def follow(
    request: Request, read: Callable[[PrincipalCaller], Callable[[EventRow], bool]]
) -> Response:
    """`changed` for the owner's events that concern the page (`read` checks the page may be
    shown, and says which events concern it)."""
    key = _key(request)
    if key is None:
        return Response(status_code=401, headers=security.CREDENTIALED)
    accord = _accord(request)

    def start() -> tuple[PrincipalCaller, Callable[[EventRow], bool], int]:
        caller = _caller(request, key)
        return caller, read(caller), accord.events.last_id()

    try:
        caller, concerns, after = await asyncio.to_thread(start)
    except Refused as refused:
        return Response(status_code=_status(refused.refusal), headers=security.CREDENTIALED)
    return live.changes(accord.events, PrincipalAudience.of(caller), after, concerns)


@router.get("/opportunities/{opportunity_id}/events")
async def opportunity_events(request: Request, opportunity_id: str) -> Response:
    def read(caller: PrincipalCaller) -> Callable[[EventRow], bool]:
        found = _accord(request).opportunities.get(caller, opportunity_id)
        negotiation_id = found["opportunity"]["negotiation_id"]
        return lambda row: row.negotiation_id == negotiation_id

    return await follow(request, read)

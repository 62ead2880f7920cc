"""A buyer's session as the buyer's person sees it (interfaces.md, Web pages), opened from the
`person_link` a buyer agent's `shop_open` gave: the rounds, the offer on the table, every
verdict of the arbiter in words, and the person's own moves: accept the standing offer or walk
away, and claim the merchant's hand-off once agreed."""

import asyncio
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Final

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from accord.app.events import Level, SeatAudience
from accord.core.money import format_money
from accord.core.refusals import Refusal, RefusalCode, Refused
from accord.protocols.arbitrated.moves import AcceptMove, RejectMove
from accord.protocols.arbitrated.state import BUYER
from accord.web import live, security
from accord.web.pages import _accord, _refusal, _status, page

router = APIRouter(include_in_schema=False)

VERDICTS: Final = {
    "fair": "fair",
    "unfair_to_buyer": "unfair to the buyer: the price is too high",
    "unfair_to_merchant": "unfair to the merchant: the price is too low",
    "unscoreable": "could not be scored",
}
CLOSES: Final = {
    "rejected": "your side walked away",
    "timeout": "no one moved in time",
    "max_rounds": "the rounds ran out",
    "unfair_offers": "the arbiter refused a second unfair offer",
}


def _token(request: Request, session_id: str) -> str | None:
    return request.cookies.get(security.cookie_name(session_id))


def _no_cookie() -> HTMLResponse:
    return page("message.html", status=401, credentialed=True, heading="Open your link", text=(
        "This browser holds no credential for this session. Open the link your agent gave "
        "you for it (it ends in /claim#…)."
    ))  # fmt: skip


def _price(money: Mapping[str, Any] | None) -> str:
    if not money:
        return "—"
    return format_money(money["amount_minor"], money["currency"])


def verdicts_in_words(log: Sequence[Mapping[str, Any]], currency: str) -> list[dict[str, Any]]:
    """Each evaluation of the arbiter, with who made the offer it scored."""
    rows: list[dict[str, Any]] = []
    proposer = ""
    for envelope in log:
        kind, payload = envelope["type"], envelope["payload"]
        if kind in ("offer.propose", "offer.counter"):
            proposer = (
                "the merchant" if envelope["sender"].get("role") == "merchant" else "your agent"
            )
        elif kind == "arbitration.evaluate":
            rows.append(
                {
                    "round": payload["round"],
                    "who": proposer,
                    "price": format_money(payload["price_minor"], currency),
                    "score": payload.get("fairness_score"),
                    "verdict": VERDICTS.get(payload["verdict"], payload["verdict"]),
                    "suggested": _price(payload.get("suggested_adjustment")),
                }
            )
        elif kind == "arbitration.reject" and rows:
            rows[-1]["outcome"] = "refused: a corrective offer is due"
        elif kind == "session.agree" and rows:
            rows[-1]["outcome"] = "accepted"
    return rows


def session_page(
    request: Request,
    session_id: str,
    token: str,
    *,
    status: int = 200,
    error: dict[str, Any] | None = None,
    handoff: dict[str, Any] | None = None,
) -> HTMLResponse:
    try:
        view = _accord(request).sessions.show(token, session_id)
    except Refused as refused:
        if refused.refusal.code in (RefusalCode.UNAUTHENTICATED, RefusalCode.FORBIDDEN):
            return _no_cookie()
        return page(
            "message.html",
            status=_status(refused.refusal),
            credentialed=True,
            heading="This session cannot be shown",
            error=_refusal(refused),
        )
    standing = view["offer_on_table"]
    terms = standing["terms"] if standing else None
    currency = terms["price"]["currency"] if terms else _currency(view["log"])
    return page(
        "session.html",
        status=status,
        credentialed=True,
        session=view,
        standing=standing,
        price=_price(terms["price"]) if terms else None,
        inclusions=[i["kind"] for i in (terms or {}).get("inclusions", [])],
        verdicts=verdicts_in_words(view["log"], currency),
        close_reason=CLOSES.get((view["close"] or {}).get("reason", ""), None),
        error=error,
        handoff=handoff,
    )


def _currency(log: Sequence[Mapping[str, Any]]) -> str:
    for envelope in log:
        price = (envelope["payload"].get("terms") or {}).get("price")
        if price:
            return str(price["currency"])
    return "XXX"


@router.get("/sessions/{session_id}", response_class=HTMLResponse)
def show(request: Request, session_id: str) -> HTMLResponse:
    token = _token(request, session_id)
    if token is None:
        return _no_cookie()
    return session_page(request, session_id, token)


@router.post("/sessions/{session_id}/moves")
def move(
    request: Request,
    session_id: str,
    type: Annotated[str, Form()] = "",
    message_id: Annotated[str, Form(max_length=128)] = "",
) -> Response:
    token = _token(request, session_id)
    if token is None:
        return _no_cookie()
    accord = _accord(request)
    try:
        security.check_origin(request, accord.settings.base_url)
        made: AcceptMove | RejectMove
        if type == "accept":
            made = AcceptMove(type="accept", message_id=message_id or None)
        elif type == "reject":
            made = RejectMove(type="reject", message_id=message_id or None)
        else:
            raise Refused(Refusal(RefusalCode.INVALID_REQUEST, "Accept or walk away.", {}))
        accord.sessions.move(token, session_id, made)
    except Refused as refused:
        return session_page(
            request, session_id, token, status=_status(refused.refusal), error=_refusal(refused)
        )
    return RedirectResponse(f"/sessions/{session_id}", status_code=303)


@router.post("/sessions/{session_id}/handoff/claim", response_class=HTMLResponse)
def claim_handoff(request: Request, session_id: str) -> Response:
    token = _token(request, session_id)
    if token is None:
        return _no_cookie()
    accord = _accord(request)
    try:
        security.check_origin(request, accord.settings.base_url)
        handoff = accord.sessions.claim_handoff(token, session_id)
    except Refused as refused:
        return session_page(
            request, session_id, token, status=_status(refused.refusal), error=_refusal(refused)
        )
    return session_page(request, session_id, token, handoff=handoff)


@router.get("/sessions/{session_id}/events")
async def session_events(request: Request, session_id: str) -> Response:
    """`changed` for each new move of the session: the page fetches its live region again."""
    token = _token(request, session_id)
    if token is None:
        return Response(status_code=401, headers=security.CREDENTIALED)
    accord = _accord(request)
    try:
        await asyncio.to_thread(accord.sessions.check_access, token, session_id, buyer_only=True)
        after = await asyncio.to_thread(accord.events.last_id)
    except Refused as refused:
        return Response(status_code=_status(refused.refusal), headers=security.CREDENTIALED)
    audience = SeatAudience(session_id, BUYER, Level.AGENT)
    return live.changes(accord.events, audience, after)

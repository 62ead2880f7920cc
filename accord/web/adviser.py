"""A principal's adviser cases for the person (interfaces.md, Web pages): the case as its
one-page brief (lifecycle, objective, BATNA, topics with targets and minimums, the last deal
review), the open questions as forms of their kind with what each decides, the unseen
material changes to mark seen, and an offer to review: the eight tests, the recommendation, and
accepting against it only with a reason."""

from collections.abc import Callable
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, Response

from accord.adviser.requests import AnswerInput, OverrideInput, ReviewInput
from accord.adviser.review import Offer
from accord.adviser.review_words import reasons
from accord.adviser.state import NegotiationState
from accord.app.identity import PrincipalCaller
from accord.store.events import EventRow
from accord.web import live, principal
from accord.web.pages import _accord, page
from accord.web.values import checked

router = APIRouter(include_in_schema=False)


@router.get("/adviser/cases", response_class=HTMLResponse)
def cases(request: Request) -> HTMLResponse:
    found = principal._read(request, lambda c: _accord(request).adviser.list_own(c))
    if isinstance(found, HTMLResponse):
        return found
    return page("cases.html", credentialed=True, cases=found["cases"])


def _case_page(
    request: Request, case_id: str, *, status: int = 200, error: dict[str, Any] | None = None
) -> HTMLResponse:
    def read(caller: PrincipalCaller) -> dict[str, Any]:
        adviser = _accord(request).adviser
        return {
            "case": adviser.get(caller, case_id),
            "brief": adviser.export(caller, case_id, None),
        }

    found = principal._read(request, read)
    if isinstance(found, HTMLResponse):
        return found
    state = NegotiationState.model_validate(found["case"]["state"])
    return page(
        "case.html",
        status=status,
        credentialed=True,
        case=found["case"],
        brief=found["brief"],
        reasons=reasons(state),
        error=error,
    )


@router.get("/adviser/cases/{case_id}", response_class=HTMLResponse)
def case(request: Request, case_id: str) -> HTMLResponse:
    return _case_page(request, case_id)


def _write(request: Request, case_id: str, write: Callable[[PrincipalCaller], Any]) -> Response:
    return principal.write(request, f"/adviser/cases/{case_id}", write, _case_page, case_id)


@router.post("/adviser/cases/{case_id}/answers")
async def answer(request: Request, case_id: str) -> Response:
    async with request.form() as form:
        fields = {name: str(value) for name, value in form.items()}
    kind = fields.get("kind", "text")
    raw = fields.get("answer", "")
    value: Any = raw
    if kind == "boolean":
        value = raw == "true"
    elif kind == "list":
        value = [line.strip() for line in raw.splitlines() if line.strip()]

    def answer(caller: PrincipalCaller) -> Any:
        body = checked(AnswerInput, question_id=fields.get("question_id", ""), answer=value)
        return _accord(request).adviser.answer(caller, case_id, body)

    return _write(request, case_id, answer)


@router.post("/adviser/cases/{case_id}/deal-review")
async def review(request: Request, case_id: str) -> Response:
    """An offer from the form (a value per topic, its text, its conditions one per line)
    reviewed by F08; the case page then shows the eight tests and the recommendation."""
    async with request.form() as form:
        fields = {name: str(value) for name, value in form.items()}
    terms = {
        name.removeprefix("term."): value.strip()
        for name, value in fields.items()
        if name.startswith("term.") and value.strip()
    }
    text = fields.get("text", "").strip() or None
    lines = fields.get("conditions", "").splitlines()
    conditions = [line.strip() for line in lines if line.strip()]

    def reviewed(caller: PrincipalCaller) -> Any:
        offer = checked(Offer, terms=terms, text=text, conditions=conditions)
        return _accord(request).adviser.review(caller, case_id, ReviewInput(offer=offer))

    return _write(request, case_id, reviewed)


@router.post("/adviser/cases/{case_id}/deal-review/override")
def override(
    request: Request,
    case_id: str,
    reason: Annotated[str, Form(max_length=2000)] = "",
    new_evidence: Annotated[str, Form(max_length=4000)] = "",
) -> Response:
    """Accepting against the review's recommendation: only with a reason, on the record."""

    def overridden(caller: PrincipalCaller) -> Any:
        body = checked(
            OverrideInput,
            decision="accept",
            reason=reason.strip(),
            new_evidence=new_evidence.strip() or None,
        )
        return _accord(request).adviser.override(caller, case_id, body)

    return _write(request, case_id, overridden)


@router.post("/adviser/cases/{case_id}/material-changes/{change_id}/seen")
def seen(request: Request, case_id: str, change_id: str) -> Response:
    return _write(request, case_id, lambda c: _accord(request).adviser.seen(c, case_id, change_id))


@router.get("/adviser/cases/{case_id}/events")
async def case_events(request: Request, case_id: str) -> Response:
    def read(caller: PrincipalCaller) -> Callable[[EventRow], bool]:
        _accord(request).adviser.get(caller, case_id)
        return live.about("case_id", case_id)

    return await principal.follow(request, read)

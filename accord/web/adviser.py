"""A principal's adviser cases for the person (interfaces.md, Web pages): the case as its
one-page brief (lifecycle, objective, BATNA, topics with targets and minimums, the last deal
review), the open questions as forms of their kind with what each decides, and the unseen
material changes to mark seen."""

from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from accord.adviser.requests import AnswerInput
from accord.app.identity import PrincipalCaller
from accord.web import principal
from accord.web.pages import _accord, page

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
    return page(
        "case.html",
        status=status,
        credentialed=True,
        case=found["case"],
        brief=found["brief"],
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
    body = AnswerInput(question_id=fields.get("question_id", ""), answer=value)
    return _write(request, case_id, lambda c: _accord(request).adviser.answer(c, case_id, body))


@router.post("/adviser/cases/{case_id}/material-changes/{change_id}/seen")
def seen(request: Request, case_id: str, change_id: str) -> Response:
    return _write(request, case_id, lambda c: _accord(request).adviser.seen(c, case_id, change_id))

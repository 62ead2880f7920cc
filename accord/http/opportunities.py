"""Opportunities over HTTP (spec/intro-api.md, Endpoints and Opportunities). Opening is a
route on one of the caller's intents, found before the body is read; an opportunity's routes
find it and the caller's seat in the service (`not_found`, then `not_a_seat`)."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from accord.app.identity import PrincipalCaller
from accord.app.opportunities import Opportunities
from accord.app.principals import Action, Principals
from accord.http.auth import ApiKey
from accord.http.intents import IntentReader
from accord.http.principals import Reader
from accord.http.strict import StrictRoute
from accord.protocols.intro.moves import AnswerRequest, QuestionsRequest, ResumeRequest, TurnRequest
from accord.protocols.intro.opportunities import DecisionInput, OpenInput

router = APIRouter(route_class=StrictRoute, tags=["opportunities"])


def _opportunities(request: Request) -> Opportunities:
    opportunities: Opportunities = request.app.state.accord.opportunities
    return opportunities


def _seated(request: Request, key: ApiKey, opportunity_id: str, action: Action) -> PrincipalCaller:
    principals: Principals = request.app.state.accord.principals
    caller = principals.authorize(key, Action.READ)
    _opportunities(request).find(caller, opportunity_id, action)
    return caller


def turn_taker(request: Request, key: ApiKey, opportunity_id: str) -> PrincipalCaller:
    """not_found → not_a_seat → forbidden (an owner key), before the body is read."""
    return _seated(request, key, opportunity_id, Action.TAKE_TURNS)


def decider(request: Request, key: ApiKey, opportunity_id: str) -> PrincipalCaller:
    """not_found → not_a_seat → forbidden (an agent key), before the body is read."""
    return _seated(request, key, opportunity_id, Action.WRITE)


def seat_reader(request: Request, key: ApiKey, opportunity_id: str) -> PrincipalCaller:
    """not_found → not_a_seat, before the body is read: any key of a seat's principal reads,
    and a resume is the owner's or an agent's (the protocol tells an agent that is not the
    selected one, in its check order)."""
    return _seated(request, key, opportunity_id, Action.READ)


TurnTaker = Annotated[PrincipalCaller, Depends(turn_taker)]
Decider = Annotated[PrincipalCaller, Depends(decider)]
SeatReader = Annotated[PrincipalCaller, Depends(seat_reader)]


@router.post("/api/intents/{intent_id}/opportunities", summary="Open opportunities with candidates")
def open_opportunities(
    intent_id: str, body: OpenInput, request: Request, caller: IntentReader
) -> dict[str, Any]:
    return _opportunities(request).open(caller, intent_id, body)


@router.get("/api/opportunities", summary="The opportunities you hold a seat in, newest first")
def list_opportunities(
    request: Request,
    caller: Reader,
    status: Annotated[str | None, Query(description="Only those with this status.")] = None,
    intent_id: Annotated[
        str | None, Query(description="Only those of this intent of yours.")
    ] = None,
) -> dict[str, Any]:
    return _opportunities(request).list_seated(caller, status, intent_id)


@router.get("/api/opportunities/{opportunity_id}", summary="One of your opportunities")
def get_opportunity(opportunity_id: str, request: Request, caller: Reader) -> dict[str, Any]:
    return _opportunities(request).get(caller, opportunity_id)


@router.get(
    "/api/opportunities/{opportunity_id}/negotiation",
    summary="The negotiation, as your seat sees it",
)
def get_negotiation(opportunity_id: str, request: Request, caller: Reader) -> dict[str, Any]:
    return _opportunities(request).negotiation(caller, opportunity_id)


@router.post(
    "/api/opportunities/{opportunity_id}/negotiation/resume",
    summary="Open the next round on new context (the owner or the selected agent)",
)
def resume(
    opportunity_id: str, body: ResumeRequest, request: Request, caller: SeatReader
) -> dict[str, Any]:
    return _opportunities(request).resume(caller, opportunity_id, body)


@router.post(
    "/api/opportunities/{opportunity_id}/negotiation/questions",
    status_code=201,
    summary="Ask your owner (the selected agent's key)",
)
def ask(
    opportunity_id: str, body: QuestionsRequest, request: Request, caller: TurnTaker
) -> dict[str, Any]:
    return _opportunities(request).ask(caller, opportunity_id, body)


@router.get(
    "/api/opportunities/{opportunity_id}/negotiation/questions",
    summary="Your seat's questions to its owner",
)
def questions(opportunity_id: str, request: Request, caller: Reader) -> dict[str, Any]:
    return _opportunities(request).questions(caller, opportunity_id)


@router.post(
    "/api/opportunities/{opportunity_id}/negotiation/questions/{question_id}/answer",
    summary="Answer your agent's question (the owner key)",
)
def answer(
    opportunity_id: str, question_id: str, body: AnswerRequest, request: Request, caller: Decider
) -> dict[str, Any]:
    return _opportunities(request).answer(caller, opportunity_id, question_id, body)


@router.get(
    "/api/opportunities/{opportunity_id}/negotiation/log",
    summary="The negotiation's whole log, the same for both seats",
)
def log(opportunity_id: str, request: Request, caller: Reader) -> dict[str, Any]:
    return _opportunities(request).log(caller, opportunity_id)


@router.get(
    "/api/opportunities/{opportunity_id}/negotiation/receipt",
    summary="The receipt, once the negotiation settled",
)
def receipt(opportunity_id: str, request: Request, caller: Reader) -> dict[str, Any]:
    return _opportunities(request).receipt(caller, opportunity_id)


@router.get("/api/negotiations", summary="The negotiations of your opportunities, newest first")
def list_negotiations(
    request: Request,
    caller: Reader,
    state: Annotated[str | None, Query(description="open or settled.")] = None,
    intent_id: Annotated[
        str | None, Query(description="Only those of this intent of yours.")
    ] = None,
) -> dict[str, Any]:
    return _opportunities(request).list_negotiations(caller, state, intent_id)


@router.post(
    "/api/opportunities/{opportunity_id}/negotiation/turns",
    summary="Take your seat's turn (the selected agent's key)",
)
def take_turn(
    opportunity_id: str, body: TurnRequest, request: Request, caller: TurnTaker
) -> dict[str, Any]:
    return _opportunities(request).turn(caller, opportunity_id, body)


@router.patch("/api/opportunities/{opportunity_id}/status", summary="Decide on it (the owner key)")
def decide(
    opportunity_id: str, body: DecisionInput, request: Request, caller: Decider
) -> dict[str, Any]:
    return _opportunities(request).decide(caller, opportunity_id, body)

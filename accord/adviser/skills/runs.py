"""Running a built-in skill: its request read, its view of the state made, its computation, and
its SKILL_RESPONSE (adviser-api.md, Skills). F08 and F09 run through their own calls."""

from collections.abc import Mapping
from typing import Any

from pydantic import JsonValue, ValidationError

from accord.adviser.intake import intake
from accord.adviser.questions import Question
from accord.adviser.skills import (
    alternatives,
    authority,
    drafting,
    interests,
    roleplay,
    targets,
)
from accord.adviser.skills.output import Output
from accord.adviser.skills.registry import BUILTIN, view
from accord.adviser.state import NegotiationState


class BadRequest(ValueError):
    """A run's `request` that its skill does not take; the message says what it takes."""


def compute(
    skill_id: str,
    state: dict[str, Any],
    blank: dict[str, Any],
    request: JsonValue,
    *,
    depth_given: bool,
    known: Mapping[str, Question],
    request_id: str,
) -> Output:
    """What a built-in (F01-F07) makes of its view of the state."""
    seen = view(state, BUILTIN[skill_id].reads, blank)
    model = NegotiationState.model_validate(seen)
    if skill_id == "F07":
        try:
            asked = drafting.DraftRequest.model_validate(request)
        except ValidationError:
            raise BadRequest("F07 takes {kind: agenda | talking_points | draft}") from None
        return drafting.run(model, asked)
    if skill_id == "F06":
        try:
            played = roleplay.RoleplayRequest.model_validate(request or {})
        except ValidationError:
            raise BadRequest(
                "F06 takes {seeds?: [0..2^31-1, at most 50], rounds?: 1..1000}"
            ) from None
        return roleplay.run(model, played, request_id)
    if request not in (None, {}):
        raise BadRequest(f"{skill_id} takes no request")
    if skill_id == "F01":
        ran = intake(seen, answered=False, depth_given=depth_given, known=known)
        return Output("Intake: what the file still needs", "medium", ran.patches, ran.questions)
    runs = {
        "F02": interests.run,
        "F03": alternatives.run,
        "F04": targets.run,
        "F05": authority.run,
    }
    return runs[skill_id](model)

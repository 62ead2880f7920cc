"""Running a built-in skill: its request read, its view of the state made, its computation, and
its SKILL_RESPONSE (adviser-api.md, Skills). F08 and F09 run through their own calls too; F06
needs the engine and is run by its module."""

from collections.abc import Mapping
from typing import Any

from pydantic import JsonValue, ValidationError

from accord.adviser.intake import intake
from accord.adviser.questions import Question
from accord.adviser.skills import alternatives, authority, drafting, interests, targets
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
) -> Output:
    """What a built-in (F01-F05, F07) makes of its view of the state."""
    seen = view(state, BUILTIN[skill_id].reads, blank)
    model = NegotiationState.model_validate(seen)
    if skill_id == "F07":
        try:
            asked = drafting.DraftRequest.model_validate(request)
        except ValidationError:
            raise BadRequest("F07 takes {kind: agenda | talking_points | draft}") from None
        return drafting.run(model, asked)
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

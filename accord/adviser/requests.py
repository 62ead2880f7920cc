"""What the adviser's calls take (adviser-api.md, Cases): strict bodies, refused whole when a
member is unknown or of the wrong type."""

from typing import Literal, Self

from pydantic import Field, JsonValue, model_validator

from accord.adviser.enums import AnalysisDepth
from accord.adviser.patches import Patch
from accord.adviser.review import Offer
from accord.adviser.wire import Wire
from accord.core.strict import Strict

MAX_PATCHES = 100


class CaseInput(Strict):
    title: str = Field(min_length=1, max_length=200)
    description: str | None = Field(default=None, max_length=4000)
    analysis_depth: Wire[AnalysisDepth] | None = None


class PatchSet(Strict):
    """The user's own edits, based on the version they were made against."""

    based_on_state_version: int = Field(ge=1)
    patches: list[Patch] = Field(min_length=1, max_length=MAX_PATCHES)


class CloseInput(Strict):
    outcome: Literal["closed", "no_deal"]
    reason: str = Field(min_length=1, max_length=2000)


class AnswerInput(Strict):
    question_id: str = Field(min_length=1, max_length=64)
    answer: JsonValue


class ReviewInput(Strict):
    offer: Offer


class OverrideInput(Strict):
    """The user accepting against the review's recommendation, on the record."""

    decision: Literal["accept"]
    reason: str = Field(min_length=1, max_length=2000)
    new_evidence: str | None = Field(default=None, max_length=4000)


class Empty(Strict):
    """A call that takes no members."""


class RunInput(Strict):
    """A skill run: a built-in's `request`, or the SKILL_RESPONSE a registered skill made."""

    request: JsonValue = None
    response: JsonValue = None


class ReconcileInput(Strict):
    reconciliation: Literal["ACCEPT", "TEST", "REJECT", "DEFER"]


class LinkInput(Strict):
    """A table to follow: `rooms` (the seat's seat or owner token), `arbitrated` (the buyer's
    session token) or `intro` (an opportunity of yours; no credential)."""

    protocol: Literal["rooms", "arbitrated", "intro"]
    negotiation_id: str = Field(min_length=1, max_length=128)
    credential: str | None = Field(default=None, min_length=1, max_length=512)

    @model_validator(mode="after")
    def _credential_fits(self) -> Self:
        if self.protocol == "intro" and self.credential is not None:
            raise ValueError("credential: an introduction is linked by your own seat, without one")
        if self.protocol != "intro" and self.credential is None:
            raise ValueError(f"credential: {self.protocol} needs the seat's credential")
        return self

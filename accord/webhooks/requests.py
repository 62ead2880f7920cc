"""What the webhook calls take (docs/webhooks.md): strict bodies, refused whole when a member is
unknown or of the wrong type."""

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from accord.core.strict import Strict

MAX_URL: int = 2_048
MAX_OVERLAP_SECONDS: int = 7 * 86_400
DEFAULT_OVERLAP_SECONDS: int = 86_400

Signature = Literal["v1", "v1a"]
Status = Literal["enabled", "disabled"]
# An exact type (`envelope.move.counter`) or a prefix ending `.*` (`notification.*`).
EventType = Annotated[
    str, StringConstraints(pattern=r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*(\.\*)?$", max_length=100)
]


class RegisterInput(Strict):
    url: str = Field(min_length=1, max_length=MAX_URL)
    event_types: list[EventType] | None = Field(
        default=None, min_length=1, max_length=50, description="Exact types or `prefix.*`; all."
    )
    description: str | None = Field(default=None, max_length=500)
    signature: Signature = "v1"


class UpdateInput(Strict):
    url: str | None = Field(default=None, min_length=1, max_length=MAX_URL)
    event_types: list[EventType] | None = Field(default=None, min_length=1, max_length=50)
    description: str | None = Field(default=None, max_length=500)
    status: Status | None = None


class RotateInput(Strict):
    overlap_seconds: int = Field(default=DEFAULT_OVERLAP_SECONDS, ge=0, le=MAX_OVERLAP_SECONDS)

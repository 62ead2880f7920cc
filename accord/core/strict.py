"""The base of every request and rule model: types exactly as sent, no unknown members, frozen
(DESIGN principle 4, bodies parsed strictly)."""

from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

"""What the parties send in an arbitrated session: the buyer's OpenSessionRequest and Move
(spec/arbitrated-session.schema.json), and the merchant's hand-off and reveal
(spec/arbitrated-rest.md, Endpoints), as strict models shared by every adapter."""

import re
from typing import Annotated, Any, Final, Literal

from pydantic import Field, field_validator

from accord.core.strict import Strict

UTILITY: Final = re.compile(r"(0(\.[0-9]+)?|1(\.0+)?)")
CURRENCY: Final = r"^[A-Z]{3}$"


class Declared(Strict):
    max_rounds: int = Field(5, ge=1, le=100)
    currency: str | None = Field(None, pattern=CURRENCY)
    inclusions: list[Annotated[str, Field(max_length=64)]] = Field(
        default_factory=list, max_length=32
    )
    utilities: dict[str, str] = Field(
        default_factory=dict, description="kind → a decimal string from 0 to 1."
    )
    non_price_preferences: list[Annotated[str, Field(max_length=256)]] = Field(
        default_factory=list, max_length=32
    )

    @field_validator("utilities")
    @classmethod
    def _utilities(cls, value: dict[str, str]) -> dict[str, str]:
        for kind, utility in value.items():
            if not UTILITY.fullmatch(utility):
                raise ValueError(f"utility of {kind!r} must be a decimal from 0 to 1, like 0.5")
        return value


class Buyer(Strict):
    agent_id: str = Field(min_length=1, max_length=128)
    declared: Declared = Field(default_factory=Declared)
    commitment: str | None = Field(None, pattern=r"^sha256:[0-9a-f]{64}$")


class OpenSessionRequest(Strict):
    sku: str = Field(min_length=1, max_length=256)
    buyer: Buyer
    fairness_profile: str = "default/v0.1"
    description: str | None = Field(None, max_length=1024)


class OfferMove(Strict):
    type: Literal["offer"]
    price_minor: int = Field(ge=0, le=2**53 - 1)
    inclusions: list[Annotated[str, Field(min_length=1, max_length=64)]] = Field(
        default_factory=list, max_length=32
    )
    justification: str | None = Field(None, max_length=2048)
    message_id: str | None = Field(None, min_length=1, max_length=128)


class AcceptMove(Strict):
    type: Literal["accept"]
    message_id: str | None = Field(None, min_length=1, max_length=128)


class RejectMove(Strict):
    type: Literal["reject"]
    reason: str | None = Field(None, max_length=512)
    message_id: str | None = Field(None, min_length=1, max_length=128)


class RevealMove(Strict):
    type: Literal["reveal"]
    private: dict[str, Any]


Move = Annotated[OfferMove | AcceptMove | RejectMove | RevealMove, Field(discriminator="type")]

BuyerMove = OfferMove | AcceptMove | RejectMove | RevealMove


class HandoffRequest(Strict):
    # `POST /v1/sessions/{id}/handoff`: the merchant's hand-off for an agreed session.
    kind: Literal["discount_code", "invoice_url"]
    value: str = Field(min_length=1, max_length=2000, description="A bearer secret.")
    checkout_url: str = Field(min_length=1, max_length=2000)
    expires_at: str = Field(json_schema_extra={"format": "date-time"}, description="RFC 3339.")


class RevealRequest(Strict):
    # `POST /v1/sessions/{id}/reveal`: empty, it opens the commitment the server made.
    pass


MerchantMove = HandoffRequest | RevealRequest
Actor = Literal["buyer", "merchant"]

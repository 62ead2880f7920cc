"""A merchant's policy for one SKU (spec/arbitrated-rest.md, Policy): the strict model, and the
rules a policy must meet before it is stored.

The model holds types only; `policy_problems` holds every rule, so that the rules are one
table (tests/merchants/test_policy_rules.py) and a policy read back from the store is checked
by the same code that admitted it. Decisions where the spec is silent:

- `reference_price_minor` is at least 1 and at most `list_price_minor`: the arbiter attests
  it as `t_target`, and above the list price it would score the list price itself unfair to
  the merchant.
- `list_price_minor` is at least 1 (a net price `t` must be above 0 to be scored).
- `fair_band` is written as a plain decimal, `0.` and one to six digits, without trailing
  zeros (`"0.05"`, not `"0.050"` or `"5e-2"`), so that each band has one spelling in the
  session rules the arbiter publishes.
- The SKU is 1 to 256 characters (the schema's `OpenSessionRequest.sku`) with no control
  character, no `/` (it is a path segment) and no surrounding whitespace. In `PUT
  /v1/policies/{sku}` the body may omit `sku`; when given it must equal the path's.
- Inclusions: at most 32, kinds unique, 1 to 64 characters (the schema's `Inclusion.kind`).
- `round_timeout_seconds` is 1 s to 30 days and `handoff.ttl_seconds` 1 s to 365 days, so
  that every deadline computed from them is a real date.
- `checkout_url` is an absolute `https` URL; plain `http` only for localhost, for testing.
"""

import math
import re
from fractions import Fraction
from typing import Final, Literal
from urllib.parse import urlsplit

from pydantic import Field, JsonValue

from accord.core.money import currency_exponent, is_amount_minor
from accord.core.refusals import Refusal, RefusalCode
from accord.core.strict import Strict

MAX_SKU: Final = 256
MAX_DESCRIPTION: Final = 500
MAX_KIND: Final = 64
MAX_INCLUSIONS: Final = 32
MAX_ROUNDS: Final = 100
MAX_ROUND_TIMEOUT_SECONDS: Final = 30 * 86_400
MAX_TTL_SECONDS: Final = 365 * 86_400
MAX_URL: Final = 2_000

FAIR_BAND: Final = re.compile(r"0\.[0-9]{0,5}[1-9]")
_SKU_FORBIDDEN: Final = re.compile(r"[\x00-\x1f\x7f/]")
_LOCAL_HOSTS: Final = frozenset({"localhost", "127.0.0.1", "::1"})

ConcessionStyle = Literal["boulware", "linear", "conceder"]
HandoffKind = Literal["discount_code", "invoice_url"]
PublishMode = Literal["automatic", "manual"]


MAX_AMOUNT: Final = 2**53 - 1


def bounds(**schema: JsonValue) -> dict[str, JsonValue]:
    """JSON Schema keywords that document a rule `policy_problems` holds: the schema tells a
    client the bounds, the rules stay one table (and keep their own refusal and message)."""
    return schema


class Inclusion(Strict):
    kind: str = Field(
        description="What is included, e.g. `free_shipping`: 1–64 characters.",
        json_schema_extra=bounds(minLength=1, maxLength=MAX_KIND),
    )
    value_minor: int = Field(
        description="What the inclusion is worth, in minor units of the policy's currency; "
        "the arbiter attests it.",
        json_schema_extra=bounds(minimum=0, maximum=MAX_AMOUNT),
    )
    included_by_default: bool = Field(description="Part of the merchant's opening offer.")


class Concession(Strict):
    style: ConcessionStyle = Field(
        description="How fast the asks fall: boulware (late), linear, conceder (early)."
    )


class Handoff(Strict):
    kind: HandoffKind = Field(description="What the buyer receives after an agreement.")
    checkout_url: str = Field(
        description="Where the buyer completes the purchase (https).",
        json_schema_extra=bounds(format="uri", maxLength=MAX_URL),
    )
    ttl_seconds: int = Field(
        description="How long the hand-off stays valid, in seconds.",
        json_schema_extra=bounds(minimum=1, maximum=MAX_TTL_SECONDS),
    )
    publish: PublishMode = Field(
        description="automatic: made at the agreement; manual: the merchant publishes it."
    )


class _PolicyMembers(Strict):
    description: str = Field(
        description="What is sold, for buyers: 1–500 characters.",
        json_schema_extra=bounds(minLength=1, maxLength=MAX_DESCRIPTION),
    )
    currency: str = Field(
        description="ISO 4217 code of a currency with minor units.",
        json_schema_extra=bounds(pattern="^[A-Z]{3}$"),
    )
    list_price_minor: int = Field(
        description="The sticker price, in minor units.",
        json_schema_extra=bounds(minimum=1, maximum=MAX_AMOUNT),
    )
    reference_price_minor: int = Field(
        description="The net price the arbiter attests as fair (t_target); at most the list price.",
        json_schema_extra=bounds(minimum=1, maximum=MAX_AMOUNT),
    )
    floor_minor: int = Field(
        description="The lowest net price the merchant takes. Private: never shown to buyers.",
        json_schema_extra=bounds(minimum=0, maximum=MAX_AMOUNT),
    )
    inclusions: list[Inclusion] = Field(
        description="Extras that may be part of the terms.",
        json_schema_extra=bounds(maxItems=MAX_INCLUSIONS),
    )
    concession: Concession
    max_rounds: int = Field(
        description="Rounds a session may last: 1–100.",
        json_schema_extra=bounds(minimum=1, maximum=MAX_ROUNDS),
    )
    round_timeout_seconds: int = Field(
        description="How long the buyer may stay silent before the session closes.",
        json_schema_extra=bounds(minimum=1, maximum=MAX_ROUND_TIMEOUT_SECONDS),
    )
    fair_band: str = Field(
        description='The arbiter\'s band as a decimal string, e.g. "0.05": 0 < band < 1.',
        json_schema_extra=bounds(pattern=f"^{FAIR_BAND.pattern}$"),
    )
    handoff: Handoff
    active: bool = Field(description="Whether the SKU is in the catalogue and open to sessions.")


class Policy(_PolicyMembers):
    """A merchant's policy for one SKU, exactly the members of the spec."""

    sku: str = Field(description="The SKU this policy prices.")


class PolicyRequest(_PolicyMembers):
    """The body of `PUT /v1/policies/{sku}`: a Policy whose `sku` may be left to the path."""

    sku: str | None = Field(None, description="The SKU; when given, the one in the path.")


def sku_problem(sku: str) -> str | None:
    if not 1 <= len(sku) <= MAX_SKU:
        return f"1 to {MAX_SKU} characters"
    if _SKU_FORBIDDEN.search(sku):
        return "no control characters and no '/'"
    if sku != sku.strip():
        return "no leading or trailing whitespace"
    return None


def band_top(reference_minor: int, fair_band: str) -> int:
    """`floor(reference / (1 - fair_band))`, exactly: the highest net price the arbiter does
    not score unfair to the buyer (spec: Merchant policy, `fair_high`)."""
    return math.floor(Fraction(reference_minor) / (1 - Fraction(fair_band)))


def policy_problems(policy: Policy) -> dict[str, str]:
    """Every rule a stored policy meets, as {field path: what is wrong}; empty when none."""
    problems: dict[str, str] = {}
    if (problem := sku_problem(policy.sku)) is not None:
        problems["sku"] = problem
    if not 1 <= len(policy.description) <= MAX_DESCRIPTION or not policy.description.strip():
        problems["description"] = f"1 to {MAX_DESCRIPTION} characters, not only spaces"
    if currency_exponent(policy.currency) is None:
        problems["currency"] = "an ISO 4217 code of a currency with minor units, like EUR"
    problems |= _price_problems(policy)
    problems |= _inclusion_problems(policy.inclusions)
    if not 1 <= policy.max_rounds <= MAX_ROUNDS:
        problems["max_rounds"] = f"1 to {MAX_ROUNDS}"
    if not 1 <= policy.round_timeout_seconds <= MAX_ROUND_TIMEOUT_SECONDS:
        problems["round_timeout_seconds"] = f"1 to {MAX_ROUND_TIMEOUT_SECONDS} seconds (30 days)"
    problems |= _handoff_problems(policy.handoff)
    return problems


def _price_problems(policy: Policy) -> dict[str, str]:
    problems: dict[str, str] = {}
    amounts = ("list_price_minor", "reference_price_minor", "floor_minor")
    for name in amounts:
        if not is_amount_minor(getattr(policy, name)):
            problems[name] = "a non-negative integer amount in minor units, at most 2^53 − 1"
    band_ok = FAIR_BAND.fullmatch(policy.fair_band) is not None
    if not band_ok:
        problems["fair_band"] = (
            'a decimal string above 0 and below 1, like "0.05" (up to 6 decimals, no '
            "trailing zeros)"
        )
    if policy.list_price_minor < 1 and "list_price_minor" not in problems:
        problems["list_price_minor"] = "at least 1"
    if policy.reference_price_minor < 1 and "reference_price_minor" not in problems:
        problems["reference_price_minor"] = "at least 1"
    if problems.keys() & set(amounts):
        return problems  # the prices' relations mean nothing until each price is valid
    if policy.reference_price_minor > policy.list_price_minor:
        problems["reference_price_minor"] = "at most the list price"
    if policy.floor_minor >= policy.list_price_minor:
        problems["floor_minor"] = "below the list price"
    elif band_ok and policy.floor_minor >= band_top(policy.reference_price_minor, policy.fair_band):
        # arbitrated-rest, Policy: a floor at or above the band's top could never be asked
        # for without an offer the arbiter scores unfair to the buyer.
        problems["floor_minor"] = (
            "below the band's top, floor(reference_price_minor / (1 − fair_band))"
        )
    return problems


def _inclusion_problems(inclusions: list[Inclusion]) -> dict[str, str]:
    problems: dict[str, str] = {}
    if len(inclusions) > MAX_INCLUSIONS:
        problems["inclusions"] = f"at most {MAX_INCLUSIONS}"
    seen: set[str] = set()
    for index, inclusion in enumerate(inclusions):
        if not 1 <= len(inclusion.kind) <= MAX_KIND:
            problems[f"inclusions.{index}.kind"] = f"1 to {MAX_KIND} characters"
        elif inclusion.kind in seen:
            problems[f"inclusions.{index}.kind"] = "each kind once"
        seen.add(inclusion.kind)
        if not is_amount_minor(inclusion.value_minor):
            problems[f"inclusions.{index}.value_minor"] = (
                "a non-negative integer amount in minor units, at most 2^53 − 1"
            )
    return problems


def _handoff_problems(handoff: Handoff) -> dict[str, str]:
    problems: dict[str, str] = {}
    if (problem := url_problem(handoff.checkout_url)) is not None:
        problems["handoff.checkout_url"] = problem
    if not 1 <= handoff.ttl_seconds <= MAX_TTL_SECONDS:
        problems["handoff.ttl_seconds"] = f"1 to {MAX_TTL_SECONDS} seconds (365 days)"
    return problems


def url_problem(url: str) -> str | None:
    """What is wrong with a URL a buyer is sent to, or None: it is absolute, `https` (plain
    `http` only for localhost, for testing) and has no fragment."""
    invalid = "an absolute https URL, like https://shop.example.com/checkout"
    if len(url) > MAX_URL or any(c.isspace() or not c.isprintable() for c in url):
        return invalid
    try:
        parts = urlsplit(url)
        host = parts.hostname
        _ = parts.port  # raises ValueError on a port that is not a number
    except ValueError:
        return invalid
    if not host or parts.fragment:
        return invalid
    if parts.scheme == "https" or (parts.scheme == "http" and host in _LOCAL_HOSTS):
        return None
    return invalid


def policy_for_path(request: PolicyRequest, sku: str) -> Policy | Refusal:
    """The policy a `PUT /v1/policies/{sku}` stores, or the refusal naming what is wrong."""
    if request.sku is not None and request.sku != sku:
        return _invalid({"sku": "the SKU in the path, or leave it out"})
    policy = Policy.model_validate({**request.model_dump(), "sku": sku})
    problems = policy_problems(policy)
    if problems:
        return _invalid(problems)
    return policy


def _invalid(fields: dict[str, str]) -> Refusal:
    return Refusal(
        RefusalCode.INVALID_REQUEST,
        "Fix the policy: see fields for what is wrong.",
        {"fields": fields},
    )

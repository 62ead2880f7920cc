"""The arbiter's inputs, read from a session's state: every offer is scored with the same
attested values and the buyer's declared utilities, whoever makes it (invariant I2)."""

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from accord.protocols.arbitrated import fairness
from accord.protocols.arbitrated.state import SessionState


def attested_of(state: SessionState) -> fairness.Attested:
    attested = state.attested
    return fairness.Attested(
        currency=attested["t_target"]["currency"],
        t_target_minor=attested["t_target"]["amount_minor"],
        inclusion_values={k: v["amount_minor"] for k, v in attested["inclusion_values"].items()},
    )


def utilities_of(state: SessionState) -> dict[str, Decimal]:
    return {k: Decimal(v) for k, v in state.buyer_utilities.items()}


def evaluate(state: SessionState, terms: Mapping[str, Any]) -> fairness.Score:
    """The arbiter's score of `terms` (the schema's Terms) in this session."""
    return fairness.score(
        state.rules["fairness_profile"],
        price_minor=terms["price"]["amount_minor"],
        currency=terms["price"]["currency"],
        inclusions=[i["kind"] for i in terms.get("inclusions", [])],
        utilities=utilities_of(state),
        attested=attested_of(state),
        band=Decimal(state.rules["fair_band"]),
    )

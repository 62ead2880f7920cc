"""A built-in strategy as an arbitrated session's buyer (spec/agents.md, Preferences: "an
arbitrated session: the buyer's ceiling and inclusion utilities"). Pure: whoever holds the
session token (`accord agent run --table sessions`) reads the session, asks `decide`, and sends
what it says.

The buyer weighs terms by their net price `t = price - W(K)`, the fairness profile's own
measure (`W` the inclusions at the buyer's declared utilities times their attested values, which
the arbiter's verdict on every offer states), so one issue carries its preferences: net prices on
a grid from the lowest the arbiter lets a buyer offer (`fair_low`, utility 1) to the buyer's
ceiling (utility 0, as good as walking away). A merchant's net price off the grid is read as the
grid point just above it, so a strategy never thinks an offer better than it is; one above the
ceiling is never accepted. The buyer's net price never falls (the session's rule I4), and it
keeps the inclusions of the merchant's standing offer."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Final, Literal

from pydantic import Field, ValidationError

from accord.agents.domain import Domain, Issue
from accord.agents.engine import Randomness
from accord.agents.preferences import Preferences
from accord.agents.strategies import Factory, SeatView, Strategy
from accord.core.problems import in_words
from accord.core.strict import Strict
from accord.protocols.arbitrated.fairness import fair_low
from accord.protocols.arbitrated.moves import UTILITY

MAX_STEPS: Final = 101
FINAL_STATES: Final = frozenset({"agreed", "closed"})

Kind = Literal["offer", "accept", "reject", "wait", "done"]


class SessionBriefError(ValueError):
    """A session brief that does not fit its format or its session; the message says why."""


class SessionBrief(Strict):
    ceiling_minor: int = Field(
        ge=1, le=2**53 - 1, description="The most it pays, as a net price in minor units."
    )
    utilities: dict[str, str] = Field(
        default_factory=dict,
        description="Inclusion kind → what it is worth to the buyer, a decimal from 0 to 1.",
    )
    steps: int = Field(MAX_STEPS, ge=2, le=MAX_STEPS, description="Grid points of net price.")

    def declared(self, max_rounds: int) -> dict[str, Any]:
        """What the buyer declares when it opens the session: its rounds and utilities (the
        ceiling stays private)."""
        for kind, utility in self.utilities.items():
            if not UTILITY.fullmatch(utility):
                raise SessionBriefError(
                    f"the utility of {kind!r} must be a decimal from 0 to 1, like 0.5"
                )
        declared: dict[str, Any] = {"max_rounds": max_rounds}
        if self.utilities:
            declared["utilities"] = dict(self.utilities)
        return declared


def read_session_brief(document: Mapping[str, Any]) -> SessionBrief:
    try:
        return SessionBrief.model_validate(document)
    except ValidationError as exc:
        problems = in_words(exc, whole="brief")
        raise SessionBriefError(f"the brief does not fit its format: {problems}") from None


@dataclass(frozen=True)
class SessionStep:
    kind: Kind
    price_minor: int | None = None
    inclusions: tuple[str, ...] = ()
    net_minor: int | None = None
    """The net price of the terms it offers or accepts."""
    utility: float | None = None
    reason: str | None = None

    def body(self) -> dict[str, Any]:
        """The move's request body (offer, accept, reject)."""
        if self.kind == "offer":
            return {"type": "offer", "price_minor": self.price_minor,
                    "inclusions": list(self.inclusions)}  # fmt: skip
        if self.kind == "reject" and self.reason:
            return {"type": "reject", "reason": self.reason}
        return {"type": self.kind}


@dataclass(frozen=True)
class Offer:
    by: str
    price_minor: int
    net_minor: int
    inclusions: tuple[str, ...]


@dataclass
class SessionAgent:
    brief: SessionBrief
    factory: Factory
    seed: int = 0
    grid: tuple[int, ...] = field(init=False, default=())
    """Net prices from worst (the ceiling) to best (fair_low): the outcomes, in order."""
    rounds: int = field(init=False, default=0)
    strategy: Strategy | None = field(init=False, default=None)
    view: SeatView | None = field(init=False, default=None)

    def decide(self, session: Mapping[str, Any], log: Sequence[Mapping[str, Any]]) -> SessionStep:
        """The move for `session` (the buyer's view, as JSON) with its `log` (envelopes)."""
        if session["state"] in FINAL_STATES:
            return SessionStep("done")
        if not session["your_turn"]:
            return SessionStep("wait")
        if self.view is None:
            reason = self._start(log)
            if reason is not None:
                return SessionStep("reject", reason=reason)
        view, strategy = self.view, self.strategy
        assert view is not None and strategy is not None
        offers = _offers(log)
        mine = [o for o in offers if o.by == "buyer"]
        theirs = [o for o in offers if o.by == "merchant"]
        view.sent[:] = [self._outcome(o.net_minor) for o in mine]
        view.received[:] = [self._outcome(o.net_minor) for o in theirs]
        k = len(mine)
        view.round = min(k, self.rounds - 1)
        view.t = (view.round + 1) / (self.rounds + 1)
        table = session.get("offer_on_table")
        standing = theirs[-1] if table is not None and theirs else None
        utility = view.preferences.utility_list
        within = standing is not None and standing.net_minor <= self.brief.ceiling_minor
        if standing is not None:
            on_table = self._outcome(standing.net_minor)
            if k >= self.rounds:  # the merchant answered its last round: take it or leave it
                if within:
                    return self._accept(standing, utility[on_table])
                return SessionStep("reject", reason="the last offer is above my ceiling")
            answer = strategy.respond(view)
            if answer == "accept" and within:
                return self._accept(standing, utility[on_table])
            if answer == "end":
                return SessionStep("reject", reason="no deal within my limits")
        elif k >= self.rounds:
            return SessionStep("reject", reason="out of rounds")
        net = self.grid[strategy.propose(view)]
        if mine:
            net = max(net, mine[-1].net_minor)  # its net price never falls
        if standing is not None and within and net >= standing.net_minor:
            return self._accept(standing, utility[self._outcome(standing.net_minor)])
        inclusions = standing.inclusions if standing is not None else ()
        weight = standing.price_minor - standing.net_minor if standing is not None else 0
        return SessionStep(
            "offer",
            price_minor=net + weight,
            inclusions=inclusions,
            net_minor=net,
            utility=utility[self._outcome(net)],
        )

    def _accept(self, standing: Offer, utility: float) -> SessionStep:
        return SessionStep(
            "accept",
            price_minor=standing.price_minor,
            inclusions=standing.inclusions,
            net_minor=standing.net_minor,
            utility=utility,
        )

    def _start(self, log: Sequence[Mapping[str, Any]]) -> str | None:
        """Reads the session's rules and attested values off its first envelope; a reason to
        walk away when no fair net price is within the ceiling."""
        opened = next((e for e in log if e["type"] == "session.accept"), None)
        if opened is None:
            raise SessionBriefError("the session's log has no session.accept")
        payload = opened["payload"]
        self.rounds = int(payload["session_rules"]["max_rounds"])
        band = Decimal(payload["session_rules"]["fair_band"])
        best = fair_low(int(payload["attested"]["t_target"]["amount_minor"]), band)
        worst = self.brief.ceiling_minor
        if worst < best:
            return f"my ceiling is below the lowest fair price ({best} net)"
        steps = min(self.brief.steps, worst - best + 1)
        if steps == 1:
            self.grid = (worst,)
            values = [1.0]
        else:
            self.grid = tuple(round(worst - (worst - best) * i / (steps - 1)) for i in range(steps))
            values = [i / (steps - 1) for i in range(steps)]
        domain = Domain((Issue("net_price", tuple(str(t) for t in self.grid)),))
        prefs = Preferences.normalised(domain, [1.0], [values], reservation=0.0)
        self.strategy = self.factory(prefs, self.rounds, Randomness(self.seed))
        self.view = SeatView(prefs, self.rounds)
        return None

    def _outcome(self, net_minor: int) -> int:
        """The grid point at or just above `net_minor` (no better for the buyer); the ceiling
        when it is above them all."""
        found = 0
        for index, point in enumerate(self.grid):
            if point >= net_minor:
                found = index
        return found


def _offers(log: Sequence[Mapping[str, Any]]) -> list[Offer]:
    """Every scored offer, in order, with its net price from the arbiter's verdict."""
    offers: list[Offer] = []
    last: Mapping[str, Any] | None = None
    for envelope in log:
        kind = envelope["type"]
        if kind.startswith("offer."):
            last = envelope
        elif kind == "arbitration.evaluate" and last is not None:
            score = envelope["payload"]
            terms = last["payload"]["terms"]
            if score.get("t_minor") is not None:
                offers.append(
                    Offer(
                        by=str(last["sender"]["role"]),
                        price_minor=int(terms["price"]["amount_minor"]),
                        net_minor=int(score["t_minor"]),
                        inclusions=tuple(i["kind"] for i in terms.get("inclusions", [])),
                    )
                )
            last = None
    return offers

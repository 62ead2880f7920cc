"""A built-in strategy at a live room's seat: from the seat's view and the public log to the
move it makes now. Pure: whoever holds the seat's credentials (the SDK, `accord agent run`,
`accord demo`) reads the room, asks `decide`, and sends what it says.

It plays the engine's game on a live room: its round is the number of offers it has made, `t`
follows from its round budget, an accept is `approve` of the table's `subject_hash` (the other
side's approve then agrees), and a walk-away is `reject`."""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from accord.agents.briefs import Brief
from accord.agents.engine import Randomness
from accord.agents.strategies import Factory, SeatView, Strategy

FINAL_STATES = frozenset({"agreed", "closed", "expired"})
OFFERS = frozenset({"move.offer", "move.counter"})

Kind = Literal[
    "offer", "counter", "approve", "reject", "wait", "done", "out_of_rounds", "needs_owner"
]


@dataclass(frozen=True)
class Step:
    kind: Kind
    terms: dict[str, Any] | None = None
    subject_hash: str | None = None
    utility: float | None = None
    """The seat's own utility of the terms it offers or approves."""

    def body(self) -> dict[str, Any]:
        """The move's request body (offer, counter, approve, reject)."""
        body: dict[str, Any] = {"type": self.kind}
        if self.terms is not None:
            body["terms"] = self.terms
        if self.subject_hash is not None:
            body["subject_hash"] = self.subject_hash
        return body


@dataclass
class RoomAgent:
    brief: Brief
    factory: Factory
    rounds: int
    seed: int = 0
    strategy: Strategy = field(init=False)
    view: SeatView = field(init=False)
    consulted: int = field(init=False, default=0)
    """The seat's turns its strategy has been asked about; a new agent replays the others."""

    def __post_init__(self) -> None:
        if self.rounds < 1:
            raise ValueError("an agent needs at least one round")
        prefs = self.brief.preferences
        self.strategy = self.factory(prefs, self.rounds, Randomness(self.seed))
        self.view = SeatView(prefs, self.rounds)

    def decide(self, room: Mapping[str, Any], log: Sequence[Mapping[str, Any]]) -> Step:
        """The move for `room` (the seat's view, as JSON) with its public `log` (envelopes)."""
        if room["state"] in FINAL_STATES:
            return Step("done")
        if not room["your_turn"]:
            return Step("wait")
        if room.get("pending_confirmation"):  # its last move waits for the person
            return Step("needs_owner")
        me = room["seat"]
        turns = self._read(log, me)
        view = self.view
        k = len(view.sent)
        self._replay(turns)
        if k >= self.rounds:
            return Step("out_of_rounds")
        view.round, view.t = k, (k + 1) / (self.rounds + 1)
        self.consulted = k + 1
        utility = self.brief.preferences.utility_list
        table = room.get("table")
        if table is None:
            offer = self.strategy.propose(view)
            return Step("offer", self.brief.terms(offer), utility=utility[offer])
        on_table = self.brief.outcome(table["terms"])
        if on_table is None:  # worse than its limits: never approved, whatever the strategy
            offer = self.strategy.propose(view)
            return Step("counter", self.brief.terms(offer), utility=utility[offer])
        if table["proposed_by"] == me:
            if any(
                a["seat"] != me and a["subject_hash"] == table["subject_hash"]
                for a in room["approvals"]
            ):
                return Step(
                    "approve", subject_hash=table["subject_hash"], utility=utility[on_table]
                )
        else:
            answer = self.strategy.respond(view)
            if answer == "accept":
                return Step(
                    "approve", subject_hash=table["subject_hash"], utility=utility[on_table]
                )
            if answer == "end":
                return Step("reject")
        offer = self.strategy.propose(view)
        if table["proposed_by"] != me and utility[offer] <= utility[on_table]:
            # nothing it would offer beats the table (off-grid terms read conservatively)
            return Step("approve", subject_hash=table["subject_hash"], utility=utility[on_table])
        return Step("counter", self.brief.terms(offer), utility=utility[offer])

    def _read(self, log: Sequence[Mapping[str, Any]], me: str) -> list[int]:
        """Every offer in the log, as outcomes: the seat's own and the other side's, in order;
        returns how many of the other side's each of its own followed. The lists only grow, so
        strategies that count what they have seen stay right."""
        sent: list[int] = []
        received: list[int] = []
        turns: list[int] = []
        for envelope in log:
            if envelope["type"] in OFFERS:
                outcome = self.brief.outcome(envelope["payload"]["terms"])
                if outcome is None:  # past its limits: its strategies read it as the worst
                    outcome = self.brief.preferences.ladder_list[0]
                if envelope["sender"].get("role") == me:
                    sent.append(outcome)
                    turns.append(len(received))
                else:
                    received.append(outcome)
        self.view.sent[:] = sent
        self.view.received[:] = received
        return turns

    def _replay(self, turns: Sequence[int]) -> None:
        """Walk the strategy through the seat's past turns it was not asked about (an agent
        started on a room already under way), so that what it remembers (MiCRO's place in
        its ranking, a frequency model) is what it would hold had it made those moves."""
        if self.consulted >= len(turns):
            return
        sent, received = list(self.view.sent), list(self.view.received)
        view = self.view
        for turn in range(self.consulted, len(turns)):
            view.sent[:] = sent[:turn]
            view.received[:] = received[: turns[turn]]
            view.round, view.t = turn, (turn + 1) / (self.rounds + 1)
            if view.received:
                self.strategy.respond(view)
            self.strategy.propose(view)
        view.sent[:] = sent
        view.received[:] = received
        self.consulted = len(turns)

"""The built-in `accord` intro agent, by rules (spec/agents.md, LLM agent: without a model the
intro agent decides by rules from the intents' fit; intro-negotiation.md, What an agent may
say). Pure: a seat's views in, one move out; `accord.app.intro_agent` runs it on a server.

The rules, in order, for a seat that may act:
1. Not `mutual` → decline. `constraint_fit` fails → decline.
2. The other side limits a key that the seat's own intent leaves open → the agent cannot judge
   the fit there: it asks its owner (one question with options), unless an answer to that very
   question is on record; a no → decline; an answer that says neither → ask again.
3. Otherwise the intents fit: accept the other's proposal just made, else propose, else
   counter (their proposal stands: propose it again), else decline.
Between rounds, new context from the owner resumes the negotiation only where the rules would
now go on (a fit) or ask (a missing fact); where they would decline again it stays paused.

Counterparty text is data: the other side's messages are never read, its constraints only to
find what the owner must be asked. The owner's private text decides nothing by itself here and
is never said: messages are templates (`intro_messages`), and the guard checks them.
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from accord.agents import intro_messages as say
from accord.protocols.intro.state import Action, Checks, Seat

Reason = Literal["not_mutual", "constraint_conflict", "owner_declined"]


@dataclass(frozen=True)
class OwnIntent:
    """The seat's own intent: its statement goes into a proposal only where the other side may
    read it (an `incognito` statement is shown only once both seats engaged)."""

    statement: str
    constraints: Sequence[Mapping[str, Any]] = ()
    visibility: str = "public"


@dataclass(frozen=True)
class Situation:
    """What the agent decides from: the seat's Negotiation and counterparty views as the API
    gives them, its own intent, the latest checks of the log, its own questions (the questions
    view), and its owner's private text (chat messages, answers, briefs), which is only guarded
    against, never said. `new_context`: the owner gave new context since the round ended."""

    seat: Seat
    negotiation: Mapping[str, Any]
    counterparty: Mapping[str, Any]
    intent: OwnIntent
    checks: Checks | None
    questions: Sequence[Mapping[str, Any]] = ()
    private: Sequence[str] = ()
    new_context: bool = False


@dataclass(frozen=True)
class TakeTurn:
    action: Action
    message: str


@dataclass(frozen=True)
class QuestionDraft:
    question: str
    options: list[str]
    why: str


@dataclass(frozen=True)
class Ask:
    questions: tuple[QuestionDraft, ...]


@dataclass(frozen=True)
class Resume:
    brief: str


@dataclass(frozen=True)
class Wait:
    reason: str


Move = TakeTurn | Ask | Resume | Wait


@dataclass(frozen=True)
class Fit:
    pass


@dataclass(frozen=True)
class Misfit:
    reason: Reason


@dataclass(frozen=True)
class Missing:
    draft: QuestionDraft


Verdict = Fit | Misfit | Missing

WAITING: Final = frozenset({"settled", "intent_inactive", "needs_principal", "not_your_turn"})


def judge(situation: Situation) -> Verdict:
    """Rules 1 and 2: whether the intents fit, as far as the checks and the owner's answers
    tell, without inventing anything."""
    checks = situation.checks
    if checks is None or not checks.mutual:
        return Misfit("not_mutual")
    if not checks.constraint_fit:
        return Misfit("constraint_conflict")
    for key, theirs in _open_keys(situation):
        text = say.question(key, theirs)
        asked = [q for q in situation.questions if q.get("question") == text]
        latest = asked[-1] if asked else None
        if latest is None or latest.get("status") != "answered":
            return Missing(QuestionDraft(text, say.options(), say.why(key)))
        verdict = say.answer_says(str(latest.get("answer", "")))
        if verdict is None:
            return Missing(QuestionDraft(text, say.options(), say.why(key)))
        if verdict is False:
            return Misfit("owner_declined")
    return Fit()


def _open_keys(situation: Situation) -> list[tuple[str, list[Mapping[str, Any]]]]:
    """The keys the other side limits (as far as its Constraints layer shows) that the seat's
    own intent leaves open, by key."""
    shown = situation.counterparty.get("constraints")
    if not isinstance(shown, list):
        return []
    own = {str(c.get("key")) for c in situation.intent.constraints}
    by_key: dict[str, list[Mapping[str, Any]]] = {}
    for item in shown:
        if isinstance(item, Mapping) and isinstance(item.get("key"), str):
            by_key.setdefault(item["key"], []).append(item)
    return [(key, by_key[key]) for key in sorted(by_key) if key not in own]


def decide(situation: Situation) -> Move:
    """One move for the seat: a turn, questions to its owner, a resume, or wait."""
    protocol = situation.negotiation.get("protocol", {})
    blocked = protocol.get("blocked_reason")
    if blocked in WAITING:
        return Wait(str(blocked))
    if any(q.get("status") == "open" for q in situation.questions):
        return Wait("needs_principal")  # also between rounds, where round_over comes first
    verdict = judge(situation)
    if blocked == "round_over":
        return _between_rounds(situation, verdict)
    if blocked is not None:
        return Wait(str(blocked))
    actions = [Action(a) for a in protocol.get("available_actions", [])]
    if not actions:
        return Wait("no_action")
    match verdict:
        case Missing(draft):
            return Ask((draft,))
        case Misfit(reason):
            return turn(situation, Action.DECLINE, say.DECLINE[reason])
        case Fit():
            return _go_on(situation, actions)
    raise AssertionError(f"not a verdict: {verdict!r}")


def _between_rounds(situation: Situation, verdict: Verdict) -> Move:
    if not situation.new_context:
        return Wait("round_over")
    match verdict:
        case Missing(draft):
            return Ask((draft,))
        case Fit():
            return Resume(say.brief(int(situation.negotiation.get("round", 1))))
    return Wait("round_over")


def _go_on(situation: Situation, actions: list[Action]) -> Move:
    if Action.ACCEPT in actions:
        return turn(situation, Action.ACCEPT, say.ACCEPT)
    if Action.PROPOSE in actions:
        visible = situation.intent.visibility != "incognito"
        own = say.proposal(situation.intent.statement if visible else None)
        return turn(situation, Action.PROPOSE, say.guarded(own, say.PROPOSE, situation.private))
    if Action.COUNTER in actions:
        return turn(situation, Action.COUNTER, say.COUNTER)
    return turn(situation, Action.DECLINE, say.DECLINE["stuck"])


def turn(situation: Situation, action: Action, message: str) -> TakeTurn:
    """The turn, its message made fresh if the seat said it last (`repeated_message`)."""
    negotiation = situation.negotiation
    turns = negotiation.get("turns", [])
    latest = next(
        (str(t["message"]) for t in reversed(turns) if t.get("seat") == situation.seat), None
    )
    said = say.fresh(
        message,
        latest=latest,
        round_=int(negotiation.get("round", 1)),
        turn_index=int(negotiation.get("turn_count", len(turns))),
    )
    return TakeTurn(action, said)

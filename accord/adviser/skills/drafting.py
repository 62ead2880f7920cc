"""F07, drafting (adviser-api.md, Skills): an agenda, talking points or a message, from templates
over the state; it writes nothing, and what it drafts never says a never-reveal value outside the
offer's own terms (the orchestrator's guard checks the deliverable, not this skill)."""

from typing import Literal

from accord.adviser.skills.common import by_priority
from accord.adviser.skills.output import Output
from accord.adviser.skills.response import Deliverable
from accord.adviser.state import NegotiationState
from accord.core.strict import Strict

INTEREST_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3, "unknown": 4}


class DraftRequest(Strict):
    kind: Literal["agenda", "talking_points", "draft"]


def run(state: NegotiationState, request: DraftRequest) -> Output:
    if request.kind == "agenda":
        return _agenda(state)
    if request.kind == "talking_points":
        return _talking_points(state)
    return _draft(state)


def _agenda(state: NegotiationState) -> Output:
    items = list(state.process.agenda) or [
        t.topic for t in by_priority(state.topics_targets_tradeoffs.topics)
    ]
    if not items:
        return Output("Nothing to put on an agenda yet: add topics or /process/agenda", "unknown")
    source = "your agenda" if state.process.agenda else "the topics, most important first"
    lines = [f"{n}. {item}" for n, item in enumerate(items, 1)]
    return Output(
        f"An agenda from {source}",
        "medium",
        deliverable=Deliverable(kind="agenda", content="\n".join(lines)),
    )


def _talking_points(state: NegotiationState) -> Output:
    interests = sorted(state.interests.user, key=lambda i: INTEREST_ORDER[i.priority])
    lines = [f"- What matters to me: {i.interest}" for i in interests]
    if state.proposals.opening_offer:
        lines.append(f"- My proposal: {state.proposals.opening_offer}")
    lines += [
        f"- A fair measure: {c.criterion} ({c.relevance})" for c in state.independent_criteria
    ]
    if not lines:
        return Output("Nothing to talk from yet: add interests, targets or criteria", "unknown")
    return Output(
        "Talking points from your interests, opening package and criteria",
        "medium",
        deliverable=Deliverable(kind="talking_points", content="\n".join(lines)),
    )


def _draft(state: NegotiationState) -> Output:
    offer = state.proposals.current_user_offer
    if offer is None:
        return Output(
            "No offer to draft from: set /proposals/current_user_offer first",
            "unknown",
            warnings=[
                ("W-no-offer", "There is no current offer of yours to put in a message.", "medium")
            ],
        )
    disclosure = state.x_accord.disclosure if state.x_accord else None
    asks = [a for a in (disclosure.ask if disclosure else []) if not a.startswith("/")]
    lines = ["Hello,", "", f"Here is what I propose: {offer}."]
    if asks:
        lines += ["", "Before we settle, could you tell me:"]
        lines += [f"- {a.rstrip('?')}?" for a in asks]
    lines += ["", "Best regards"]
    return Output(
        "A message proposing your current offer",
        "medium",
        deliverable=Deliverable(kind="draft", content="\n".join(lines)),
    )

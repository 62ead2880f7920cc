"""What the server answers about a principal's intro negotiations (spec/intro-api.md), as
frozen models read like every other result: open to new members, each keeping its JSON.

A wrapper (`IntentView` for `{intent}`, `NegotiationView` for `{negotiation, counterparty}`)
is what the endpoint answers, so `to_json()` is exactly the body the server sent.
"""

from datetime import datetime
from typing import Any

from pydantic import Field

from accord.sdk._models import Model

# -- the principal -------------------------------------------------------------------------


class PrincipalMe(Model):
    """Who a principal key belongs to: the principal, its level (`owner` or `agent`) and the
    agent that negotiates for it."""

    principal_id: str
    name: str
    key: str
    agent_id: str | None
    selected_agent_id: str


class SelectedAgent(Model):
    """The agent that now negotiates for the principal."""

    principal_id: str
    selected_agent_id: str


# -- intents, chat, networks ---------------------------------------------------------------


class Intent(Model):
    """One of the principal's intents: what it wants, the limits that matter to fit, the
    identity shown once both people accept, and who may discover it."""

    intent_id: str
    statement: str
    constraints: list[dict[str, Any]]
    identity: dict[str, Any]
    visibility: str
    networks: list[str] = Field(default_factory=list)
    status: str
    created_at: datetime
    updated_at: datetime


class IntentView(Model):
    """`{intent}`: one intent, as made, read or edited."""

    intent: Intent


class IntentList(Model):
    """`{intents}`: the principal's own, newest first."""

    intents: list[Intent]


class ChatMessage(Model):
    """A message in an intent's chat, between the principal and its agents."""

    message_id: str
    author: str
    agent_id: str | None
    message: str
    created_at: datetime


class ChatPost(Model):
    """`{message}`: the message just written."""

    message: ChatMessage


class ChatLog(Model):
    """`{messages}`: an intent's chat, oldest first."""

    messages: list[ChatMessage]


class Network(Model):
    """A network the principal belongs to; `invite_code` only in the answer that made it."""

    network_id: str
    name: str
    invite_code: str | None = None


class NetworkList(Model):
    """`{networks}`: the principal's networks."""

    networks: list[Network]


class Candidate(Model):
    """An intent discovery found: its scores, and its statement only when mutual and not
    incognito."""

    intent_id: str
    score: float
    mutual: bool
    constraint_fit: bool | None
    statement: str | None = None


class Candidates(Model):
    """`{candidates}`: best first."""

    candidates: list[Candidate]


# -- opportunities and their negotiation ---------------------------------------------------


class Opportunity(Model):
    """A pair of intents as one seat sees it: never the other side's intent or principal."""

    opportunity_id: str
    status: str
    your_seat: str
    your_intent_id: str
    negotiation_id: str
    decisions: dict[str, str | None]
    context: str | None = None
    created: bool | None = None
    created_at: datetime
    updated_at: datetime


class OpenedOpportunities(Model):
    """`{opportunities}` from an open, in the order of the candidates, each with `created`."""

    opportunities: list[Opportunity]


class OpportunityList(Model):
    """`{opportunities}` in which the principal holds a seat, newest first."""

    opportunities: list[Opportunity]


class Turn(Model):
    """One accepted turn of an intro negotiation."""

    turn_index: int
    round: int
    seat: str
    action: str
    message: str
    created_at: datetime


class Negotiation(Model):
    """The negotiation as one seat sees it: its turns, whose turn it is, and what this seat
    may do now (`protocol.available_actions`, `protocol.blocked_reason`)."""

    negotiation_id: str
    opportunity_id: str
    outcome: str | None
    round: int
    turn_count: int
    turns_in_round: int
    awaiting: str | None
    turns: list[Turn]
    protocol: dict[str, Any]


class Counterparty(Model):
    """The other side, layer by layer: `layers` says which are open, and each open layer's
    member (`statement`, `constraints`, `identity`) is present."""

    layers: dict[str, str]
    statement: str | None = None
    constraints: list[dict[str, Any]] | None = None
    identity: dict[str, Any] | None = None


class NegotiationView(Model):
    """`{negotiation, counterparty}`: after a read, a turn or a resume."""

    negotiation: Negotiation
    counterparty: Counterparty


class OpportunityView(NegotiationView):
    """`{opportunity, negotiation, counterparty}`."""

    opportunity: Opportunity


class DecidedOpportunity(Model):
    """`{opportunity}` after the person's own decision."""

    opportunity: Opportunity


class Question(Model):
    """A question the selected agent asked its owner; `answer` once answered."""

    question_id: str
    question: str
    options: list[str] | None = None
    why: str
    status: str
    answer: str | None = None
    answered_in_chat: bool | None = None


class QuestionList(Model):
    """`{questions}` of the viewer's own seat."""

    questions: list[Question]


class AnsweredQuestion(Model):
    """`{question}`: the question, answered."""

    question: Question


class NegotiationSummary(Model):
    """A negotiation as `negotiations()` lists it."""

    negotiation_id: str
    opportunity_id: str
    outcome: str | None
    round: int
    awaiting: str | None


class NegotiationList(Model):
    """`{negotiations}` the principal holds a seat in."""

    negotiations: list[NegotiationSummary]

"""A principal's intro negotiations (spec/intro-api.md), with its owner key or an agent key:
intents and their chat, networks, discovery, opportunities, turns, questions, decisions, the
log and the receipt.

What a key may do is the server's to say (Principals and keys): the owner writes intents and
decides, the selected agent takes turns and asks; a wrong key is refused, never guessed at.
A turn without a `message_id` gets one, so a retry returns the first answer.
"""

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from accord.sdk import _operations as ops
from accord.sdk._adviser import Adviser, AsyncAdviser
from accord.sdk._intro_models import (
    AnsweredQuestion,
    Candidates,
    ChatLog,
    ChatPost,
    DecidedOpportunity,
    IntentList,
    IntentView,
    NegotiationList,
    NegotiationView,
    Network,
    NetworkList,
    OpenedOpportunities,
    OpportunityList,
    OpportunityView,
    PrincipalMe,
    QuestionList,
    SelectedAgent,
)
from accord.sdk._models import LinkCode, Log, Receipt

if TYPE_CHECKING:
    from accord.sdk._client import Accord, AsyncAccord


def _members(**members: Any) -> dict[str, Any]:
    return {name: value for name, value in members.items() if value is not None}


def _turn(action: str, message: str, expected_turn_count: int, message_id: str | None) -> Any:
    return _members(
        action=action,
        message=message,
        expected_turn_count=expected_turn_count,
        message_id=message_id,
    )


def _opened(candidates: Sequence[str], context: str | None) -> dict[str, Any]:
    return _members(candidates=list(candidates), context=context)


def _filters(**filters: str | None) -> dict[str, str | int]:
    return {name: value for name, value in filters.items() if value is not None}


def _opp(opportunity_id: str) -> dict[str, str]:
    return {"opportunity_id": opportunity_id}


def _intent(intent_id: str) -> dict[str, str]:
    return {"intent_id": intent_id}


class _Principal:
    def __init__(self, key: str) -> None:
        self.key = key

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"  # the key stays out of logs


class Principal(_Principal):
    """A principal's surface, with one of its keys (`acc_ok_…` the owner, `acc_ak_…` an
    agent)."""

    def __init__(self, client: "Accord", key: str) -> None:
        super().__init__(key)
        self._client = client
        self.adviser = Adviser(client, key)
        """The principal's adviser cases, with the same key."""

    def me(self) -> PrincipalMe:
        return self._client._call(ops.PRINCIPAL_ME, token=self.key)

    def select_agent(self, agent_id: str) -> SelectedAgent:
        """The owner selects the agent that negotiates (`accord` is the built-in one)."""
        body = {"agent_id": agent_id}
        return self._client._call(ops.SELECT_AGENT, token=self.key, body=body)

    def link(self) -> LinkCode:
        """A one-time link that hands the owner key on to a browser or the Telegram bot
        (owner key)."""
        return self._client._call(ops.MAKE_LINK, token=self.key, body={})

    # -- intents -------------------------------------------------------------------------

    def create_intent(self, intent: Mapping[str, Any]) -> IntentView:
        """`{statement, constraints?, identity?, visibility, networks?}`; sent once."""
        return self._client._call(ops.CREATE_INTENT, token=self.key, body=intent)

    def intents(self) -> IntentList:
        return self._client._call(ops.LIST_INTENTS, token=self.key)

    def intent(self, intent_id: str) -> IntentView:
        return self._client._call(ops.SHOW_INTENT, token=self.key, path=_intent(intent_id))

    def edit_intent(self, intent_id: str, patch: Mapping[str, Any]) -> IntentView:
        """Set the members `patch` names (`statement`, `constraints`, `identity`, `networks`,
        `status`); the result must be valid as a whole."""
        return self._client._call(
            ops.EDIT_INTENT, token=self.key, path=_intent(intent_id), body=patch
        )

    def write(self, intent_id: str, message: str) -> ChatPost:
        """A message in the intent's chat; the owner's answers the agent's open questions."""
        return self._client._call(
            ops.POST_CHAT, token=self.key, path=_intent(intent_id), body={"message": message}
        )

    def chat(self, intent_id: str, *, after: str | None = None) -> ChatLog:
        return self._client._call(
            ops.READ_CHAT, token=self.key, path=_intent(intent_id), params=_filters(after=after)
        )

    # -- networks ------------------------------------------------------------------------

    def create_network(self, name: str) -> Network:
        """A network with its invite code, shown only in this answer."""
        return self._client._call(ops.CREATE_NETWORK, token=self.key, body={"name": name})

    def networks(self) -> NetworkList:
        return self._client._call(ops.LIST_NETWORKS, token=self.key)

    def join_network(self, invite_code: str) -> Network:
        body = {"invite_code": invite_code}
        return self._client._call(ops.JOIN_NETWORK, token=self.key, body=body)

    # -- discovery and opportunities -----------------------------------------------------

    def discover(
        self, intent_id: str, *, query: str | None = None, limit: int | None = None
    ) -> Candidates:
        body = _members(query=query, limit=limit)
        return self._client._call(ops.DISCOVER, token=self.key, path=_intent(intent_id), body=body)

    def open(
        self, intent_id: str, candidates: Sequence[str], *, context: str | None = None
    ) -> OpenedOpportunities:
        """One opportunity per pair, ever: opening it again returns it with `created: false`."""
        return self._client._call(
            ops.OPEN_OPPORTUNITIES,
            token=self.key,
            path=_intent(intent_id),
            body=_opened(candidates, context),
        )

    def opportunities(
        self, *, status: str | None = None, intent_id: str | None = None
    ) -> OpportunityList:
        params = _filters(status=status, intent_id=intent_id)
        return self._client._call(ops.LIST_OPPORTUNITIES, token=self.key, params=params)

    def opportunity(self, opportunity_id: str) -> OpportunityView:
        return self._client._call(ops.SHOW_OPPORTUNITY, token=self.key, path=_opp(opportunity_id))

    def decide(self, opportunity_id: str, status: str) -> DecidedOpportunity:
        """The owner's own decision: `accepted`, `rejected` or `expired` (withdrawn)."""
        return self._client._call(
            ops.DECIDE_OPPORTUNITY,
            token=self.key,
            path=_opp(opportunity_id),
            body={"status": status},
        )

    # -- the negotiation -----------------------------------------------------------------

    def negotiation(self, opportunity_id: str) -> NegotiationView:
        return self._client._call(ops.SHOW_NEGOTIATION, token=self.key, path=_opp(opportunity_id))

    def turn(
        self,
        opportunity_id: str,
        action: str,
        message: str,
        *,
        expected_turn_count: int,
        message_id: str | None = None,
    ) -> NegotiationView:
        """The seat's turn (the selected agent's key); `raced` when `expected_turn_count` is
        not the negotiation's `turn_count`."""
        return self._client._call(
            ops.TAKE_TURN,
            token=self.key,
            path=_opp(opportunity_id),
            body=_turn(action, message, expected_turn_count, message_id),
        )

    def resume(self, opportunity_id: str, brief: str) -> NegotiationView:
        """Open the next round, with what is new (kept private to this seat)."""
        return self._client._call(
            ops.RESUME, token=self.key, path=_opp(opportunity_id), body={"brief": brief}
        )

    def ask(self, opportunity_id: str, questions: Sequence[Mapping[str, Any]]) -> QuestionList:
        """1..3 `{question, options?, why}` to the owner; the seat waits for the answers."""
        body = {"questions": [dict(q) for q in questions]}
        return self._client._call(ops.ASK, token=self.key, path=_opp(opportunity_id), body=body)

    def questions(self, opportunity_id: str) -> QuestionList:
        return self._client._call(ops.QUESTIONS, token=self.key, path=_opp(opportunity_id))

    def answer(self, opportunity_id: str, question_id: str, answer: str) -> AnsweredQuestion:
        path = {"opportunity_id": opportunity_id, "question_id": question_id}
        return self._client._call(ops.ANSWER, token=self.key, path=path, body={"answer": answer})

    def log(self, opportunity_id: str) -> Log:
        return self._client._call(ops.NEGOTIATION_LOG, token=self.key, path=_opp(opportunity_id))

    def receipt(self, opportunity_id: str) -> Receipt:
        """`negotiation_open` until the negotiation settles."""
        return self._client._call(
            ops.NEGOTIATION_RECEIPT, token=self.key, path=_opp(opportunity_id)
        )

    def negotiations(
        self, *, state: str | None = None, intent_id: str | None = None
    ) -> NegotiationList:
        params = _filters(state=state, intent_id=intent_id)
        return self._client._call(ops.LIST_NEGOTIATIONS, token=self.key, params=params)


class AsyncPrincipal(_Principal):
    """`Principal` for an event loop."""

    def __init__(self, client: "AsyncAccord", key: str) -> None:
        super().__init__(key)
        self._client = client
        self.adviser = AsyncAdviser(client, key)
        """The principal's adviser cases, with the same key."""

    async def me(self) -> PrincipalMe:
        return await self._client._call(ops.PRINCIPAL_ME, token=self.key)

    async def select_agent(self, agent_id: str) -> SelectedAgent:
        body = {"agent_id": agent_id}
        return await self._client._call(ops.SELECT_AGENT, token=self.key, body=body)

    async def link(self) -> LinkCode:
        return await self._client._call(ops.MAKE_LINK, token=self.key, body={})

    async def create_intent(self, intent: Mapping[str, Any]) -> IntentView:
        return await self._client._call(ops.CREATE_INTENT, token=self.key, body=intent)

    async def intents(self) -> IntentList:
        return await self._client._call(ops.LIST_INTENTS, token=self.key)

    async def intent(self, intent_id: str) -> IntentView:
        return await self._client._call(ops.SHOW_INTENT, token=self.key, path=_intent(intent_id))

    async def edit_intent(self, intent_id: str, patch: Mapping[str, Any]) -> IntentView:
        return await self._client._call(
            ops.EDIT_INTENT, token=self.key, path=_intent(intent_id), body=patch
        )

    async def write(self, intent_id: str, message: str) -> ChatPost:
        return await self._client._call(
            ops.POST_CHAT, token=self.key, path=_intent(intent_id), body={"message": message}
        )

    async def chat(self, intent_id: str, *, after: str | None = None) -> ChatLog:
        return await self._client._call(
            ops.READ_CHAT, token=self.key, path=_intent(intent_id), params=_filters(after=after)
        )

    async def create_network(self, name: str) -> Network:
        return await self._client._call(ops.CREATE_NETWORK, token=self.key, body={"name": name})

    async def networks(self) -> NetworkList:
        return await self._client._call(ops.LIST_NETWORKS, token=self.key)

    async def join_network(self, invite_code: str) -> Network:
        body = {"invite_code": invite_code}
        return await self._client._call(ops.JOIN_NETWORK, token=self.key, body=body)

    async def discover(
        self, intent_id: str, *, query: str | None = None, limit: int | None = None
    ) -> Candidates:
        body = _members(query=query, limit=limit)
        return await self._client._call(
            ops.DISCOVER, token=self.key, path=_intent(intent_id), body=body
        )

    async def open(
        self, intent_id: str, candidates: Sequence[str], *, context: str | None = None
    ) -> OpenedOpportunities:
        return await self._client._call(
            ops.OPEN_OPPORTUNITIES,
            token=self.key,
            path=_intent(intent_id),
            body=_opened(candidates, context),
        )

    async def opportunities(
        self, *, status: str | None = None, intent_id: str | None = None
    ) -> OpportunityList:
        params = _filters(status=status, intent_id=intent_id)
        return await self._client._call(ops.LIST_OPPORTUNITIES, token=self.key, params=params)

    async def opportunity(self, opportunity_id: str) -> OpportunityView:
        return await self._client._call(
            ops.SHOW_OPPORTUNITY, token=self.key, path=_opp(opportunity_id)
        )

    async def decide(self, opportunity_id: str, status: str) -> DecidedOpportunity:
        return await self._client._call(
            ops.DECIDE_OPPORTUNITY,
            token=self.key,
            path=_opp(opportunity_id),
            body={"status": status},
        )

    async def negotiation(self, opportunity_id: str) -> NegotiationView:
        return await self._client._call(
            ops.SHOW_NEGOTIATION, token=self.key, path=_opp(opportunity_id)
        )

    async def turn(
        self,
        opportunity_id: str,
        action: str,
        message: str,
        *,
        expected_turn_count: int,
        message_id: str | None = None,
    ) -> NegotiationView:
        return await self._client._call(
            ops.TAKE_TURN,
            token=self.key,
            path=_opp(opportunity_id),
            body=_turn(action, message, expected_turn_count, message_id),
        )

    async def resume(self, opportunity_id: str, brief: str) -> NegotiationView:
        return await self._client._call(
            ops.RESUME, token=self.key, path=_opp(opportunity_id), body={"brief": brief}
        )

    async def ask(
        self, opportunity_id: str, questions: Sequence[Mapping[str, Any]]
    ) -> QuestionList:
        body = {"questions": [dict(q) for q in questions]}
        return await self._client._call(
            ops.ASK, token=self.key, path=_opp(opportunity_id), body=body
        )

    async def questions(self, opportunity_id: str) -> QuestionList:
        return await self._client._call(ops.QUESTIONS, token=self.key, path=_opp(opportunity_id))

    async def answer(self, opportunity_id: str, question_id: str, answer: str) -> AnsweredQuestion:
        path = {"opportunity_id": opportunity_id, "question_id": question_id}
        return await self._client._call(
            ops.ANSWER, token=self.key, path=path, body={"answer": answer}
        )

    async def log(self, opportunity_id: str) -> Log:
        return await self._client._call(
            ops.NEGOTIATION_LOG, token=self.key, path=_opp(opportunity_id)
        )

    async def receipt(self, opportunity_id: str) -> Receipt:
        return await self._client._call(
            ops.NEGOTIATION_RECEIPT, token=self.key, path=_opp(opportunity_id)
        )

    async def negotiations(
        self, *, state: str | None = None, intent_id: str | None = None
    ) -> NegotiationList:
        params = _filters(state=state, intent_id=intent_id)
        return await self._client._call(ops.LIST_NEGOTIATIONS, token=self.key, params=params)

"""Each tool's output schema (interfaces.md, MCP, Results): its REST body, as the OpenAPI
document describes it (`accord.app.answers`), plus what the door adds (an owner's URL, a
person's link, the events of a wait).

A tool answers the body the service built, unchanged: these types only give the schema. For the
type checker each is the JSON body it is."""

from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from pydantic import BaseModel, Field, GetJsonSchemaHandler, RootModel, TypeAdapter
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

from accord.app import answers
from accord.app.answers import Described
from accord.protocols.rooms.views import RoomView

JSONBody = dict[str, Any]


# -- what the door adds ------------------------------------------------------------------------


class OwnerLink(Described):
    url: str = Field(description="A one-time link for your person: it opens the room as its owner.")
    telegram_url: str | None = Field(None, description="The same link for the Telegram bot.")
    expires_at: str


class OpenedRoom(answers.OpenedRoom):
    owner_link: OwnerLink  # type: ignore[assignment]


class JoinedRoom(answers.JoinedRoom):
    owner_link: OwnerLink  # type: ignore[assignment]


class Applied(answers.Played):
    status: Literal["applied"]


class AwaitingOwner(Described):
    """Nothing applied: the move waits for the person, on their own page."""

    status: Literal["awaiting_owner"]
    room: RoomView
    confirmation: dict[str, Any] = Field(description="{id, type, subject_hash?}")
    owner_url: str = Field(description="Where your person confirms or declines.")


class Event(Described):
    id: int
    event: Literal["envelope", "notification"]
    data: dict[str, Any]


class Events(Described):
    events: list[Event] = Field(description="Oldest first; empty when nothing happened.")
    last_event_id: int = Field(description="Pass it as `after` next time.")


class RoomReceiptAndLog(Described):
    receipt: answers.RoomReceipt
    envelopes: list[answers.Envelope]


class SessionReceiptAndLog(Described):
    receipt: answers.Receipt
    envelopes: list[answers.Envelope]


class PersonLink(Described):
    url: str
    expires_at: str


class OpenedSession(answers.SessionView):
    session_token: str = Field(description="Yours: every later call of the session takes it.")
    person_link: PersonLink = Field(description="For your person and no one else.")


class ReadOpportunity(answers.SeatOpportunity):
    decide_url: str = Field(description="Where your person accepts or passes.")


class Check(Described):
    id: str
    ok: bool
    skipped: bool
    detail: str


class Verification(Described):
    ok: bool
    status: str
    kid: str | None
    signer: Literal["pinned", "unpinned"]
    checks: list[Check] = Field(description="The seven checks, in order.")


# -- the schema of a body ----------------------------------------------------------------------


def body_of(*models: type[BaseModel]) -> type[RootModel[JSONBody]]:
    """A JSON object whose schema is `models`' (one of them): what a tool's output declares."""
    if not 1 <= len(models) <= 2:
        raise ValueError("a tool answers one body, or one of two")
    shape: TypeAdapter[Any] = TypeAdapter(models[0] if len(models) == 1 else models[0] | models[1])

    class Body(RootModel[JSONBody]):
        @classmethod
        def __get_pydantic_json_schema__(
            cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
        ) -> JsonSchemaValue:
            schema = handler(shape.core_schema)
            schema.setdefault("type", "object")  # one of two objects is an object
            return schema

    Body.__name__ = "Or".join(model.__name__ for model in models)
    return Body


if TYPE_CHECKING:
    OpenedRoomBody: TypeAlias = JSONBody
    JoinedRoomBody: TypeAlias = JSONBody
    RoomListBody: TypeAlias = JSONBody
    RoomViewBody: TypeAlias = JSONBody
    PlayedBody: TypeAlias = JSONBody
    AskedBody: TypeAlias = JSONBody
    EventsBody: TypeAlias = JSONBody
    RoomReceiptBody: TypeAlias = JSONBody
    CatalogueBody: TypeAlias = JSONBody
    OpenedSessionBody: TypeAlias = JSONBody
    SessionBody: TypeAlias = JSONBody
    HandoffBody: TypeAlias = JSONBody
    SessionReceiptBody: TypeAlias = JSONBody
    IntentsBody: TypeAlias = JSONBody
    NegotiationsBody: TypeAlias = JSONBody
    CandidatesBody: TypeAlias = JSONBody
    OpenedOpportunitiesBody: TypeAlias = JSONBody
    OpportunityBody: TypeAlias = JSONBody
    NegotiationBody: TypeAlias = JSONBody
    QuestionsBody: TypeAlias = JSONBody
    ChatBody: TypeAlias = JSONBody
    ChatPostedBody: TypeAlias = JSONBody
    CasesBody: TypeAlias = JSONBody
    CaseBody: TypeAlias = JSONBody
    VerificationBody: TypeAlias = JSONBody
else:
    OpenedRoomBody = body_of(OpenedRoom)
    JoinedRoomBody = body_of(JoinedRoom)
    RoomListBody = body_of(answers.RoomList)
    RoomViewBody = body_of(RoomView)
    PlayedBody = body_of(answers.Played)
    AskedBody = body_of(Applied, AwaitingOwner)
    EventsBody = body_of(Events)
    RoomReceiptBody = body_of(RoomReceiptAndLog)
    CatalogueBody = body_of(answers.Catalogue)
    OpenedSessionBody = body_of(OpenedSession)
    SessionBody = body_of(answers.SessionView)
    HandoffBody = body_of(answers.ClaimedHandoff)
    SessionReceiptBody = body_of(SessionReceiptAndLog)
    IntentsBody = body_of(answers.IntentList)
    NegotiationsBody = body_of(answers.NegotiationList)
    CandidatesBody = body_of(answers.Candidates)
    OpenedOpportunitiesBody = body_of(answers.OpenedOpportunities)
    OpportunityBody = body_of(ReadOpportunity)
    NegotiationBody = body_of(answers.SeatNegotiation)
    QuestionsBody = body_of(answers.AskedQuestions)
    ChatBody = body_of(answers.ChatMessages)
    ChatPostedBody = body_of(answers.ChatPosted)
    CasesBody = body_of(answers.Cases)
    CaseBody = body_of(answers.Case, answers.CaseVersion)
    VerificationBody = body_of(Verification)

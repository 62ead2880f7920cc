"""Every endpoint the SDK speaks, stated once (spec/rooms-api.md, spec/arbitrated-rest.md):
its method and path, the strict request model the server validates the body with, the result
model of each success status, and when it may be sent again.

A body is checked against the same strict model before it leaves, so a malformed request is
refused here exactly as the server would refuse it, and never half-sent.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Final, Generic, Literal, TypeVar
from urllib.parse import quote

from pydantic import TypeAdapter

from accord.protocols.arbitrated.moves import HandoffRequest, OpenSessionRequest, RevealRequest
from accord.protocols.arbitrated.moves import Move as SessionMove
from accord.protocols.arbitrated.policy import PolicyRequest
from accord.protocols.rooms.moves import (
    ConfirmRequest,
    JoinRequest,
    ListRequest,
    MoveRequest,
    OpenRequest,
)
from accord.sdk._models import (
    Applied,
    AwaitingOwner,
    Catalogue,
    Confirmations,
    Decided,
    Handoff,
    Joined,
    Jwks,
    Log,
    Me,
    Model,
    Opened,
    Policy,
    PolicyList,
    Receipt,
    Reveals,
    Room,
    RoomList,
    SessionList,
    SessionView,
)

ResultT = TypeVar("ResultT", bound=Model)


class Retry(StrEnum):
    """When a request may be sent again after it failed on its way or was turned away."""

    SAFE = "safe"
    """It cannot apply twice (a read, a PUT, a move with a `message_id`): sent again after a
    connection error, a timeout, 429, 502, 503 or 504."""
    UNSENT = "unsent"
    """It could apply twice: sent again only when it never left (no connection was made)."""


@dataclass(frozen=True)
class Operation(Generic[ResultT]):
    method: Literal["GET", "POST", "PUT"]
    path: str
    results: Mapping[int, type[ResultT]]
    request: TypeAdapter[Any] | None = field(default=None, compare=False)
    retry: Retry = Retry.SAFE

    def url(self, params: Mapping[str, str]) -> str:
        """The path with its parameters filled in, each one percent-encoded whole."""
        return self.path.format_map({name: quote(value, safe="") for name, value in params.items()})


# -- rooms (spec/rooms-api.md, Endpoints) ---------------------------------------------------

OPEN_ROOM: Final[Operation[Opened]] = Operation(
    "POST", "/v1/rooms", {201: Opened}, TypeAdapter(OpenRequest), Retry.UNSENT
)
JOIN_ROOM: Final[Operation[Joined]] = Operation(
    "POST", "/v1/rooms/join", {200: Joined}, TypeAdapter(JoinRequest), Retry.UNSENT
)
# A read, though a POST: the tokens travel in the body, never in a URL.
LIST_ROOMS: Final[Operation[RoomList]] = Operation(
    "POST", "/v1/rooms/list", {200: RoomList}, TypeAdapter(ListRequest)
)
SHOW_ROOM: Final[Operation[Room]] = Operation("GET", "/v1/rooms/{room_id}", {200: Room})
# UNSENT, but every move the SDK sends carries a message_id, which makes it SAFE.
MOVE: Final[Operation[Applied | AwaitingOwner]] = Operation(
    "POST",
    "/v1/rooms/{room_id}/moves",
    {200: Applied, 202: AwaitingOwner},
    TypeAdapter(MoveRequest),
    Retry.UNSENT,
)
CONFIRMATIONS: Final[Operation[Confirmations]] = Operation(
    "GET", "/v1/rooms/{room_id}/confirmations", {200: Confirmations}
)
DECIDE: Final[Operation[Decided]] = Operation(
    "POST",
    "/v1/rooms/{room_id}/confirmations/{confirmation_id}",
    {200: Decided},
    TypeAdapter(ConfirmRequest),
    Retry.UNSENT,
)
ROOM_LOG: Final[Operation[Log]] = Operation("GET", "/v1/rooms/{room_id}/log", {200: Log})
ROOM_RECEIPT: Final[Operation[Receipt]] = Operation(
    "GET", "/v1/rooms/{room_id}/receipt", {200: Receipt}
)
# A stream: its frames are read by _events, not by a result model.
ROOM_EVENTS: Final[Operation[Model]] = Operation("GET", "/v1/rooms/{room_id}/events", {})

# -- arbitrated sessions (spec/arbitrated-rest.md, Endpoints) -------------------------------

OPEN_SESSION: Final[Operation[SessionView]] = Operation(
    "POST", "/v1/sessions", {201: SessionView}, TypeAdapter(OpenSessionRequest), Retry.UNSENT
)
LIST_SESSIONS: Final[Operation[SessionList]] = Operation("GET", "/v1/sessions", {200: SessionList})
SHOW_SESSION: Final[Operation[SessionView]] = Operation(
    "GET", "/v1/sessions/{session_id}", {200: SessionView}
)
# As a room's move: SAFE once it carries a message_id (a reveal carries none).
SESSION_MOVE: Final[Operation[SessionView]] = Operation(
    "POST",
    "/v1/sessions/{session_id}/messages",
    {200: SessionView},
    TypeAdapter(SessionMove),
    Retry.UNSENT,
)
SESSION_LOG: Final[Operation[Log]] = Operation("GET", "/v1/sessions/{session_id}/log", {200: Log})
SESSION_RECEIPT: Final[Operation[Receipt]] = Operation(
    "GET", "/v1/sessions/{session_id}/receipt", {200: Receipt}
)
CLAIM_HANDOFF: Final[Operation[Handoff]] = Operation(
    "POST", "/v1/sessions/{session_id}/handoff/claim", {200: Handoff}, retry=Retry.UNSENT
)
PUBLISH_HANDOFF: Final[Operation[Handoff]] = Operation(
    "POST",
    "/v1/sessions/{session_id}/handoff",
    {200: Handoff},
    TypeAdapter(HandoffRequest),
    Retry.UNSENT,
)
MERCHANT_REVEAL: Final[Operation[Reveals]] = Operation(
    "POST",
    "/v1/sessions/{session_id}/reveal",
    {200: Reveals},
    TypeAdapter(RevealRequest),
    Retry.UNSENT,
)

# -- a merchant's own surface ---------------------------------------------------------------

ME: Final[Operation[Me]] = Operation("GET", "/v1/me", {200: Me})
CATALOGUE: Final[Operation[Catalogue]] = Operation("GET", "/v1/catalogue", {200: Catalogue})
POLICIES: Final[Operation[PolicyList]] = Operation("GET", "/v1/policies", {200: PolicyList})
# A PUT replaces the SKU's policy: sending it twice stores the same policy.
PUT_POLICY: Final[Operation[Policy]] = Operation(
    "PUT", "/v1/policies/{sku}", {200: Policy}, TypeAdapter(PolicyRequest)
)

# -- trust ----------------------------------------------------------------------------------

JWKS: Final[Operation[Jwks]] = Operation("GET", "/.well-known/jwks.json", {200: Jwks})

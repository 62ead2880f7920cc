"""Who is asking: every credential Accord issues, resolved to one typed caller.

Room seat, owner and invite tokens and session tokens never change once issued, so a process
may remember them; merchant and principal keys can be rotated or replaced, so they are looked
up on every request and a rotation takes effect at once in every process.
"""

import threading
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Literal, assert_never, get_args

from sqlalchemy import Connection

from accord.app.tokens import hash_token
from accord.store import merchants as merchant_rows
from accord.store import principals as principal_rows
from accord.store import records

Mode = Literal["test", "live"]
KeyKind = Literal["publishable", "secret"]
Level = Literal["owner", "agent"]

MODES: Final[tuple[Mode, ...]] = get_args(Mode)
KEY_KINDS: Final[tuple[KeyKind, ...]] = get_args(KeyKind)
LEVELS: Final[tuple[Level, ...]] = get_args(Level)

# Keys say what they are: a key's prefix names the one store that can hold it.
MERCHANT_KEY_PREFIX: Final[dict[KeyKind, str]] = {"publishable": "acc_pk", "secret": "acc_sk"}
PRINCIPAL_KEY_PREFIX: Final[dict[Level, str]] = {"owner": "acc_ok", "agent": "acc_ak"}


class CredentialKind(StrEnum):
    """What a credential is, by the name it has on the wire and in the store."""

    SEAT = "seat"
    OWNER = "owner"
    INVITE = "invite"
    SESSION = "session"
    PUBLISHABLE = "publishable"
    SECRET = "secret"
    PRINCIPAL_OWNER = "principal_owner"
    PRINCIPAL_AGENT = "principal_agent"


@dataclass(frozen=True)
class SeatCaller:
    """A room seat: its agent (a seat token) or its human (an owner token)."""

    negotiation_id: str
    party: str
    is_owner: bool

    @property
    def kind(self) -> CredentialKind:
        return CredentialKind.OWNER if self.is_owner else CredentialKind.SEAT


@dataclass(frozen=True)
class InviteCaller:
    """The holder of a room's invite, who may join it (once, while it is a draft)."""

    negotiation_id: str

    @property
    def kind(self) -> CredentialKind:
        return CredentialKind.INVITE


@dataclass(frozen=True)
class SessionCaller:
    """The buyer of an arbitrated session, by its session token."""

    negotiation_id: str

    @property
    def kind(self) -> CredentialKind:
        return CredentialKind.SESSION


@dataclass(frozen=True)
class MerchantCaller:
    """A tenant, the mode of its key, and the key's kind."""

    tenant_id: str
    mode: Mode
    key_kind: KeyKind

    @property
    def kind(self) -> CredentialKind:
        return CredentialKind(self.key_kind)


@dataclass(frozen=True)
class PrincipalCaller:
    """A principal's owner key (the person; `agent_id` None) or one of its agent keys."""

    principal_id: str
    level: Level
    agent_id: str | None

    def __post_init__(self) -> None:
        if (self.level == "agent") != (self.agent_id is not None):
            raise ValueError("an agent key names its agent; the owner key names none")

    @property
    def kind(self) -> CredentialKind:
        if self.level == "owner":
            return CredentialKind.PRINCIPAL_OWNER
        return CredentialKind.PRINCIPAL_AGENT


Caller = SeatCaller | InviteCaller | SessionCaller | MerchantCaller | PrincipalCaller


class CredentialCache:
    """Negotiation credentials are never changed or deleted once issued, so a process may
    remember the ones it has seen; a token it has not seen is always looked up."""

    def __init__(self, size: int = 65_536) -> None:
        self._size = size
        self._known: dict[str, records.Credential] = {}
        self._lock = threading.Lock()

    def known(self, token_hash: str) -> records.Credential | None:
        with self._lock:
            return self._known.get(token_hash)

    def find(self, conn: Connection, token_hash: str) -> records.Credential | None:
        with self._lock:
            found = self._known.get(token_hash)
        if found is not None:
            return found
        found = records.find_credentials(conn, [token_hash]).get(token_hash)
        if found is not None:
            with self._lock:
                if len(self._known) >= self._size:
                    self._known.pop(next(iter(self._known)))
                self._known[token_hash] = found
        return found


def resolve(conn: Connection, token: str | None, cache: CredentialCache) -> Caller | None:
    """The caller `token` stands for, looked up in the one store its prefix names; None when it
    opens nothing (no token, an unknown one, a retired merchant key, a replaced agent key)."""
    if not token:
        return None
    token_hash = hash_token(token)
    if token.startswith(tuple(f"{p}_" for p in MERCHANT_KEY_PREFIX.values())):
        return merchant_caller(conn, token_hash)
    if token.startswith(tuple(f"{p}_" for p in PRINCIPAL_KEY_PREFIX.values())):
        return principal_caller(conn, token_hash)
    found = cache.find(conn, token_hash)
    return None if found is None else negotiation_caller(found)


def negotiation_caller(found: records.Credential) -> Caller:
    """A room or session credential as its caller."""
    kind = CredentialKind(found.kind)
    match kind:
        case CredentialKind.SEAT | CredentialKind.OWNER:
            return SeatCaller(found.negotiation_id, found.party, kind is CredentialKind.OWNER)
        case CredentialKind.INVITE:
            return InviteCaller(found.negotiation_id)
        case CredentialKind.SESSION:
            return SessionCaller(found.negotiation_id)
    raise ValueError(f"a negotiation credential of kind {found.kind!r} is not issued")


def merchant_caller(conn: Connection, key_hash: str) -> MerchantCaller | None:
    """A current merchant key; a retired one opens nothing."""
    row = merchant_rows.find_key(conn, key_hash=key_hash)
    if row is None or row.retired_at is not None:
        return None
    return MerchantCaller(row.tenant_id, _one_of(row.mode, MODES), _one_of(row.kind, KEY_KINDS))


def principal_caller(conn: Connection, key_hash: str) -> PrincipalCaller | None:
    """A principal's owner key or current agent key; a replaced agent key opens nothing."""
    row = principal_rows.find_key(conn, key_hash)
    if row is None or row.retired_at is not None:
        return None
    return PrincipalCaller(row.principal_id, _one_of(row.level, LEVELS), row.agent_id)


def describe(caller: Caller) -> dict[str, Any]:
    """`{kind, negotiation_id?, party?, principal_id?, tenant_id?, mode?}`: what a door that
    receives a bare credential needs to know of it (interfaces.md, A2)."""
    match caller:
        case SeatCaller():
            return {
                "kind": str(caller.kind),
                "negotiation_id": caller.negotiation_id,
                "party": caller.party,
            }
        case InviteCaller() | SessionCaller():
            return {"kind": str(caller.kind), "negotiation_id": caller.negotiation_id}
        case MerchantCaller():
            return {"kind": str(caller.kind), "tenant_id": caller.tenant_id, "mode": caller.mode}
        case PrincipalCaller():
            return {"kind": str(caller.kind), "principal_id": caller.principal_id}
        case _:
            assert_never(caller)


def _one_of(value: str, allowed: tuple[Any, ...]) -> Any:
    """A stored value narrowed to its literal type; anything else is a corrupt row."""
    if value not in allowed:
        raise ValueError(f"a stored credential holds {value!r}, not one of {allowed}")
    return value

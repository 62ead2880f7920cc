"""One resolver for every credential (`accord/app/identity.py`): each kind of token resolves to
its caller, and what opens nothing resolves to None; only immutable credentials are cached."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy import event

from accord.app.identity import (
    Caller,
    CredentialCache,
    CredentialKind,
    InviteCaller,
    MerchantCaller,
    PrincipalCaller,
    SeatCaller,
    SessionCaller,
    describe,
    resolve,
)
from accord.app.merchants import SECRET_KEY, Merchants
from accord.app.principals import Principals
from accord.app.rooms import Rooms
from accord.app.root import Accord
from accord.app.settings import Settings
from accord.app.tokens import hash_token
from accord.protocols.arbitrated.moves import Buyer, OpenSessionRequest
from accord.protocols.arbitrated.policy import PolicyRequest
from accord.protocols.rooms.moves import JoinRequest, OpenRequest
from accord.store.database import Database
from tests.conftest import FakeClock
from tests.merchants.conftest import policy_body


@dataclass(frozen=True)
class World:
    """One of every credential Accord issues, on one store."""

    room_id: str
    tokens: dict[str, str]
    session_id: str
    tenant_id: str
    principal_id: str


@pytest.fixture
def world(accord: Accord, rooms: Rooms, principals: Principals) -> World:
    opened = rooms.open(OpenRequest(subject_schema={"n": {"type": "int"}}, subject={"n": 1}))
    joined = rooms.join(JoinRequest(invite_token=opened["invite"]["token"]))
    merchants = accord.merchants
    tenant = merchants.create_tenant("acme")
    keys = tenant["keys"]
    retired = keys["publishable_live"]
    keys |= {
        f"rotated_{k}": v for k, v in merchants.rotate_keys("acme", "publishable")["keys"].items()
    }
    secret = merchants.authenticate(keys["secret_test"], allow=SECRET_KEY)
    merchants.put_policy(secret, "bike-blue-52", PolicyRequest.model_validate(policy_body()))
    sessions = accord.sessions
    session = sessions.open(
        keys["rotated_publishable_test"],
        OpenSessionRequest(sku="bike-blue-52", buyer=Buyer(agent_id="buyer-1")),
    )
    made = principals.create("ada")
    replaced = principals.agent_key("ada", "helper")["agent_key"]
    helper = principals.agent_key("ada", "helper")["agent_key"]
    tokens = {
        "opener_seat": opened["seat_token"],
        "opener_owner": opened["owner_token"],
        "invite": opened["invite"]["token"],
        "joiner_seat": joined["seat_token"],
        "joiner_owner": joined["owner_token"],
        "session": session["session_token"],
        "retired": retired,
        "owner_key": made["owner_key"],
        "default_agent": made["agent_key"],
        "helper_agent": helper,
        "replaced_agent": replaced,
        **keys,
    }
    return World(
        opened["room"]["room_id"],
        tokens,
        session["session_id"],
        tenant["tenant_id"],
        made["principal_id"],
    )


KEY_TABLES = ("credentials", "tenant_keys", "principal_keys")


def token(name: str) -> Callable[[World], str]:
    return lambda w: w.tokens[name]


RESOLVED: list[Any] = [
    pytest.param(
        token("opener_seat"),
        lambda w: SeatCaller(w.room_id, "opener", is_owner=False),
        id="room_seat_token",
    ),
    pytest.param(
        token("opener_owner"),
        lambda w: SeatCaller(w.room_id, "opener", is_owner=True),
        id="room_owner_token",
    ),
    pytest.param(
        token("joiner_seat"),
        lambda w: SeatCaller(w.room_id, "joiner", is_owner=False),
        id="joiner_seat_token",
    ),
    pytest.param(
        token("joiner_owner"),
        lambda w: SeatCaller(w.room_id, "joiner", is_owner=True),
        id="joiner_owner_token",
    ),
    pytest.param(token("invite"), lambda w: InviteCaller(w.room_id), id="room_invite_token"),
    pytest.param(token("session"), lambda w: SessionCaller(w.session_id), id="session_token"),
    pytest.param(
        token("rotated_publishable_test"),
        lambda w: MerchantCaller(w.tenant_id, "test", "publishable"),
        id="publishable_test_key",
    ),
    pytest.param(
        token("rotated_publishable_live"),
        lambda w: MerchantCaller(w.tenant_id, "live", "publishable"),
        id="publishable_live_key",
    ),
    pytest.param(
        token("secret_test"),
        lambda w: MerchantCaller(w.tenant_id, "test", "secret"),
        id="secret_test_key",
    ),
    pytest.param(
        token("secret_live"),
        lambda w: MerchantCaller(w.tenant_id, "live", "secret"),
        id="secret_live_key",
    ),
    pytest.param(token("retired"), lambda w: None, id="retired_merchant_key"),
    pytest.param(
        token("owner_key"),
        lambda w: PrincipalCaller(w.principal_id, "owner", None),
        id="principal_owner_key",
    ),
    pytest.param(
        token("default_agent"),
        lambda w: PrincipalCaller(w.principal_id, "agent", "default"),
        id="selected_agent_key",
    ),
    pytest.param(
        token("helper_agent"),
        lambda w: PrincipalCaller(w.principal_id, "agent", "helper"),
        id="other_agent_key",
    ),
    pytest.param(token("replaced_agent"), lambda w: None, id="replaced_agent_key"),
    pytest.param(lambda w: "seat_" + "A" * 43, lambda w: None, id="unknown_token"),
    pytest.param(lambda w: "", lambda w: None, id="empty"),
    pytest.param(lambda w: None, lambda w: None, id="none"),
]


@pytest.mark.parametrize(("token_of", "caller_of"), RESOLVED)
def test_every_credential_resolves_to_its_caller(
    db: Database, world: World, token_of: Any, caller_of: Any
) -> None:
    expected = caller_of(world)
    got = db.read(lambda conn: resolve(conn, token_of(world), CredentialCache()))
    assert got == expected
    assert type(got) is type(expected)


@pytest.mark.parametrize(
    ("token_of", "tables"),
    [
        pytest.param(token("opener_seat"), {"credentials"}, id="seat"),
        pytest.param(token("session"), {"credentials"}, id="session"),
        pytest.param(token("secret_test"), {"tenant_keys"}, id="merchant"),
        pytest.param(token("owner_key"), {"principal_keys"}, id="principal"),
        pytest.param(lambda w: "seat_" + "A" * 43, {"credentials"}, id="unknown"),
        pytest.param(lambda w: "acc_sk_test_" + "A" * 43, {"tenant_keys"}, id="unknown_key"),
    ],
)
def test_a_token_is_looked_up_once_in_the_store_its_prefix_names(
    db: Database, world: World, token_of: Any, tables: set[str]
) -> None:
    statements: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *rest: Any) -> None:
        statements.append(statement)

    event.listen(db.read_engine, "before_cursor_execute", record)
    try:
        db.read(lambda conn: resolve(conn, token_of(world), CredentialCache()))
    finally:
        event.remove(db.read_engine, "before_cursor_execute", record)
    queries = [s for s in statements if s.lstrip().upper().startswith("SELECT")]
    assert len(queries) == 1, queries
    assert {t for t in KEY_TABLES if f" {t}" in queries[0]} == tables


@pytest.mark.parametrize(
    ("name", "cached"),
    [
        pytest.param("opener_seat", True, id="seat"),
        pytest.param("opener_owner", True, id="owner"),
        pytest.param("invite", True, id="invite"),
        pytest.param("session", True, id="session"),
        pytest.param("secret_test", False, id="secret"),
        pytest.param("rotated_publishable_test", False, id="publishable"),
        pytest.param("owner_key", False, id="principal_owner"),
        pytest.param("default_agent", False, id="principal_agent"),
    ],
)
def test_only_immutable_credentials_are_cached(
    db: Database, world: World, name: str, cached: bool
) -> None:
    cache = CredentialCache()
    assert db.read(lambda conn: resolve(conn, world.tokens[name], cache)) is not None
    assert (cache.known(hash_token(world.tokens[name])) is not None) == cached


def test_a_replaced_key_stops_at_once_for_a_process_that_resolved_it(
    db: Database, world: World, principals: Principals, settings: Settings, clock: FakeClock
) -> None:
    cache = CredentialCache()
    keys = (world.tokens["helper_agent"], world.tokens["secret_test"])

    def resolved() -> list[Caller | None]:
        return db.read(lambda conn: [resolve(conn, key, cache) for key in keys])

    assert None not in resolved()
    principals.agent_key("ada", "helper")
    Merchants(db, settings, clock=clock).rotate_keys("acme", "secret")
    assert resolved() == [None, None]


@pytest.mark.parametrize(
    ("caller", "kind", "description"),
    [
        pytest.param(
            SeatCaller("room_1", "opener", is_owner=False),
            CredentialKind.SEAT,
            {"kind": "seat", "negotiation_id": "room_1", "party": "opener"},
            id="seat",
        ),
        pytest.param(
            SeatCaller("room_1", "joiner", is_owner=True),
            CredentialKind.OWNER,
            {"kind": "owner", "negotiation_id": "room_1", "party": "joiner"},
            id="owner",
        ),
        pytest.param(
            InviteCaller("room_1"),
            CredentialKind.INVITE,
            {"kind": "invite", "negotiation_id": "room_1"},
            id="invite",
        ),
        pytest.param(
            SessionCaller("ses_1"),
            CredentialKind.SESSION,
            {"kind": "session", "negotiation_id": "ses_1"},
            id="session",
        ),
        pytest.param(
            MerchantCaller("ten_1", "live", "publishable"),
            CredentialKind.PUBLISHABLE,
            {"kind": "publishable", "tenant_id": "ten_1", "mode": "live"},
            id="publishable",
        ),
        pytest.param(
            MerchantCaller("ten_1", "test", "secret"),
            CredentialKind.SECRET,
            {"kind": "secret", "tenant_id": "ten_1", "mode": "test"},
            id="secret",
        ),
        pytest.param(
            PrincipalCaller("pri_1", "owner", None),
            CredentialKind.PRINCIPAL_OWNER,
            {"kind": "principal_owner", "principal_id": "pri_1"},
            id="principal_owner",
        ),
        pytest.param(
            PrincipalCaller("pri_1", "agent", "default"),
            CredentialKind.PRINCIPAL_AGENT,
            {"kind": "principal_agent", "principal_id": "pri_1"},
            id="principal_agent",
        ),
    ],
)
def test_describe_gives_the_doors_shape(
    caller: Caller, kind: CredentialKind, description: dict[str, Any]
) -> None:
    assert caller.kind is kind
    assert describe(caller) == description


@pytest.mark.parametrize(
    ("level", "agent_id"),
    [
        pytest.param("owner", "default", id="owner_with_agent"),
        pytest.param("agent", None, id="agent_without_id"),
    ],
)
def test_a_principal_caller_names_an_agent_exactly_when_it_is_one(
    level: Any, agent_id: str | None
) -> None:
    with pytest.raises(ValueError, match="agent"):
        PrincipalCaller("pri_1", level, agent_id)

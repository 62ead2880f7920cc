"""Builders for the trust tests: an agreed room made through the rooms service (open, join,
counter, approve, approve), an agreed arbitrated session made through the sessions service
(open, offer, accept, both reveals), their stored receipts, logs and JWKS, and the vectors
folder."""

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest

from accord.app.merchants import SECRET_KEY, Merchants
from accord.app.rooms import Rooms
from accord.app.root import Accord
from accord.app.sessions import Sessions
from accord.app.settings import Settings
from accord.core.commit import commit
from accord.protocols.arbitrated.moves import (
    AcceptMove,
    Buyer,
    OfferMove,
    OpenSessionRequest,
    RevealMove,
)
from accord.protocols.arbitrated.policy import PolicyRequest
from accord.protocols.rooms.moves import JoinRequest, MoveRequest, OpenRequest
from accord.store.database import Database
from accord.trust.keys import SigningKey, keyring_path, load_keyring
from tests.conftest import START, FakeClock, _postgres_schema_url
from tests.sessions.conftest import POLICY

VECTORS: Final = Path(__file__).resolve().parent.parent / "vectors"

SCHEMA: Final[dict[str, Any]] = {
    "price": {"type": "money", "currency": "EUR"},
    "qty": {"type": "int"},
    "note": {"type": "string", "optional": True},
}
OFFER: Final[dict[str, Any]] = {"price": {"amount_minor": 125_000, "currency": "EUR"}, "qty": 3}
COUNTER: Final[dict[str, Any]] = {
    "price": {"amount_minor": 119_900, "currency": "EUR"},
    "qty": 3,
    "note": "Delivery to Lyon, 5 Dec – café €",
}


@dataclass(frozen=True)
class Opened:
    room_id: str
    opener_seat: str
    opener_owner: str
    joiner_seat: str
    joiner_owner: str


@dataclass(frozen=True)
class Agreement:
    room: Opened
    receipt: dict[str, Any]
    log: list[dict[str, Any]]
    jwks: dict[str, Any]


def open_and_join(rooms: Rooms) -> Opened:
    opened = rooms.open(OpenRequest(subject_schema=SCHEMA, subject=OFFER, title="Three bikes"))
    joined = rooms.join(JoinRequest(invite_token=opened["invite"]["token"]))
    return Opened(
        room_id=opened["room"]["room_id"],
        opener_seat=opened["seat_token"],
        opener_owner=opened["owner_token"],
        joiner_seat=joined["seat_token"],
        joiner_owner=joined["owner_token"],
    )


def agree(accord: Accord) -> Agreement:
    """open → join → counter → approve (opener's owner) → approve (joiner's owner)."""
    rooms = accord.rooms
    room = open_and_join(rooms)
    rooms.move(room.joiner_seat, room.room_id, MoveRequest(type="counter", terms=COUNTER))
    approve = MoveRequest(type="approve", subject_hash=commit(COUNTER))
    status, _ = rooms.move(room.opener_owner, room.room_id, approve)
    assert status == 200
    status, body = rooms.move(room.joiner_owner, room.room_id, approve)
    assert status == 200 and body["room"]["state"] == "agreed", body
    return Agreement(
        room=room,
        receipt=rooms.receipt(room.opener_seat, room.room_id),
        log=rooms.log(room.opener_seat, room.room_id)["envelopes"],
        jwks=accord.keys.jwks(),
    )


@dataclass(frozen=True)
class Signed:
    """One agreement shared by a module's tests, with the live key that signed it (so that
    an attacker's re-signed forgeries can be made with the real key too)."""

    agreement: Agreement
    live_key: SigningKey


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Signed]:
    data_dir = tmp_path_factory.mktemp("trust") / "data"
    base = os.environ.get("ACCORD_TEST_DATABASE_URL")
    urls = _postgres_schema_url(base) if base else iter([f"sqlite:///{data_dir / 'accord.db'}"])
    settings = Settings(data_dir=data_dir, database_url=next(urls))
    db = Database(settings.database)
    try:
        agreement = agree(Accord(settings, clock=FakeClock(), db=db))
        keyring = load_keyring(keyring_path(settings.key_file, settings.data_dir), now=START)
        yield Signed(agreement, keyring.active("live"))
    finally:
        db.close()
        for _ in urls:  # drops the PostgreSQL schema
            pass


# -- both tables -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Negotiation:
    receipt: dict[str, Any]
    log: list[dict[str, Any]]


@dataclass(frozen=True)
class Table:
    """Two agreements at one table (`rooms` or `arbitrated`), both signed with the live key,
    which is kept so that forgeries can be re-signed with the real key too; `other` is there
    to splice from."""

    name: str
    agreed: Negotiation
    other: Negotiation
    jwks: dict[str, Any]
    live_key: SigningKey


def agree_session(merchants: Merchants, sessions: Sessions, secret: str, pk: str) -> Negotiation:
    """open → a buyer offer (scored, countered) → accept → the buyer's and the merchant's
    reveals, in live mode, so the receipt carries verdicts, invariants and reveals."""
    request = OpenSessionRequest(sku=POLICY["sku"], buyer=Buyer(agent_id="buyer-1"))
    opened = sessions.open(pk, request)
    token, session_id = opened["session_token"], opened["session_id"]
    sessions.move(token, session_id, OfferMove(type="offer", price_minor=40000))
    agreed = sessions.move(token, session_id, AcceptMove(type="accept"))
    assert agreed["state"] == "agreed", agreed
    sessions.move(token, session_id, RevealMove(type="reveal", private={}))
    sessions.merchant_reveal(secret, session_id)
    receipt = sessions.receipt(token, session_id)
    assert [r["matches"] for r in receipt["reveals"]] == [True, True]
    return Negotiation(receipt, sessions.log(token, session_id)["envelopes"])


def _agree_at(name: str, db: Database, settings: Settings) -> tuple[Negotiation, Negotiation]:
    accord = Accord(settings, clock=FakeClock(), db=db)
    if name == "rooms":
        first, second = agree(accord), agree(accord)
        return Negotiation(first.receipt, first.log), Negotiation(second.receipt, second.log)
    merchants = accord.merchants
    keys = merchants.create_tenant("demo-shop")["keys"]
    access = merchants.authenticate(keys["secret_live"], allow=SECRET_KEY)
    merchants.put_policy(access, POLICY["sku"], PolicyRequest.model_validate(POLICY))
    sessions = accord.sessions
    made = [
        agree_session(merchants, sessions, keys["secret_live"], keys["publishable_live"])
        for _ in range(2)
    ]
    return made[0], made[1]


TABLES: Final = ("rooms", "arbitrated")


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Table]]:
    """Both tables, made once per module on one store."""
    data_dir = tmp_path_factory.mktemp("tables") / "data"
    base = os.environ.get("ACCORD_TEST_DATABASE_URL")
    urls = _postgres_schema_url(base) if base else iter([f"sqlite:///{data_dir / 'accord.db'}"])
    settings = Settings(data_dir=data_dir, database_url=next(urls))
    db = Database(settings.database)
    try:
        made = {name: _agree_at(name, db, settings) for name in TABLES}
        keyring = load_keyring(keyring_path(settings.key_file, settings.data_dir), now=START)
        jwks, live = keyring.jwks(), keyring.active("live")
        yield {name: Table(name, *made[name], jwks, live) for name in TABLES}
    finally:
        db.close()
        for _ in urls:  # drops the PostgreSQL schema
            pass


@pytest.fixture(params=TABLES)
def table(request: pytest.FixtureRequest, tables: dict[str, Table]) -> Table:
    """One table; a test names it with `indirect=["table"]` or runs at both."""
    return tables[request.param]

"""Every statement a negotiation's life runs uses an index: a room and a session from open to
receipt, a principal's intents, chat, networks and events, with the sweep, are run while every
statement the drivers execute is recorded; then each one's query plan is read on the same
database. SQLite's plan must not `SCAN` a table; PostgreSQL's, with sequential scans disabled,
must not hold a `Seq Scan` (it would, only if no index can serve the statement). The cost of
opening a room must not grow with the store."""

import re
import sqlite3
from collections.abc import Iterator
from typing import Any, ClassVar

import psycopg
import pytest
from sqlalchemy import Engine, event

from accord.app.events import PrincipalAudience, SeatAudience
from accord.app.principals import Action
from accord.app.root import Accord
from accord.app.settings import Settings
from accord.core.commit import commit
from accord.protocols.arbitrated.moves import AcceptMove, OfferMove, OpenSessionRequest
from accord.protocols.arbitrated.policy import PolicyRequest
from accord.protocols.intro.intents import (
    ChatInput,
    IntentInput,
    IntentPatch,
    JoinInput,
    NetworkInput,
)
from accord.protocols.intro.moves import (
    AnswerRequest,
    QuestionsRequest,
    ResumeRequest,
    TurnRequest,
)
from accord.protocols.intro.opportunities import DecisionInput, DiscoverInput, OpenInput
from accord.protocols.rooms.moves import (
    ConfirmRequest,
    JoinRequest,
    ListRequest,
    MoveRequest,
    OpenRequest,
)
from accord.store.database import Database
from accord.store.intents import READS_EVERY_INTENT
from tests.conftest import FakeClock
from tests.sessions.conftest import POLICY

SCHEMA = {"price": {"type": "money", "currency": "EUR"}, "note": {"type": "string"}}
TERMS = {"price": {"amount_minor": 42000, "currency": "EUR"}, "note": "blue"}

# Reading everything is what these are for: `accord check`, listings of a tenant's keys.
READS_EVERYTHING = (
    "FROM alembic_version",
    "sqlite_master",
    "pg_catalog",
    "information_schema",
    "/* migration */",  # a migration reads every row once
    READS_EVERY_INTENT,  # a process builds its discovery index once
)
Recorded = list[tuple[str, Any]]


class _Recording(psycopg.Cursor[Any]):
    recorded: ClassVar[Recorded] = []

    def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
        _Recording.recorded.append((str(query), params))
        return super().execute(query, params, **kwargs)

    def executemany(self, query: Any, params_seq: Any, **kwargs: Any) -> Any:
        seq = list(params_seq)
        _Recording.recorded += [(str(query), p) for p in seq[:1]]
        return super().executemany(query, seq, **kwargs)


@pytest.fixture
def recorded() -> Iterator[Recorded]:
    statements: Recorded = []
    _Recording.recorded = statements

    def on_connect(dbapi: Any, _record: Any) -> None:
        if isinstance(dbapi, sqlite3.Connection):
            dbapi.set_trace_callback(lambda sql: statements.append((sql, None)))
        else:
            dbapi.cursor_factory = _Recording

    event.listen(Engine, "connect", on_connect)
    try:
        yield statements
    finally:
        event.remove(Engine, "connect", on_connect)


def _life(settings: Settings) -> None:
    """A room from open to its signed receipt, and an arbitrated session to its receipt, each
    read every way a seat reads it, then the sweep."""
    clock = FakeClock()
    db = Database(settings.database)
    accord = Accord(settings, clock=clock, db=db)
    try:
        rooms = accord.rooms
        opened = rooms.open(OpenRequest(subject_schema=SCHEMA, subject=TERMS))
        room_id, owner = opened["room"]["room_id"], opened["owner_token"]
        joined = rooms.join(JoinRequest(invite_token=opened["invite"]["token"]))
        approve = MoveRequest(type="approve", subject_hash=commit(TERMS), message_id="a1")
        rooms.move(joined["seat_token"], room_id, approve)  # waits for the owner
        confirmation = rooms.pending(joined["owner_token"], room_id)["confirmations"][0]
        rooms.confirm(
            joined["owner_token"], room_id, confirmation["id"], ConfirmRequest(decision="confirm")
        )
        rooms.move(owner, room_id, approve)
        rooms.move(owner, room_id, approve)  # a retry, answered as first given
        rooms.show(owner, room_id)
        rooms.log(owner, room_id)
        rooms.receipt(owner, room_id)
        accord.events.read(SeatAudience.of(rooms.authorize(owner, room_id)), 0)
        rooms.list_rooms(ListRequest(tokens=[owner, joined["seat_token"]]))
        rooms.open(OpenRequest(subject_schema=SCHEMA))

        made = accord.merchants.create_tenant("plans")
        secret = accord.merchants.authenticate(
            made["keys"]["secret_test"], allow=frozenset({"secret"})
        )
        accord.merchants.put_policy(secret, POLICY["sku"], PolicyRequest.model_validate(POLICY))
        key = made["keys"]["publishable_test"]
        request = OpenSessionRequest.model_validate(
            {"sku": POLICY["sku"], "buyer": {"agent_id": "agent:plans"}}
        )
        session = accord.sessions.open(key, request)
        session_id, token = session["session_id"], session["session_token"]
        offer = OfferMove(type="offer", price_minor=39905, message_id="o1")
        accord.sessions.move(token, session_id, offer)
        accord.sessions.move(token, session_id, offer)  # a retry
        agreed = accord.sessions.move(token, session_id, AcceptMove(type="accept"))
        assert agreed["state"] == "agreed", agreed
        accord.sessions.show(token, session_id)
        accord.sessions.receipt(made["keys"]["secret_test"], session_id)
        accord.sessions.list_sessions(made["keys"]["secret_test"], 20)

        _intents(accord)
        _introduction(accord)

        clock.advance(days=30)
        accord.sweep()
    finally:
        accord.close()
        db.close()


def _intents(accord: Accord) -> None:
    """A principal's intents, their chat and networks, read every way the API reads them."""
    made = accord.principals.create("plans")
    owner = accord.principals.authorize(made["owner_key"], Action.WRITE)
    agent = accord.principals.authorize(made["agent_key"], Action.READ)
    intents = accord.intents
    network = intents.create_network(owner, NetworkInput(name="plans"))
    other = accord.principals.authorize(
        accord.principals.create("joiner")["owner_key"], Action.WRITE
    )
    intents.join_network(other, JoinInput(invite_code=network["invite_code"]))
    intents.join_network(other, JoinInput(invite_code=network["invite_code"]))  # again
    intents.list_networks(agent)
    body = {"statement": "A cellist", "visibility": "network", "networks": [network["network_id"]]}
    intent_id = intents.create(owner, IntentInput.model_validate(body))["intent"]["intent_id"]
    intents.list_own(agent)
    intents.find(agent, intent_id, Action.READ)
    intents.get(agent, intent_id)
    patch = {"statement": "A violist", "networks": [network["network_id"]]}
    intents.patch(owner, intent_id, IntentPatch.model_validate(patch))
    said = intents.post_message(owner, intent_id, ChatInput(message="Saturdays"))["message"]
    intents.post_message(agent, intent_id, ChatInput(message="Noted"))
    intents.messages(agent, intent_id, said["message_id"])
    accord.events.read(PrincipalAudience.of(agent), 0)


def _plans(settings: Settings, statements: Recorded) -> dict[str, str]:
    """The plan of each distinct statement that reads or changes rows."""
    interesting: dict[str, Any] = {}
    for sql, params in statements:
        head = sql.lstrip().split(None, 1)[0].upper() if sql.strip() else ""
        if head not in ("SELECT", "UPDATE", "DELETE") or any(r in sql for r in READS_EVERYTHING):
            continue
        interesting.setdefault(sql, params)
    db = Database(settings.database, apply_migrations=False)
    plans = {}
    try:
        with db.write_engine.connect() as conn:
            raw = conn.connection.dbapi_connection
            assert raw is not None
            cursor = raw.cursor()
            if conn.dialect.name == "postgresql":
                cursor.execute("SET enable_seqscan = off")
            for sql, params in interesting.items():
                if conn.dialect.name == "sqlite":
                    rows = cursor.execute(f"EXPLAIN QUERY PLAN {sql}").fetchall()
                    plans[sql] = "\n".join(str(r[-1]) for r in rows)
                else:
                    cursor.execute(f"EXPLAIN {sql}", params)
                    plans[sql] = "\n".join(str(r[0]) for r in cursor.fetchall())
            conn.rollback()
    finally:
        db.close()
    return plans


def _scans(plan: str) -> list[str]:
    sqlite_scans = re.findall(r"^SCAN (\w+)$", plan, flags=re.MULTILINE)
    postgres_scans = re.findall(r"Seq Scan on (\w+)", plan)
    return sqlite_scans + postgres_scans


def test_every_statement_of_a_negotiations_life_uses_an_index(
    settings: Settings, recorded: Recorded
) -> None:
    _life(settings)
    plans = _plans(settings, recorded)
    assert len(plans) >= 15, f"too few statements were recorded: {list(plans)}"
    scanning = {sql: _scans(plan) for sql, plan in plans.items() if _scans(plan)}
    assert scanning == {}, "\n\n".join(f"{sql}\n  → {plan}" for sql, plan in scanning.items())


def _introduction(accord: Accord) -> None:
    """Two principals from discovery to an introduction, with every read of the negotiation."""
    callers = []
    for name in ("plans-ada", "plans-bob"):
        made = accord.principals.create(name)
        callers.append(
            (
                accord.principals.authorize(made["owner_key"], Action.WRITE),
                accord.principals.authorize(made["agent_key"], Action.READ),
            )
        )
    (ada, ada_agent), (bob, bob_agent) = callers
    intents, opportunities = accord.intents, accord.opportunities
    wants = [
        "A cellist for a string quartet in Lyon on Saturdays",
        "A string quartet in Lyon wants a cellist on Saturdays",
    ]
    ids = [
        intents.create(who, IntentInput(statement=text, visibility="public"))["intent"]["intent_id"]
        for who, text in ((ada, wants[0]), (bob, wants[1]))
    ]
    intents.discover(ada_agent, ids[0], DiscoverInput())
    opened = opportunities.open(ada_agent, ids[0], OpenInput(candidates=[ids[1]]))
    opportunity_id = opened["opportunities"][0]["opportunity_id"]

    def turn(agent: Any, action: str, message: str, count: int) -> None:
        request = TurnRequest(action=action, message=message, expected_turn_count=count)
        opportunities.turn(agent, opportunity_id, request)

    turn(ada_agent, "propose", "Saturdays?", 0)
    turn(bob_agent, "decline", "Not yet.", 1)
    asked = QuestionsRequest.model_validate({"questions": [{"question": "Fee?", "why": "Ask"}]})
    opportunities.ask(bob_agent, opportunity_id, asked)
    question_id = opportunities.questions(bob_agent, opportunity_id)["questions"][0]["question_id"]
    opportunities.answer(bob, opportunity_id, question_id, AnswerRequest(answer="None"))
    intents.post_message(bob, ids[1], ChatInput(message="Sundays too"))
    intents.patch(bob, ids[1], IntentPatch(statement=wants[1] + " or Sundays"))
    opportunities.resume(bob_agent, opportunity_id, ResumeRequest(brief="Sundays"))
    turn(bob_agent, "propose", "Saturdays or Sundays?", 2)
    turn(ada_agent, "accept", "Yes", 3)
    opportunities.get(ada, opportunity_id)
    opportunities.list_seated(ada_agent, None, ids[0])
    opportunities.list_negotiations(bob_agent, "settled", ids[1])
    opportunities.log(ada_agent, opportunity_id)
    opportunities.receipt(bob, opportunity_id)
    opportunities.decide(ada, opportunity_id, DecisionInput(status="accepted"))
    intents.patch(ada, ids[0], IntentPatch(status="archived"))

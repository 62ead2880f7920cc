"""An intent's revisions and chat, networks and memberships are append-only in the database
itself, and an intent is never deleted (DESIGN principle 2), on SQLite and PostgreSQL alike;
an invite code is stored only as its hash."""

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from accord.app.index import IntentIndex
from accord.app.intents import Intents
from accord.app.principals import Action, Principals
from accord.discovery import Ranking
from accord.protocols.intro.intents import ChatInput, IntentInput, NetworkInput
from accord.store.database import Database
from tests.conftest import FakeClock


@pytest.fixture
def invite_code(db: Database, clock: FakeClock) -> str:
    principals = Principals(db, clock=clock)
    owner = principals.authorize(principals.create("ada")["owner_key"], Action.WRITE)
    intents = Intents(db, clock=clock, index=IntentIndex(db, ranking=Ranking.LEXICAL))
    network = intents.create_network(owner, NetworkInput(name="Quartets"))
    body = IntentInput(statement="A cellist", visibility="public")
    intent_id = intents.create(owner, body)["intent"]["intent_id"]
    intents.post_message(owner, intent_id, ChatInput(message="Saturdays"))
    return str(network["invite_code"])


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE intent_revisions SET body = '{}'",
        "DELETE FROM intent_revisions",
        "UPDATE intent_messages SET message = 'changed'",
        "DELETE FROM intent_messages",
        "UPDATE networks SET name = 'changed'",
        "DELETE FROM network_members",
        "DELETE FROM intents",
    ],
)
def test_the_database_refuses_to_rewrite_intent_records(
    db: Database, invite_code: str, statement: str
) -> None:
    with pytest.raises(DBAPIError, match="append-only"), db.write_engine.begin() as conn:
        conn.execute(text(statement))


def test_an_invite_code_is_stored_only_as_its_hash(db: Database, invite_code: str) -> None:
    with db.read_engine.connect() as conn:
        stored = " ".join(str(row) for row in conn.execute(text("SELECT * FROM networks")))
    assert invite_code not in stored
    assert "sha256:" in stored

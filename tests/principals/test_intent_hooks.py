"""What follows an intent is told of its edits and of its owner's messages, in the store's
order, and of nothing else: not a PATCH that changed nothing, not an agent's message, not a
refused call."""

from collections.abc import Sequence
from typing import Any

import pytest
from sqlalchemy import Connection

from accord.app.index import IntentIndex
from accord.app.intents import IntentHooks, Intents
from accord.app.principals import Action, Principals
from accord.core.refusals import Refused
from accord.discovery import MUTUAL_THRESHOLD
from accord.protocols.intro.intents import ChatInput, IntentInput, IntentPatch
from accord.store.database import Database
from accord.store.intents import IntentRow
from tests.conftest import FakeClock
from tests.principals.conftest import Principal


def test_hooks_hear_edits_and_owner_messages_only(
    db: Database, clock: FakeClock, principals: Principals, ada: Principal
) -> None:
    heard: list[tuple[Any, ...]] = []

    def edited(_conn: Connection, row: IntentRow, changed: Sequence[str]) -> None:
        heard.append(("edited", row.id, tuple(changed), row.revision))

    def wrote(_conn: Connection, intent_id: str, message_id: str, message: str) -> None:
        heard.append(("wrote", intent_id, message_id, message))

    intents = Intents(
        db,
        clock=clock,
        index=IntentIndex(db, mutual_threshold=MUTUAL_THRESHOLD),
        hooks=IntentHooks(edited=edited, owner_wrote=wrote),
    )
    owner = principals.authorize(ada.owner_key, Action.WRITE)
    agent = principals.authorize(ada.agent_key, Action.READ)
    body = IntentInput(statement="A cellist", visibility="public")
    intent_id = intents.create(owner, body)["intent"]["intent_id"]

    def patch(**members: Any) -> None:
        intents.patch(owner, intent_id, IntentPatch.model_validate(members))

    patch(statement="A cellist")  # the same value: nothing changed
    patch(statement="A violist", status="paused")
    with pytest.raises(Refused):
        patch(statement=" ")
    intents.post_message(agent, intent_id, ChatInput(message="From the agent"))
    said = intents.post_message(owner, intent_id, ChatInput(message="From me"))["message"]
    patch(status="active")
    assert [h[:3] for h in heard] == [
        ("edited", intent_id, ("statement", "status")),
        ("wrote", intent_id, said["message_id"]),
        ("edited", intent_id, ("status",)),
    ]
    assert heard[1][3] == "From me"
    assert heard[0][3] < heard[2][3]  # the intent as each edit left it, in the store's order

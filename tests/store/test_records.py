"""Records read in one statement where a move needs several answers at once, on both
databases: the locked negotiation row (its state only when the caller's cached version is not
the stored one) and the answer a `message_id` was first given."""

from sqlalchemy import Connection

from accord.core.chain import ChainHead
from accord.store import records
from accord.store.database import Database

NOW = "2026-12-07T00:00:00Z"


def _opened(conn: Connection) -> None:
    records.insert_negotiation(conn, "room_a", "rooms", name=None, now=NOW)
    records.remember(
        conn, "room_a", "opener", "m1", request_hash="sha256:h", status=200, response='{"ok":1}'
    )


def test_lock_remembering_answers_the_row_and_the_first_answer(db: Database) -> None:
    db.write(_opened)

    def ask(negotiation_id: str, party: str, message_id: str) -> tuple[object, object]:
        return db.write(
            lambda conn: records.lock_remembering(conn, negotiation_id, party, message_id)
        )

    row, seen = ask("room_a", "opener", "m1")
    assert row == records.NegotiationRow("room_a", "rooms", -1, None, "", False, "{}")
    assert seen == records.Remembered("sha256:h", 200, '{"ok":1}')
    # Another message_id, or the same one from the other party: the row, nothing remembered.
    assert ask("room_a", "opener", "m2") == (row, None)
    assert ask("room_a", "joiner", "m1") == (row, None)
    assert ask("room_b", "opener", "m1") == (None, None)


def test_the_lock_sends_the_state_only_when_the_cached_version_is_not_the_stored_one(
    db: Database,
) -> None:
    db.write(_opened)
    db.write(
        lambda conn: records.save_projection(
            conn,
            "room_a",
            head=ChainHead(),
            state='{"n":1}',
            version="v1",
            is_final=False,
            expires_at=None,
            now=NOW,
        )
    )

    def state(cached: str | None) -> tuple[str | None, str | None]:
        locked = db.write(lambda conn: records.lock_negotiation(conn, "room_a", cached))
        remembering, _ = db.write(
            lambda conn: records.lock_remembering(conn, "room_a", "opener", "m1", cached)
        )
        assert locked is not None and remembering is not None
        return locked.state, remembering.state

    assert state("v1") == (None, None)
    assert state("v0") == ('{"n":1}', '{"n":1}')
    assert state(None) == ('{"n":1}', '{"n":1}')

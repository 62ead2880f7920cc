"""What a log has seen moves out of the stored state into rows of its own, and the stored state
drops what the log's tail holds: a room's `seen_hashes` become `seen` rows and its last 50
`moves` are re-read from its envelopes. What a move writes no longer grows with the room."""

import json

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"


def upgrade() -> None:
    seen = op.create_table(
        "seen",
        sa.Column(
            "negotiation_id", sa.String(64), sa.ForeignKey("negotiations.id"), primary_key=True
        ),
        sa.Column("seen_key", sa.String(80), primary_key=True),
    )
    conn = op.get_bind()
    rows = conn.execute(
        sa.text("SELECT id, state FROM negotiations WHERE protocol = 'rooms' /* migration */")
    )
    for negotiation_id, text in rows.fetchall():
        state = json.loads(text)
        keys = state.pop("seen_hashes", [])
        state.pop("moves", None)
        if keys:
            op.bulk_insert(seen, [{"negotiation_id": negotiation_id, "seen_key": k} for k in keys])
        conn.execute(
            sa.text("UPDATE negotiations SET state = :state WHERE id = :id"),
            {
                "state": json.dumps(state, separators=(",", ":"), ensure_ascii=False),
                "id": negotiation_id,
            },
        )

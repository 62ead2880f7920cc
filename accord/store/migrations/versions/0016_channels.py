"""Channel bindings: a chat that holds a person's credential (a Telegram chat linked with a link
code), ended by an unlink record, and the events already delivered to it."""

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"

ID = sa.String(64)
TIME = sa.String(32)


def upgrade() -> None:
    op.create_table(
        "channel_bindings",
        sa.Column("id", ID, primary_key=True),
        sa.Column("channel", sa.String(16), nullable=False),
        sa.Column("chat_id", sa.String(32), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("negotiation_id", ID),
        sa.Column("party", sa.String(16)),
        sa.Column("principal_id", ID),
        sa.Column("sealed", sa.Text, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("after", sa.BigInteger, nullable=False),
    )
    op.create_index("channel_bindings_by_chat", "channel_bindings", ["channel", "chat_id"])
    op.create_table(
        "channel_unlinks",
        sa.Column("binding_id", ID, sa.ForeignKey("channel_bindings.id"), primary_key=True),
        sa.Column("ended_at", TIME, nullable=False),
        sa.Column("reason", sa.String(16), nullable=False),
    )
    op.create_table(
        "channel_deliveries",
        sa.Column("binding_id", ID, sa.ForeignKey("channel_bindings.id"), primary_key=True),
        sa.Column("event_id", sa.BigInteger, primary_key=True),
        sa.Column("delivered_at", TIME, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("channel_deliveries")
    op.drop_table("channel_unlinks")
    op.drop_table("channel_bindings")

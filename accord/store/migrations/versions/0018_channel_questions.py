"""Which agent's question each message sent to a chat shows, so that a reply to that message
answers that question."""

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"

ID = sa.String(64)
TIME = sa.String(32)


def upgrade() -> None:
    op.create_table(
        "channel_questions",
        sa.Column("channel", sa.String(16), primary_key=True),
        sa.Column("chat_id", sa.String(32), primary_key=True),
        sa.Column("message_id", sa.BigInteger, primary_key=True),
        sa.Column("binding_id", ID, sa.ForeignKey("channel_bindings.id"), nullable=False),
        sa.Column("opportunity_id", ID, nullable=False),
        sa.Column("question_id", ID, nullable=False),
        sa.Column("sent_at", TIME, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("channel_questions")

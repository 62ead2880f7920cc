"""Link codes: a person's credential handed on once, sealed under a key only the code derives
(interfaces A4)."""

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"

ID = sa.String(64)
TIME = sa.String(32)


def upgrade() -> None:
    op.create_table(
        "links",
        sa.Column("code_hash", sa.String(80), primary_key=True),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("negotiation_id", ID),
        sa.Column("party", sa.String(16)),
        sa.Column("principal_id", ID),
        sa.Column("sealed", sa.Text, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("expires_at", TIME, nullable=False),
        sa.Column("used_at", TIME),
        sa.Column("used_by", sa.String(16)),
    )
    op.create_index("links_by_negotiation", "links", ["negotiation_id"])


def downgrade() -> None:
    op.drop_table("links")

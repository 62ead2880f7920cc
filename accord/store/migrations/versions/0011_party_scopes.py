"""Events for the audience that holds a seat (an intro seat's principal): the scope that holds
each party of a negotiation, and events tied to no negotiation (`negotiation_id` NULL), such as
a principal's own. SQLite changes a column's nullability only by copying the table (batch)."""

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"


def upgrade() -> None:
    op.create_table(
        "party_scopes",
        sa.Column(
            "negotiation_id", sa.String(64), sa.ForeignKey("negotiations.id"), primary_key=True
        ),
        sa.Column("party", sa.String(64), primary_key=True),
        sa.Column("scope", sa.String(128), nullable=False),
    )
    with op.batch_alter_table("events") as batch:
        batch.alter_column("negotiation_id", existing_type=sa.String(64), nullable=True)

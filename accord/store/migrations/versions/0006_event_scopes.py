"""Events name the audience beyond the seats that follows their negotiation (a tenant and mode),
so that a scope's stream reads its own events by index."""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"


def upgrade() -> None:
    op.add_column("events", sa.Column("scope", sa.String(128)))
    op.create_index("events_by_scope", "events", ["scope", "id"])

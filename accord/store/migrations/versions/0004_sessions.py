"""Arbitrated sessions: which tenant and mode each belongs to, for access, and in the order they
were opened (`serial`), for listing."""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    op.create_table(
        "arbitrated_sessions",
        sa.Column(
            "serial",
            sa.BigInteger().with_variant(sa.Integer, "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        sa.Column("session_id", sa.String(64), sa.ForeignKey("negotiations.id"), nullable=False),
        sa.Column("tenant_id", sa.String(64), sa.ForeignKey("tenants.id"), nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("sku", sa.String(256), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_index("arbitrated_sessions_by_id", "arbitrated_sessions", ["session_id"], unique=True)
    op.create_index(
        "arbitrated_sessions_by_tenant", "arbitrated_sessions", ["tenant_id", "mode", "serial"]
    )

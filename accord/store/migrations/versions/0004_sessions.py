"""Arbitrated sessions: which tenant and mode each belongs to, for listing and access."""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"


def upgrade() -> None:
    op.create_table(
        "arbitrated_sessions",
        sa.Column("session_id", sa.String(64), sa.ForeignKey("negotiations.id"), primary_key=True),
        sa.Column("tenant_id", sa.String(64), sa.ForeignKey("tenants.id"), nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("sku", sa.String(256), nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    op.create_index(
        "arbitrated_sessions_by_tenant", "arbitrated_sessions", ["tenant_id", "mode", "created_at"]
    )

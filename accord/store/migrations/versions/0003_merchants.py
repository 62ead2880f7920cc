"""Merchants: tenants, their keys (stored only as hashes) and their policies per mode and SKU.

Written out in full rather than from `tables.metadata`, like 0001.
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"

ID = sa.String(64)
TIME = sa.String(32)


def upgrade() -> None:
    op.create_table(
        "tenants",
        sa.Column("id", ID, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
    )
    op.create_index("tenants_by_name", "tenants", ["name"], unique=True)
    op.create_table(
        "tenant_keys",
        sa.Column("key_hash", sa.String(80), primary_key=True),
        sa.Column("tenant_id", ID, sa.ForeignKey("tenants.id"), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("mode", sa.String(8), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("retired_at", TIME),
    )
    op.create_index("ix_tenant_keys_tenant_id", "tenant_keys", ["tenant_id"])
    op.create_table(
        "policies",
        sa.Column("tenant_id", ID, sa.ForeignKey("tenants.id"), primary_key=True),
        sa.Column("mode", sa.String(8), primary_key=True),
        sa.Column("sku", sa.String(256), primary_key=True),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
    )

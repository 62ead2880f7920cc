"""Webhooks (docs/webhooks.md): endpoints with their audience and cursor, secrets appended by
rotation, the outbox of deliveries and the log of their attempts."""

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"

ID = sa.String(64)
TIME = sa.String(32)


def upgrade() -> None:
    op.create_table(
        "webhook_endpoints",
        sa.Column("id", ID, primary_key=True),
        sa.Column("scope", sa.String(200), nullable=False),
        sa.Column("audience", sa.Text, nullable=False),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("event_types", sa.Text),
        sa.Column("description", sa.Text),
        sa.Column("signature", sa.String(8), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("disabled_reason", sa.String(32)),
        sa.Column("cursor", sa.BigInteger, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
        sa.Column("last_success_at", TIME),
        sa.Column("failing_since", TIME),
    )
    op.create_index("webhook_endpoints_by_scope", "webhook_endpoints", ["scope"])
    op.create_table(
        "webhook_secrets",
        sa.Column("endpoint_id", ID, sa.ForeignKey("webhook_endpoints.id"), primary_key=True),
        sa.Column("position", sa.Integer, primary_key=True),
        sa.Column("secret", sa.Text, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("overlap_seconds", sa.Integer, nullable=False),
    )
    op.create_table(
        "webhook_deliveries",
        sa.Column("endpoint_id", ID, sa.ForeignKey("webhook_endpoints.id"), primary_key=True),
        sa.Column("event_id", sa.String(64), primary_key=True),
        sa.Column("event_type", sa.String(120), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("due_at", sa.BigInteger),
        sa.Column("created_at", TIME, nullable=False),
    )
    op.create_index("webhook_deliveries_due", "webhook_deliveries", ["status", "due_at"])
    op.create_table(
        "webhook_attempts",
        sa.Column("endpoint_id", ID, primary_key=True),
        sa.Column("event_id", sa.String(64), primary_key=True),
        sa.Column("attempt", sa.Integer, primary_key=True),
        sa.Column("attempted_at", TIME, nullable=False),
        sa.Column("status_code", sa.Integer),
        sa.Column("error", sa.String(200)),
        sa.Column("duration_ms", sa.Integer, nullable=False),
        sa.Column("next_attempt_at", TIME),
    )
    if op.get_bind().dialect.name == "sqlite":
        for table in ("webhook_secrets", "webhook_attempts"):
            for action in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
                )
    else:
        for table in ("webhook_secrets", "webhook_attempts"):
            op.execute(
                f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE "
                f"ON {table} FOR EACH ROW EXECUTE FUNCTION accord_append_only()"
            )


def downgrade() -> None:
    for table in ("webhook_attempts", "webhook_deliveries", "webhook_secrets", "webhook_endpoints"):
        op.drop_table(table)

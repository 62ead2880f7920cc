"""Receipts: a signed receipt is stored once, when the agreement is made, and never changes."""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"


def upgrade() -> None:
    op.create_table(
        "receipts",
        sa.Column(
            "negotiation_id", sa.String(64), sa.ForeignKey("negotiations.id"), primary_key=True
        ),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("created_at", sa.String(32), nullable=False),
    )
    if op.get_bind().dialect.name == "sqlite":
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER receipts_no_{action.lower()} BEFORE {action} ON receipts "
                "BEGIN SELECT RAISE(ABORT, 'receipts is append-only'); END"
            )
        return
    op.execute(
        "CREATE TRIGGER receipts_append_only BEFORE UPDATE OR DELETE ON receipts "
        "FOR EACH ROW EXECUTE FUNCTION accord_append_only()"
    )
    op.execute(
        "CREATE TRIGGER receipts_no_truncate BEFORE TRUNCATE ON receipts "
        "FOR EACH STATEMENT EXECUTE FUNCTION accord_append_only()"
    )

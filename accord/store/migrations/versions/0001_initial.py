"""The first schema: negotiations, logs, private records, credentials, idempotency, events.

Written out in full rather than from `tables.metadata`, so that later revisions of the tables
never change what this migration did; tests/store compares the migrated schema to the tables.
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None

ID = sa.String(64)
TIME = sa.String(32)
APPEND_ONLY = ("envelopes", "private_records")


def upgrade() -> None:
    op.create_table(
        "negotiations",
        sa.Column("id", ID, primary_key=True),
        sa.Column("protocol", sa.String(32), nullable=False),
        sa.Column("name", sa.String(200)),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("head_hash", sa.String(80)),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("version", sa.String(32), nullable=False),
        sa.Column("is_final", sa.Boolean, nullable=False),
        sa.Column("expires_at", TIME),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
    )
    op.create_index(
        "negotiations_live_name",
        "negotiations",
        ["name"],
        unique=True,
        sqlite_where=sa.text("NOT is_final"),
        postgresql_where=sa.text("NOT is_final"),
    )
    op.create_index(
        "negotiations_due",
        "negotiations",
        ["expires_at"],
        sqlite_where=sa.text("NOT is_final"),
        postgresql_where=sa.text("NOT is_final"),
    )
    op.create_table(
        "envelopes",
        sa.Column("negotiation_id", ID, sa.ForeignKey("negotiations.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
    )
    op.create_table(
        "private_records",
        sa.Column("negotiation_id", ID, sa.ForeignKey("negotiations.id"), primary_key=True),
        sa.Column("party", sa.String(64), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("type", sa.String(64), nullable=False),
        sa.Column("body", sa.Text, nullable=False),
    )
    op.create_table(
        "credentials",
        sa.Column("token_hash", sa.String(80), primary_key=True),
        sa.Column("negotiation_id", ID, sa.ForeignKey("negotiations.id"), nullable=False),
        sa.Column("party", sa.String(64), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
    )
    op.create_index("ix_credentials_negotiation_id", "credentials", ["negotiation_id"])
    op.create_table(
        "idempotency",
        sa.Column("negotiation_id", ID, sa.ForeignKey("negotiations.id"), primary_key=True),
        sa.Column("party", sa.String(64), primary_key=True),
        sa.Column("message_id", sa.String(128), primary_key=True),
        sa.Column("request_hash", sa.String(80), nullable=False),
        sa.Column("status", sa.Integer, nullable=False),
        sa.Column("response", sa.Text, nullable=False),
    )
    op.create_table(
        "events",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer, "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        sa.Column("negotiation_id", ID, sa.ForeignKey("negotiations.id"), nullable=False),
        sa.Column("party", sa.String(64)),
        sa.Column("owner_only", sa.Boolean, nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("data", sa.Text, nullable=False),
    )
    op.create_index("events_by_negotiation", "events", ["negotiation_id", "id"])
    _append_only(op.get_bind().dialect.name)


def _append_only(dialect: str) -> None:
    """DESIGN principle 2: the database itself refuses to change or delete a record."""
    if dialect == "sqlite":
        for table in APPEND_ONLY:
            for action in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
                )
        return
    op.execute(
        "CREATE FUNCTION accord_append_only() RETURNS trigger LANGUAGE plpgsql AS $$ "
        "BEGIN RAISE EXCEPTION '% is append-only', TG_TABLE_NAME; END $$"
    )
    for table in APPEND_ONLY:
        op.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION accord_append_only()"
        )
        op.execute(
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION accord_append_only()"
        )

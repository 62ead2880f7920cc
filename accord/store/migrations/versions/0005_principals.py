"""Principals: people and organisations, their owner and agent keys (stored only as hashes) and
the agents they selected.

Written out in full rather than from `tables.metadata`, like 0001. Principals and selections are
append-only in the database itself; a key row may only be retired, once, and never deleted
(DESIGN principle 2: a new key for an agent id replaces the old one by retiring it).
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"

ID = sa.String(64)
TIME = sa.String(32)
APPEND_ONLY = ("principals", "agent_selections")
KEY_COLUMNS = ("key_hash", "principal_id", "level", "agent_id", "created_at")


def upgrade() -> None:
    op.create_table(
        "principals",
        sa.Column("id", ID, primary_key=True),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
    )
    op.create_index("principals_by_name", "principals", ["name"], unique=True)
    op.create_table(
        "principal_keys",
        sa.Column("key_hash", sa.String(80), primary_key=True),
        sa.Column("principal_id", ID, sa.ForeignKey("principals.id"), nullable=False),
        sa.Column("level", sa.String(8), nullable=False),
        sa.Column("agent_id", sa.String(64)),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("retired_at", TIME),
    )
    # One current key per agent id: two replacements at once cannot both stay current.
    op.create_index(
        "principal_keys_current",
        "principal_keys",
        ["principal_id", "agent_id"],
        unique=True,
        sqlite_where=sa.text("retired_at IS NULL"),
        postgresql_where=sa.text("retired_at IS NULL"),
    )
    op.create_table(
        "agent_selections",
        sa.Column(
            "serial",
            sa.BigInteger().with_variant(sa.Integer, "sqlite"),
            primary_key=True,
            autoincrement=True,
        ),
        sa.Column("principal_id", ID, sa.ForeignKey("principals.id"), nullable=False),
        sa.Column("agent_id", sa.String(64), nullable=False),
        sa.Column("selected_at", TIME, nullable=False),
    )
    op.create_index("agent_selections_by_principal", "agent_selections", ["principal_id", "serial"])
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_guards()
    else:
        _postgresql_guards()


def _sqlite_guards() -> None:
    for table in APPEND_ONLY:
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
            )
    op.execute(
        "CREATE TRIGGER principal_keys_no_delete BEFORE DELETE ON principal_keys "
        "BEGIN SELECT RAISE(ABORT, 'principal_keys is append-only'); END"
    )
    changed = " OR ".join(f"NEW.{column} IS NOT OLD.{column}" for column in KEY_COLUMNS)
    op.execute(
        "CREATE TRIGGER principal_keys_retire_only BEFORE UPDATE ON principal_keys "
        f"WHEN OLD.retired_at IS NOT NULL OR NEW.retired_at IS NULL OR {changed} "
        "BEGIN SELECT RAISE(ABORT, 'principal_keys is append-only: a key may only be retired'); "
        "END"
    )


def _postgresql_guards() -> None:
    for table in (*APPEND_ONLY, "principal_keys"):
        op.execute(
            f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
            "FOR EACH STATEMENT EXECUTE FUNCTION accord_append_only()"
        )
    for table in APPEND_ONLY:
        op.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION accord_append_only()"
        )
    op.execute(
        "CREATE TRIGGER principal_keys_no_delete BEFORE DELETE ON principal_keys "
        "FOR EACH ROW EXECUTE FUNCTION accord_append_only()"
    )
    old, new = (", ".join(f"{row}.{column}" for column in KEY_COLUMNS) for row in ("OLD", "NEW"))
    op.execute(
        "CREATE FUNCTION accord_retire_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        f"IF OLD.retired_at IS NOT NULL OR NEW.retired_at IS NULL OR ({new}) IS DISTINCT FROM "
        f"({old}) THEN RAISE EXCEPTION '% is append-only: a key may only be retired', "
        "TG_TABLE_NAME; END IF; RETURN NEW; END $$"
    )
    op.execute(
        "CREATE TRIGGER principal_keys_retire_only BEFORE UPDATE ON principal_keys "
        "FOR EACH ROW EXECUTE FUNCTION accord_retire_only()"
    )

"""Intents, their revisions and chat, networks and their members (spec/intro-api.md, Intents).

Written out in full, like 0005. `intents` holds each intent's current members (a projection of
its revisions, so it may be updated, never deleted); revisions, chat messages, networks and
memberships are append-only in the database itself (DESIGN principle 2).
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"

ID = sa.String(64)
TIME = sa.String(32)
SERIAL = sa.BigInteger().with_variant(sa.Integer, "sqlite")
APPEND_ONLY = ("intent_revisions", "intent_messages", "networks", "network_members")


def _serial() -> sa.Column[int]:
    return sa.Column("serial", SERIAL, primary_key=True, autoincrement=True)


def upgrade() -> None:
    op.create_table(
        "intents",
        _serial(),
        sa.Column("id", ID, nullable=False),
        sa.Column("principal_id", ID, sa.ForeignKey("principals.id"), nullable=False),
        sa.Column("statement", sa.Text, nullable=False),
        sa.Column("constraints", sa.Text, nullable=False),
        sa.Column("identity", sa.Text, nullable=False),
        sa.Column("visibility", sa.String(16), nullable=False),
        sa.Column("networks", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("revision", sa.BigInteger, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
    )
    op.create_index("intents_by_id", "intents", ["id"], unique=True)
    op.create_index("intents_by_principal", "intents", ["principal_id", "serial"])
    op.create_table(
        "intent_revisions",
        _serial(),
        sa.Column("intent_id", ID, sa.ForeignKey("intents.id"), nullable=False),
        sa.Column("changed", sa.Text, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("recorded_at", TIME, nullable=False),
    )
    op.create_index("intent_revisions_by_intent", "intent_revisions", ["intent_id", "serial"])
    op.create_table(
        "intent_messages",
        _serial(),
        sa.Column("message_id", ID, nullable=False),
        sa.Column("intent_id", ID, sa.ForeignKey("intents.id"), nullable=False),
        sa.Column("author", sa.String(8), nullable=False),
        sa.Column("agent_id", sa.String(64)),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
    )
    op.create_index("intent_messages_by_id", "intent_messages", ["message_id"], unique=True)
    op.create_index("intent_messages_by_intent", "intent_messages", ["intent_id", "serial"])
    op.create_table(
        "networks",
        sa.Column("id", ID, primary_key=True),
        sa.Column("name", sa.String(200), nullable=False),
        sa.Column("invite_hash", sa.String(80), nullable=False),
        sa.Column("created_by", ID, sa.ForeignKey("principals.id"), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
    )
    op.create_index("networks_by_invite", "networks", ["invite_hash"], unique=True)
    op.create_table(
        "network_members",
        _serial(),
        sa.Column("network_id", ID, sa.ForeignKey("networks.id"), nullable=False),
        sa.Column("principal_id", ID, sa.ForeignKey("principals.id"), nullable=False),
        sa.Column("joined_at", TIME, nullable=False),
    )
    op.create_index(
        "network_members_by_principal",
        "network_members",
        ["principal_id", "network_id"],
        unique=True,
    )
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
        "CREATE TRIGGER intents_no_delete BEFORE DELETE ON intents "
        "BEGIN SELECT RAISE(ABORT, 'intents is append-only'); END"
    )


def _postgresql_guards() -> None:
    for table in (*APPEND_ONLY, "intents"):
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
        "CREATE TRIGGER intents_no_delete BEFORE DELETE ON intents "
        "FOR EACH ROW EXECUTE FUNCTION accord_append_only()"
    )

"""Opportunities (spec/intro-api.md, Opportunities): one per unordered pair of intents, ever.

Written out in full, like 0008. The pair is kept ordered (`intent_low` < `intent_high`) under a
unique index, so that opening it again from either side finds the one row; a row is updated
(its status and the two people's decisions), never deleted.
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"

ID = sa.String(64)
TIME = sa.String(32)
SERIAL = sa.BigInteger().with_variant(sa.Integer, "sqlite")


def upgrade() -> None:
    op.create_table(
        "opportunities",
        sa.Column("serial", SERIAL, primary_key=True, autoincrement=True),
        sa.Column("id", ID, nullable=False),
        sa.Column("intent_low", ID, nullable=False),
        sa.Column("intent_high", ID, nullable=False),
        sa.Column("initiator_intent_id", ID, sa.ForeignKey("intents.id"), nullable=False),
        sa.Column("responder_intent_id", ID, sa.ForeignKey("intents.id"), nullable=False),
        sa.Column("initiator_principal_id", ID, sa.ForeignKey("principals.id"), nullable=False),
        sa.Column("responder_principal_id", ID, sa.ForeignKey("principals.id"), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("initiator_decision", sa.String(16)),
        sa.Column("responder_decision", sa.String(16)),
        sa.Column("context", sa.Text),
        sa.Column("negotiation_id", ID, sa.ForeignKey("negotiations.id"), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
    )
    op.create_index("opportunities_by_id", "opportunities", ["id"], unique=True)
    op.create_index(
        "opportunities_by_pair", "opportunities", ["intent_low", "intent_high"], unique=True
    )
    op.create_index(
        "opportunities_by_initiator", "opportunities", ["initiator_principal_id", "serial"]
    )
    op.create_index(
        "opportunities_by_responder", "opportunities", ["responder_principal_id", "serial"]
    )
    if op.get_bind().dialect.name == "sqlite":
        op.execute(
            "CREATE TRIGGER opportunities_no_delete BEFORE DELETE ON opportunities "
            "BEGIN SELECT RAISE(ABORT, 'opportunities is append-only'); END"
        )
    else:
        op.execute(
            "CREATE TRIGGER opportunities_no_delete BEFORE DELETE ON opportunities "
            "FOR EACH ROW EXECUTE FUNCTION accord_append_only()"
        )
        op.execute(
            "CREATE TRIGGER opportunities_no_truncate BEFORE TRUNCATE ON opportunities "
            "FOR EACH STATEMENT EXECUTE FUNCTION accord_append_only()"
        )

"""Adviser skills, held patches and linked tables (spec/adviser-api.md, Skills, Red team, Linked
tables). A principal's registered skills are replaced by a new declaration, never deleted; a
red-team patch held under its finding is kept as it was held (whether it is still waiting is the
finding's reconciliation, in the state); a link keeps the seat it binds and how far into the
table's log the case has read, never the credential."""

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"

ID = sa.String(64)
TIME = sa.String(32)


def upgrade() -> None:
    op.create_table(
        "adviser_skills",
        sa.Column("principal_id", ID, sa.ForeignKey("principals.id"), primary_key=True),
        sa.Column("skill_id", ID, primary_key=True),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
    )
    op.create_table(
        "adviser_held",
        sa.Column("case_id", ID, sa.ForeignKey("adviser_cases.id"), primary_key=True),
        sa.Column("position", sa.Integer, primary_key=True),
        sa.Column("finding_id", ID, nullable=False),
        sa.Column("skill_id", ID, nullable=False),
        sa.Column("held_at", sa.BigInteger, nullable=False),
        sa.Column("patch", sa.Text, nullable=False),
    )
    op.create_table(
        "adviser_links",
        sa.Column("id", ID, primary_key=True),
        sa.Column("case_id", ID, sa.ForeignKey("adviser_cases.id"), nullable=False),
        sa.Column("protocol", sa.String(16), nullable=False),
        sa.Column("negotiation_id", ID, nullable=False),
        sa.Column("seat", sa.String(16), nullable=False),
        sa.Column("through_seq", sa.BigInteger, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
    )
    op.create_index("adviser_links_by_case", "adviser_links", ["case_id"])
    op.create_index(
        "adviser_links_by_seat", "adviser_links", ["protocol", "negotiation_id", "seat"]
    )
    if op.get_bind().dialect.name == "sqlite":
        for table in ("adviser_held",):
            for action in ("UPDATE", "DELETE"):
                op.execute(
                    f"CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table} "
                    f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
                )
        for table in ("adviser_skills", "adviser_links"):
            op.execute(
                f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} "
                f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
            )
    else:
        op.execute(
            "CREATE TRIGGER adviser_held_append_only BEFORE UPDATE OR DELETE "
            "ON adviser_held FOR EACH ROW EXECUTE FUNCTION accord_append_only()"
        )
        for table in ("adviser_skills", "adviser_held", "adviser_links"):
            op.execute(
                f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION accord_append_only()"
            )
        for table in ("adviser_skills", "adviser_links"):
            op.execute(
                f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION accord_append_only()"
            )

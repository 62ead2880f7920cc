"""Adviser cases, their versions and material changes (spec/adviser-api.md). `adviser_cases`
holds each case's current bookkeeping (a projection of its versions, updated, never deleted);
every version's whole state is kept, append-only in the database itself; a material change is
written once and later only marked seen; a question is kept with its status (open, answered,
obsolete), never deleted."""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"

ID = sa.String(64)
TIME = sa.String(32)


def upgrade() -> None:
    op.create_table(
        "adviser_cases",
        sa.Column("id", ID, primary_key=True),
        sa.Column("principal_id", ID, sa.ForeignKey("principals.id"), nullable=False),
        sa.Column("title", sa.String(200), nullable=False),
        sa.Column("description", sa.Text),
        sa.Column("state_version", sa.BigInteger, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("lifecycle_stage", sa.String(32), nullable=False),
        sa.Column("depth_given", sa.Boolean, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
    )
    op.create_index("adviser_cases_by_principal", "adviser_cases", ["principal_id", "updated_at"])
    op.create_table(
        "adviser_versions",
        sa.Column("case_id", ID, sa.ForeignKey("adviser_cases.id"), primary_key=True),
        sa.Column("version", sa.BigInteger, primary_key=True),
        sa.Column("state", sa.Text, nullable=False),
        sa.Column("recorded_at", TIME, nullable=False),
    )
    op.create_table(
        "adviser_changes",
        sa.Column("id", ID, primary_key=True),
        sa.Column("case_id", ID, sa.ForeignKey("adviser_cases.id"), nullable=False),
        sa.Column("state_version", sa.BigInteger, nullable=False),
        sa.Column("fields", sa.Text, nullable=False),
        sa.Column("summary", sa.Text, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("seen_at", TIME),
    )
    op.create_index("adviser_changes_by_case", "adviser_changes", ["case_id", "state_version"])
    op.create_table(
        "adviser_questions",
        sa.Column("case_id", ID, sa.ForeignKey("adviser_cases.id"), primary_key=True),
        sa.Column("question_id", ID, primary_key=True),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("updated_at", TIME, nullable=False),
    )
    if op.get_bind().dialect.name == "sqlite":
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER adviser_versions_no_{action.lower()} BEFORE {action} "
                "ON adviser_versions "
                "BEGIN SELECT RAISE(ABORT, 'adviser_versions is append-only'); END"
            )
        for table in ("adviser_cases", "adviser_changes", "adviser_questions"):
            op.execute(
                f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} "
                f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END"
            )
    else:
        op.execute(
            "CREATE TRIGGER adviser_versions_append_only BEFORE UPDATE OR DELETE "
            "ON adviser_versions FOR EACH ROW EXECUTE FUNCTION accord_append_only()"
        )
        for table in ("adviser_versions", "adviser_cases", "adviser_changes", "adviser_questions"):
            op.execute(
                f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                "FOR EACH STATEMENT EXECUTE FUNCTION accord_append_only()"
            )
        for table in ("adviser_cases", "adviser_changes", "adviser_questions"):
            op.execute(
                f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} "
                "FOR EACH ROW EXECUTE FUNCTION accord_append_only()"
            )

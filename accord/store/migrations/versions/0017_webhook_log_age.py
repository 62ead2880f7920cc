"""The webhook log is kept for the retention period: deliveries are found by age, and a
delivery's attempts may be deleted once the delivery itself is gone (pruned whole), never
while it stands (its log is still append-only)."""

from alembic import op

revision = "0017"
down_revision = "0016"

WHILE_IT_STANDS = (
    "EXISTS (SELECT 1 FROM webhook_deliveries d "
    "WHERE d.endpoint_id = OLD.endpoint_id AND d.event_id = OLD.event_id)"
)


def upgrade() -> None:
    op.create_index("webhook_deliveries_by_age", "webhook_deliveries", ["created_at"])
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER webhook_attempts_no_delete")
        op.execute(
            "CREATE TRIGGER webhook_attempts_no_delete BEFORE DELETE ON webhook_attempts "
            f"WHEN {WHILE_IT_STANDS} "
            "BEGIN SELECT RAISE(ABORT, 'webhook_attempts is append-only'); END"
        )
        return
    op.execute("DROP TRIGGER webhook_attempts_append_only ON webhook_attempts")
    op.execute(
        "CREATE TRIGGER webhook_attempts_append_only BEFORE UPDATE ON webhook_attempts "
        "FOR EACH ROW EXECUTE FUNCTION accord_append_only()"
    )
    op.execute(
        "CREATE FUNCTION accord_webhook_attempt_pruned() RETURNS trigger LANGUAGE plpgsql AS $$ "
        f"BEGIN IF {WHILE_IT_STANDS} THEN "
        "RAISE EXCEPTION 'webhook_attempts is append-only'; END IF; RETURN OLD; END $$"
    )
    op.execute(
        "CREATE TRIGGER webhook_attempts_pruned_only BEFORE DELETE ON webhook_attempts "
        "FOR EACH ROW EXECUTE FUNCTION accord_webhook_attempt_pruned()"
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER webhook_attempts_no_delete")
        op.execute(
            "CREATE TRIGGER webhook_attempts_no_delete BEFORE DELETE ON webhook_attempts "
            "BEGIN SELECT RAISE(ABORT, 'webhook_attempts is append-only'); END"
        )
    else:
        op.execute("DROP TRIGGER webhook_attempts_pruned_only ON webhook_attempts")
        op.execute("DROP FUNCTION accord_webhook_attempt_pruned()")
        op.execute("DROP TRIGGER webhook_attempts_append_only ON webhook_attempts")
        op.execute(
            "CREATE TRIGGER webhook_attempts_append_only BEFORE UPDATE OR DELETE "
            "ON webhook_attempts FOR EACH ROW EXECUTE FUNCTION accord_append_only()"
        )
    op.drop_index("webhook_deliveries_by_age", "webhook_deliveries")

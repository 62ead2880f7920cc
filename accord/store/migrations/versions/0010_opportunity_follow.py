"""What follows an opportunity after it opens: when it became `pending` (it expires
`--pending-ttl` later), and its intents' opportunities found from either intent (an edit, a
chat message or an archive reaches every negotiation of the intent); intents found by their
latest revision (each process's discovery index reads what others revised since)."""

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"

TIME = sa.String(32)


def upgrade() -> None:
    op.add_column("opportunities", sa.Column("pending_since", TIME))
    op.create_index("opportunities_pending", "opportunities", ["status", "pending_since"])
    op.create_index("opportunities_by_initiator_intent", "opportunities", ["initiator_intent_id"])
    op.create_index("opportunities_by_responder_intent", "opportunities", ["responder_intent_id"])
    op.create_index("intents_by_revision", "intents", ["revision"])

"""The schema. Logs and private records are append-only (the database refuses updates and
deletes); `negotiations.state` is a projection that `accord check` rebuilds from them."""

from typing import Final

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    text,
)

metadata = MetaData()

LIVE: Final = "NOT is_final"
"""The predicate of the partial indexes over negotiations that are not final. A query meant to
use one must say exactly this (`is_final IS 0` or `= false` match no index)."""

ID = String(64)
TIME = String(32)

negotiations = Table(
    "negotiations",
    metadata,
    Column("id", ID, primary_key=True),
    Column("protocol", String(32), nullable=False),
    Column("name", String(200)),
    Column("seq", Integer, nullable=False),
    Column("head_hash", String(80)),
    Column("state", Text, nullable=False),
    Column("version", String(32), nullable=False),
    Column("is_final", Boolean, nullable=False),
    Column("expires_at", TIME),
    Column("created_at", TIME, nullable=False),
    Column("updated_at", TIME, nullable=False),
    Index(
        "negotiations_live_name",
        "name",
        unique=True,
        sqlite_where=text(LIVE),
        postgresql_where=text(LIVE),
    ),
    Index(
        "negotiations_due",
        "expires_at",
        sqlite_where=text(LIVE),
        postgresql_where=text(LIVE),
    ),
)

envelopes = Table(
    "envelopes",
    metadata,
    Column("negotiation_id", ID, ForeignKey("negotiations.id"), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("type", String(64), nullable=False),
    Column("body", Text, nullable=False),
)

private_records = Table(
    "private_records",
    metadata,
    Column("negotiation_id", ID, ForeignKey("negotiations.id"), primary_key=True),
    Column("party", String(64), primary_key=True),
    Column("seq", Integer, primary_key=True),
    Column("type", String(64), nullable=False),
    Column("body", Text, nullable=False),
)

# What a negotiation's log has seen (`accord.core.protocol.Seen`): one row per key, beside the
# state rather than in it, so that a move writes what it adds and the state keeps its size.
seen = Table(
    "seen",
    metadata,
    Column("negotiation_id", ID, ForeignKey("negotiations.id"), primary_key=True),
    Column("seen_key", String(80), primary_key=True),
)

credentials = Table(
    "credentials",
    metadata,
    Column("token_hash", String(80), primary_key=True),
    Column("negotiation_id", ID, ForeignKey("negotiations.id"), nullable=False, index=True),
    Column("party", String(64), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("created_at", TIME, nullable=False),
)

idempotency = Table(
    "idempotency",
    metadata,
    Column("negotiation_id", ID, ForeignKey("negotiations.id"), primary_key=True),
    Column("party", String(64), primary_key=True),
    Column("message_id", String(128), primary_key=True),
    Column("request_hash", String(80), nullable=False),
    Column("status", Integer, nullable=False),
    Column("response", Text, nullable=False),
)

events = Table(
    "events",
    metadata,
    Column(
        "id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    # NULL for an event of an audience's own, tied to no negotiation (a principal's chat).
    Column("negotiation_id", ID, ForeignKey("negotiations.id")),
    Column("party", String(64)),
    Column("owner_only", Boolean, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("data", Text, nullable=False),
    # An audience beyond the negotiation's seats that follows it, such as a tenant and mode
    # ("tenant:ten_…:test"); NULL when only the seats follow it.
    Column("scope", String(128)),
    Index("events_by_negotiation", "negotiation_id", "id"),
    Index("events_by_scope", "scope", "id"),
)

# The audience that holds a party of a negotiation (an intro seat's principal:
# "principal:prn_…"), fixed when the negotiation is opened: what is addressed to the party is
# that audience's too, in any of its negotiations.
party_scopes = Table(
    "party_scopes",
    metadata,
    Column("negotiation_id", ID, ForeignKey("negotiations.id"), primary_key=True),
    Column("party", String(64), primary_key=True),
    Column("scope", String(128), nullable=False),
)

receipts = Table(
    "receipts",
    metadata,
    Column("negotiation_id", ID, ForeignKey("negotiations.id"), primary_key=True),
    Column("body", Text, nullable=False),
    Column("created_at", TIME, nullable=False),
)

# Merchants (spec/arbitrated-rest.md, Tenants and keys): a tenant, its keys (stored only as
# hashes; a retired key opens nothing), and its policies per mode and SKU. Policies are the
# merchant's current configuration, replaced by each PUT; a session keeps what it used in its
# own log.
tenants = Table(
    "tenants",
    metadata,
    Column("id", ID, primary_key=True),
    Column("name", String(64), nullable=False),
    Column("created_at", TIME, nullable=False),
    Index("tenants_by_name", "name", unique=True),
)

tenant_keys = Table(
    "tenant_keys",
    metadata,
    Column("key_hash", String(80), primary_key=True),
    Column("tenant_id", ID, ForeignKey("tenants.id"), nullable=False, index=True),
    Column("kind", String(16), nullable=False),
    Column("mode", String(8), nullable=False),
    Column("created_at", TIME, nullable=False),
    Column("retired_at", TIME),
)

policies = Table(
    "policies",
    metadata,
    Column("tenant_id", ID, ForeignKey("tenants.id"), primary_key=True),
    Column("mode", String(8), primary_key=True),
    Column("sku", String(256), primary_key=True),
    Column("body", Text, nullable=False),
    Column("updated_at", TIME, nullable=False),
)

arbitrated_sessions = Table(
    "arbitrated_sessions",
    metadata,
    Column(
        "serial", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    Column("session_id", ID, ForeignKey("negotiations.id"), nullable=False),
    Column("tenant_id", ID, ForeignKey("tenants.id"), nullable=False),
    Column("mode", String(8), nullable=False),
    Column("sku", String(256), nullable=False),
    Column("created_at", TIME, nullable=False),
    Index("arbitrated_sessions_by_id", "session_id", unique=True),
    Index("arbitrated_sessions_by_tenant", "tenant_id", "mode", "serial"),
)

# Principals (spec/intro-api.md, Principals and keys): a person or an organisation, its keys
# (stored only as hashes: the owner key, and one current key per agent id, which a new key for
# that id retires, never deletes), and the agents it selected, the latest being the one that
# negotiates. The database refuses to change a principal or a selection, or a key other than by
# retiring it (migration 0005).
principals = Table(
    "principals",
    metadata,
    Column("id", ID, primary_key=True),
    Column("name", String(64), nullable=False),
    Column("created_at", TIME, nullable=False),
    Index("principals_by_name", "name", unique=True),
)

principal_keys = Table(
    "principal_keys",
    metadata,
    Column("key_hash", String(80), primary_key=True),
    Column("principal_id", ID, ForeignKey("principals.id"), nullable=False),
    Column("level", String(8), nullable=False),
    Column("agent_id", String(64)),
    Column("created_at", TIME, nullable=False),
    Column("retired_at", TIME),
    Index(
        "principal_keys_current",
        "principal_id",
        "agent_id",
        unique=True,
        sqlite_where=text("retired_at IS NULL"),
        postgresql_where=text("retired_at IS NULL"),
    ),
)

agent_selections = Table(
    "agent_selections",
    metadata,
    Column(
        "serial", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    Column("principal_id", ID, ForeignKey("principals.id"), nullable=False),
    Column("agent_id", String(64), nullable=False),
    Column("selected_at", TIME, nullable=False),
    Index("agent_selections_by_principal", "principal_id", "serial"),
)

# Intents (spec/intro-api.md, Intents): what a principal wants, in the order they were posted
# (`serial`). The `intents` row holds the current members, a projection of its revisions: each
# creation and each PATCH that changed something appends one, and `revision` is the `serial` of
# the latest, the store's order of edits. Revisions, chat messages, networks and memberships are
# append-only in the database itself (migration 0008); an invite code is stored only as a hash.
intents = Table(
    "intents",
    metadata,
    Column(
        "serial", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    Column("id", ID, nullable=False),
    Column("principal_id", ID, ForeignKey("principals.id"), nullable=False),
    Column("statement", Text, nullable=False),
    Column("constraints", Text, nullable=False),
    Column("identity", Text, nullable=False),
    Column("visibility", String(16), nullable=False),
    Column("networks", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("revision", BigInteger, nullable=False),
    Column("created_at", TIME, nullable=False),
    Column("updated_at", TIME, nullable=False),
    Index("intents_by_id", "id", unique=True),
    Index("intents_by_principal", "principal_id", "serial"),
    Index("intents_by_revision", "revision"),
)

intent_revisions = Table(
    "intent_revisions",
    metadata,
    Column(
        "serial", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    Column("intent_id", ID, ForeignKey("intents.id"), nullable=False),
    Column("changed", Text, nullable=False),
    Column("body", Text, nullable=False),
    Column("recorded_at", TIME, nullable=False),
    Index("intent_revisions_by_intent", "intent_id", "serial"),
)

intent_messages = Table(
    "intent_messages",
    metadata,
    Column(
        "serial", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    Column("message_id", ID, nullable=False),
    Column("intent_id", ID, ForeignKey("intents.id"), nullable=False),
    Column("author", String(8), nullable=False),
    Column("agent_id", String(64)),
    Column("message", Text, nullable=False),
    Column("created_at", TIME, nullable=False),
    Index("intent_messages_by_id", "message_id", unique=True),
    Index("intent_messages_by_intent", "intent_id", "serial"),
)

networks = Table(
    "networks",
    metadata,
    Column("id", ID, primary_key=True),
    Column("name", String(200), nullable=False),
    Column("invite_hash", String(80), nullable=False),
    Column("created_by", ID, ForeignKey("principals.id"), nullable=False),
    Column("created_at", TIME, nullable=False),
    Index("networks_by_invite", "invite_hash", unique=True),
)

network_members = Table(
    "network_members",
    metadata,
    Column(
        "serial", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    Column("network_id", ID, ForeignKey("networks.id"), nullable=False),
    Column("principal_id", ID, ForeignKey("principals.id"), nullable=False),
    Column("joined_at", TIME, nullable=False),
    Index("network_members_by_principal", "principal_id", "network_id", unique=True),
)

# Opportunities (spec/intro-api.md, Opportunities): one per unordered pair of intents, ever,
# found from either side through the ordered pair (`intent_low` < `intent_high`); the row holds
# the seats, the status and each person's latest decision, updated, never deleted (0009); when
# it became pending, and its opportunities found from either intent (0010).
opportunities = Table(
    "opportunities",
    metadata,
    Column(
        "serial", BigInteger().with_variant(Integer, "sqlite"), primary_key=True, autoincrement=True
    ),
    Column("id", ID, nullable=False),
    Column("intent_low", ID, nullable=False),
    Column("intent_high", ID, nullable=False),
    Column("initiator_intent_id", ID, ForeignKey("intents.id"), nullable=False),
    Column("responder_intent_id", ID, ForeignKey("intents.id"), nullable=False),
    Column("initiator_principal_id", ID, ForeignKey("principals.id"), nullable=False),
    Column("responder_principal_id", ID, ForeignKey("principals.id"), nullable=False),
    Column("status", String(16), nullable=False),
    Column("initiator_decision", String(16)),
    Column("responder_decision", String(16)),
    Column("context", Text),
    Column("negotiation_id", ID, ForeignKey("negotiations.id"), nullable=False),
    Column("created_at", TIME, nullable=False),
    Column("updated_at", TIME, nullable=False),
    Column("pending_since", TIME),
    Index("opportunities_by_id", "id", unique=True),
    Index("opportunities_by_pair", "intent_low", "intent_high", unique=True),
    Index("opportunities_by_initiator", "initiator_principal_id", "serial"),
    Index("opportunities_by_responder", "responder_principal_id", "serial"),
    Index("opportunities_pending", "status", "pending_since"),
    Index("opportunities_by_initiator_intent", "initiator_intent_id"),
    Index("opportunities_by_responder_intent", "responder_intent_id"),
)

# Adviser cases (0012): the case's bookkeeping, a projection of its versions, updated and never
# deleted; every version's whole state, append-only; material changes, marked seen once;
# questions with their status.
adviser_cases = Table(
    "adviser_cases",
    metadata,
    Column("id", ID, primary_key=True),
    Column("principal_id", ID, ForeignKey("principals.id"), nullable=False),
    Column("title", String(200), nullable=False),
    Column("description", Text),
    Column("state_version", BigInteger, nullable=False),
    Column("status", String(16), nullable=False),
    Column("lifecycle_stage", String(32), nullable=False),
    Column("depth_given", Boolean, nullable=False),
    Column("created_at", TIME, nullable=False),
    Column("updated_at", TIME, nullable=False),
    Index("adviser_cases_by_principal", "principal_id", "updated_at"),
)

adviser_versions = Table(
    "adviser_versions",
    metadata,
    Column("case_id", ID, ForeignKey("adviser_cases.id"), primary_key=True),
    Column("version", BigInteger, primary_key=True),
    Column("state", Text, nullable=False),
    Column("recorded_at", TIME, nullable=False),
)

adviser_changes = Table(
    "adviser_changes",
    metadata,
    Column("id", ID, primary_key=True),
    Column("case_id", ID, ForeignKey("adviser_cases.id"), nullable=False),
    Column("state_version", BigInteger, nullable=False),
    Column("fields", Text, nullable=False),
    Column("summary", Text, nullable=False),
    Column("created_at", TIME, nullable=False),
    Column("seen_at", TIME),
    Index("adviser_changes_by_case", "case_id", "state_version"),
)

adviser_questions = Table(
    "adviser_questions",
    metadata,
    Column("case_id", ID, ForeignKey("adviser_cases.id"), primary_key=True),
    Column("question_id", ID, primary_key=True),
    Column("position", Integer, nullable=False),
    Column("body", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("created_at", TIME, nullable=False),
    Column("updated_at", TIME, nullable=False),
)

# Adviser skills, held patches and linked tables (0013): a principal's registered skills,
# replaced and never deleted; red-team patches as they were held, append-only; links with the
# seat they bind and how far into the table's log the case has read.
adviser_skills = Table(
    "adviser_skills",
    metadata,
    Column("principal_id", ID, ForeignKey("principals.id"), primary_key=True),
    Column("skill_id", ID, primary_key=True),
    Column("body", Text, nullable=False),
    Column("created_at", TIME, nullable=False),
    Column("updated_at", TIME, nullable=False),
)

adviser_held = Table(
    "adviser_held",
    metadata,
    Column("case_id", ID, ForeignKey("adviser_cases.id"), primary_key=True),
    Column("position", Integer, primary_key=True),
    Column("finding_id", ID, nullable=False),
    Column("skill_id", ID, nullable=False),
    Column("held_at", BigInteger, nullable=False),
    Column("patch", Text, nullable=False),
)

adviser_links = Table(
    "adviser_links",
    metadata,
    Column("id", ID, primary_key=True),
    Column("case_id", ID, ForeignKey("adviser_cases.id"), nullable=False),
    Column("protocol", String(16), nullable=False),
    Column("negotiation_id", ID, nullable=False),
    Column("seat", String(16), nullable=False),
    Column("through_seq", BigInteger, nullable=False),
    Column("created_at", TIME, nullable=False),
    Index("adviser_links_by_case", "case_id"),
    Index("adviser_links_by_seat", "protocol", "negotiation_id", "seat"),
)

# Webhooks (docs/webhooks.md): an endpoint follows one audience with a cursor over its events;
# a secret is never replaced in place (a rotation appends one, and how long the one before it
# goes on signing); the outbox holds each event's body as first sent, so every retry sends the
# same bytes; the attempts are the delivery log.
webhook_endpoints = Table(
    "webhook_endpoints",
    metadata,
    Column("id", ID, primary_key=True),
    Column("scope", String(200), nullable=False),
    Column("audience", Text, nullable=False),
    Column("url", Text, nullable=False),
    Column("event_types", Text),
    Column("description", Text),
    Column("signature", String(8), nullable=False),
    Column("status", String(16), nullable=False),
    Column("disabled_reason", String(32)),
    Column("cursor", BigInteger, nullable=False),
    Column("created_at", TIME, nullable=False),
    Column("updated_at", TIME, nullable=False),
    Column("last_success_at", TIME),
    Column("failing_since", TIME),
    Index("webhook_endpoints_by_scope", "scope"),
)

webhook_secrets = Table(
    "webhook_secrets",
    metadata,
    Column("endpoint_id", ID, ForeignKey("webhook_endpoints.id"), primary_key=True),
    Column("position", Integer, primary_key=True),
    Column("secret", Text, nullable=False),
    Column("created_at", TIME, nullable=False),
    Column("overlap_seconds", Integer, nullable=False),
)

webhook_deliveries = Table(
    "webhook_deliveries",
    metadata,
    Column("endpoint_id", ID, ForeignKey("webhook_endpoints.id"), primary_key=True),
    Column("event_id", String(64), primary_key=True),
    Column("event_type", String(120), nullable=False),
    Column("body", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("due_at", BigInteger),
    Column("created_at", TIME, nullable=False),
    Index("webhook_deliveries_due", "status", "due_at"),
    Index("webhook_deliveries_by_age", "created_at"),
)

webhook_attempts = Table(
    "webhook_attempts",
    metadata,
    Column("endpoint_id", ID, primary_key=True),
    Column("event_id", String(64), primary_key=True),
    Column("attempt", Integer, primary_key=True),
    Column("attempted_at", TIME, nullable=False),
    Column("status_code", Integer),
    Column("error", String(200)),
    Column("duration_ms", Integer, nullable=False),
    Column("next_attempt_at", TIME),
)

# Link codes (A4): a code hands on a person's credential once. The credential is kept sealed
# under a key only the code derives, so the store alone never holds one in the clear; `used_at`
# is set once, when the code is redeemed, and `used_by` says where.
links = Table(
    "links",
    metadata,
    Column("code_hash", String(80), primary_key=True),
    Column("kind", String(32), nullable=False),
    Column("negotiation_id", ID),
    Column("party", String(16)),
    Column("principal_id", ID),
    Column("sealed", Text, nullable=False),
    Column("created_at", TIME, nullable=False),
    Column("expires_at", TIME, nullable=False),
    Column("used_at", TIME),
    Column("used_by", String(16)),
    Index("links_by_negotiation", "negotiation_id"),
)

channel_bindings = Table(
    "channel_bindings",
    metadata,
    Column("id", ID, primary_key=True),
    Column("channel", String(16), nullable=False),
    Column("chat_id", String(32), nullable=False),
    Column("kind", String(32), nullable=False),
    Column("negotiation_id", ID),
    Column("party", String(16)),
    Column("principal_id", ID),
    Column("sealed", Text, nullable=False),
    Column("created_at", TIME, nullable=False),
    Column("after", BigInteger, nullable=False),
    Index("channel_bindings_by_chat", "channel", "chat_id"),
)

channel_unlinks = Table(
    "channel_unlinks",
    metadata,
    Column("binding_id", ID, ForeignKey("channel_bindings.id"), primary_key=True),
    Column("ended_at", TIME, nullable=False),
    Column("reason", String(16), nullable=False),
)

channel_deliveries = Table(
    "channel_deliveries",
    metadata,
    Column("binding_id", ID, ForeignKey("channel_bindings.id"), primary_key=True),
    Column("event_id", BigInteger, primary_key=True),
    Column("delivered_at", TIME, nullable=False),
)

channel_questions = Table(
    "channel_questions",
    metadata,
    Column("channel", String(16), primary_key=True),
    Column("chat_id", String(32), primary_key=True),
    Column("message_id", BigInteger, primary_key=True),
    Column("binding_id", ID, ForeignKey("channel_bindings.id"), nullable=False),
    Column("opportunity_id", ID, nullable=False),
    Column("question_id", ID, nullable=False),
    Column("sent_at", TIME, nullable=False),
)

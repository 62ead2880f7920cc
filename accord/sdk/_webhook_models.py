"""Webhook endpoints, their deliveries and the events a receiver checks (docs/webhooks.md)."""

from typing import Any, Literal

from pydantic import Field

from accord.sdk._models import Model


class Webhook(Model):
    """An endpoint. `secret` (`whsec_…`) is present only in the answer that made it."""

    webhook_id: str
    url: str
    event_types: list[str] | None
    description: str | None
    scope: dict[str, Any]
    signature: Literal["v1", "v1a"]
    status: Literal["enabled", "disabled"]
    disabled_reason: str | None
    created_at: str
    updated_at: str
    last_success_at: str | None
    secret: str | None = Field(default=None, repr=False)


class WebhookList(Model):
    """A scope's endpoints, oldest first."""

    webhooks: list[Webhook]


class Attempt(Model):
    """One try at sending a delivery: what the receiver answered, or why nothing was sent."""

    attempt: int
    attempted_at: str
    status_code: int | None
    error: str | None
    duration_ms: int
    next_attempt_at: str | None


class Delivery(Model):
    """One event for one endpoint, and every attempt at sending it."""

    event_id: str
    event_type: str
    status: Literal["pending", "succeeded", "failed"]
    created_at: str
    attempts: list[Attempt]


class DeliveryList(Model):
    """An endpoint's delivery log, oldest first."""

    deliveries: list[Delivery]


class WebhookKey(Model):
    """One `v1a` public key; a retired one signed until a day after its successor came."""

    key: str
    status: Literal["active", "retired"]
    created_at: str


class WebhookKeys(Model):
    """The server's `v1a` public keys (`whpk_…`): pin them, fetched over a channel you trust."""

    keys: list[WebhookKey]


class WebhookEvent(Model):
    """One event as a receiver got it, once its signature checked: `id` is the `webhook-id`,
    the same on every retry (deduplicate on it)."""

    id: str
    type: str
    timestamp: str
    data: dict[str, Any]

"""Checking a webhook as a receiver: its signature (`v1` with the endpoint's secret, `v1a`
with the server's public keys) and its timestamp, before its body is believed. Offline."""

import json
import time
from collections.abc import Iterable, Mapping

from accord.sdk._errors import AccordError
from accord.sdk._webhook_models import WebhookEvent, WebhookKeys
from accord.trust.webhook_signatures import matches

INVALID_WEBHOOK = "invalid_webhook"


def verify_webhook(
    body: bytes | str,
    headers: Mapping[str, str],
    *,
    secret: str | Iterable[str] | None = None,
    public_keys: WebhookKeys | Iterable[str] = (),
    tolerance_seconds: int = 300,
    now: float | None = None,
) -> WebhookEvent:
    """The event, once one `webhook-signature` is by `secret` (one or several, during a
    rotation) or by one of `public_keys`, and `webhook-timestamp` is within
    `tolerance_seconds` of now; else `AccordError("invalid_webhook")`. Pass the body exactly as
    received, before any JSON parsing."""
    raw = body.encode() if isinstance(body, str) else body
    lowered = {name.lower(): value for name, value in headers.items()}
    webhook_id = lowered.get("webhook-id")
    stamp = lowered.get("webhook-timestamp")
    signature = lowered.get("webhook-signature")
    if not (webhook_id and stamp and signature):
        raise _invalid("The webhook-id, webhook-timestamp or webhook-signature header is missing.")
    try:
        timestamp = int(stamp)
    except ValueError:
        raise _invalid("webhook-timestamp is not a number of seconds.") from None
    if abs((time.time() if now is None else now) - timestamp) > tolerance_seconds:
        raise _invalid("webhook-timestamp is too far from now: a replay, or a wrong clock.")
    secrets_ = [secret] if isinstance(secret, str) else list(secret or ())
    keys = (
        [k.key for k in public_keys.keys] if isinstance(public_keys, WebhookKeys) else public_keys
    )
    if not matches(signature, webhook_id, timestamp, raw, secrets_=secrets_, public_keys=keys):
        raise _invalid("No signature of this webhook is by a secret or key you trust.")
    event = json.loads(raw)
    if not isinstance(event, dict) or event.get("id") != webhook_id:
        raise _invalid("The body is not the event its webhook-id names.")
    return WebhookEvent.model_validate(event)


def _invalid(message: str) -> AccordError:
    return AccordError(INVALID_WEBHOOK, message)

"""Webhooks over HTTP (docs/webhooks.md): endpoints registered by a credential for its own
audience's events, their delivery log and manual retry, and the public keys of `v1a`
signatures. The credential is checked before the body is looked at."""

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request

from accord.app.root import Accord
from accord.app.webhooks import Scope, Webhooks
from accord.http.auth import ApiKey, Public
from accord.http.strict import StrictRoute
from accord.webhooks.requests import RegisterInput, RotateInput, UpdateInput
from accord.webhooks.signatures import public_key_text

router = APIRouter(route_class=StrictRoute, tags=["webhooks"])
WEBHOOKS = "/v1/webhooks"


def _webhooks(request: Request) -> Webhooks:
    webhooks: Webhooks = request.app.state.webhooks
    return webhooks


def scope(request: Request, key: ApiKey) -> Scope:
    """Any credential with an audience of its own: a seat or owner token, a principal's key, a
    secret key."""
    return _webhooks(request).scope(key)


Owner = Annotated[Scope, Depends(scope)]


@router.post(WEBHOOKS, status_code=201, summary="Register an endpoint for your events")
def register(body: RegisterInput, request: Request, owner: Owner) -> dict[str, Any]:
    return _webhooks(request).register(owner, body)


@router.get(WEBHOOKS, summary="Your scope's endpoints")
def list_webhooks(request: Request, owner: Owner) -> dict[str, Any]:
    return _webhooks(request).list(owner)


@router.get(WEBHOOKS + "/{webhook_id}", summary="One of your endpoints")
def get_webhook(webhook_id: str, request: Request, owner: Owner) -> dict[str, Any]:
    return _webhooks(request).get(owner, webhook_id)


@router.patch(WEBHOOKS + "/{webhook_id}", summary="Change an endpoint, or disable or enable it")
def update_webhook(
    webhook_id: str, body: UpdateInput, request: Request, owner: Owner
) -> dict[str, Any]:
    return _webhooks(request).update(owner, webhook_id, body)


@router.post(WEBHOOKS + "/{webhook_id}/rotate", summary="A new secret; both sign for a while")
def rotate_secret(
    webhook_id: str, body: RotateInput, request: Request, owner: Owner
) -> dict[str, Any]:
    return _webhooks(request).rotate(owner, webhook_id, body)


@router.post(WEBHOOKS + "/{webhook_id}/test", status_code=202, summary="Send `webhook.test`")
def test_webhook(webhook_id: str, request: Request, owner: Owner) -> dict[str, Any]:
    return _webhooks(request).test(owner, webhook_id)


@router.get(WEBHOOKS + "/{webhook_id}/deliveries", summary="The delivery log, oldest first")
def deliveries(
    webhook_id: str,
    request: Request,
    owner: Owner,
    status: Annotated[
        str | None, Query(description="pending, succeeded or failed; all if left out.")
    ] = None,
    after: Annotated[
        str | None, Query(max_length=64, description="The last event id of the page before.")
    ] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> dict[str, Any]:
    return _webhooks(request).deliveries(owner, webhook_id, status=status, after=after, limit=limit)


@router.post(
    WEBHOOKS + "/{webhook_id}/deliveries/{event_id}/retry",
    status_code=202,
    summary="Send an event again now, with the same webhook-id",
)
def retry(webhook_id: str, event_id: str, request: Request, owner: Owner) -> dict[str, Any]:
    return _webhooks(request).retry(owner, webhook_id, event_id)


@router.get("/.well-known/webhook-keys.json", summary="The public keys of v1a signatures")
def webhook_keys(request: Request, _: Public) -> dict[str, Any]:
    accord: Accord = request.app.state.accord
    return {
        "keys": [
            {
                "key": public_key_text(key.public),
                "status": key.status,
                "created_at": key.created_at,
            }
            for key in accord.keys.current().webhook_keys()
        ]
    }

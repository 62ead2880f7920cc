"""Webhook endpoints for one credential's events (docs/webhooks.md): register, list, change,
rotate the secret, send a test, read the delivery log and send an event again. Any credential
with an event stream of its own may: a seat or owner token, a principal's key, a secret key."""

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

from accord.sdk import _operations as ops
from accord.sdk._webhook_models import Delivery, DeliveryList, Webhook, WebhookKeys, WebhookList

if TYPE_CHECKING:
    from accord.sdk._client import Accord, AsyncAccord

Signature = Literal["v1", "v1a"]
Status = Literal["enabled", "disabled"]


def _members(**members: Any) -> dict[str, Any]:
    return {name: value for name, value in members.items() if value is not None}


def _webhook(webhook_id: str, **more: str) -> dict[str, str]:
    return {"webhook_id": webhook_id, **more}


def _query(status: str | None, after: str | None, limit: int | None) -> dict[str, str | int]:
    return _members(status=status, after=after, limit=limit)


class _Endpoints:
    def __init__(self, credential: str) -> None:
        self.credential = credential

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"  # the credential stays out of logs


class Webhooks(_Endpoints):
    """`Accord(url).webhooks(credential)`."""

    def __init__(self, client: "Accord", credential: str) -> None:
        super().__init__(credential)
        self._client = client

    def register(
        self,
        url: str,
        *,
        event_types: Sequence[str] | None = None,
        description: str | None = None,
        signature: Signature = "v1",
    ) -> Webhook:
        """A new endpoint; a `v1` one's `secret` is in this answer only."""
        body = _members(
            url=url,
            event_types=list(event_types) if event_types is not None else None,
            description=description,
            signature=signature,
        )
        return self._client._call(ops.REGISTER_WEBHOOK, token=self.credential, body=body)

    def list(self) -> WebhookList:
        return self._client._call(ops.LIST_WEBHOOKS, token=self.credential)

    def get(self, webhook_id: str) -> Webhook:
        path = _webhook(webhook_id)
        return self._client._call(ops.SHOW_WEBHOOK, token=self.credential, path=path)

    def update(
        self,
        webhook_id: str,
        *,
        url: str | None = None,
        event_types: Sequence[str] | None = None,
        description: str | None = None,
        status: Status | None = None,
    ) -> Webhook:
        body = _members(
            url=url,
            event_types=list(event_types) if event_types is not None else None,
            description=description,
            status=status,
        )
        path = _webhook(webhook_id)
        return self._client._call(ops.UPDATE_WEBHOOK, token=self.credential, path=path, body=body)

    def rotate(self, webhook_id: str, *, overlap_seconds: int | None = None) -> Webhook:
        """A new secret (in this answer only); the old one signs beside it for the overlap."""
        body = _members(overlap_seconds=overlap_seconds)
        path = _webhook(webhook_id)
        return self._client._call(ops.ROTATE_WEBHOOK, token=self.credential, path=path, body=body)

    def test(self, webhook_id: str) -> Delivery:
        path = _webhook(webhook_id)
        return self._client._call(ops.TEST_WEBHOOK, token=self.credential, path=path)

    def deliveries(
        self,
        webhook_id: str,
        *,
        status: str | None = None,
        after: str | None = None,
        limit: int | None = None,
    ) -> DeliveryList:
        return self._client._call(
            ops.LIST_DELIVERIES,
            token=self.credential,
            path=_webhook(webhook_id),
            params=_query(status, after, limit),
        )

    def retry(self, webhook_id: str, event_id: str) -> Delivery:
        path = _webhook(webhook_id, event_id=event_id)
        return self._client._call(ops.RETRY_DELIVERY, token=self.credential, path=path)

    def keys(self) -> WebhookKeys:
        """The server's `v1a` public keys."""
        return self._client._call(ops.WEBHOOK_KEYS)


class AsyncWebhooks(_Endpoints):
    """`AsyncAccord(url).webhooks(credential)`."""

    def __init__(self, client: "AsyncAccord", credential: str) -> None:
        super().__init__(credential)
        self._client = client

    async def register(
        self,
        url: str,
        *,
        event_types: Sequence[str] | None = None,
        description: str | None = None,
        signature: Signature = "v1",
    ) -> Webhook:
        body = _members(
            url=url,
            event_types=list(event_types) if event_types is not None else None,
            description=description,
            signature=signature,
        )
        return await self._client._call(ops.REGISTER_WEBHOOK, token=self.credential, body=body)

    async def list(self) -> WebhookList:
        return await self._client._call(ops.LIST_WEBHOOKS, token=self.credential)

    async def get(self, webhook_id: str) -> Webhook:
        path = _webhook(webhook_id)
        return await self._client._call(ops.SHOW_WEBHOOK, token=self.credential, path=path)

    async def update(
        self,
        webhook_id: str,
        *,
        url: str | None = None,
        event_types: Sequence[str] | None = None,
        description: str | None = None,
        status: Status | None = None,
    ) -> Webhook:
        body = _members(
            url=url,
            event_types=list(event_types) if event_types is not None else None,
            description=description,
            status=status,
        )
        path = _webhook(webhook_id)
        return await self._client._call(
            ops.UPDATE_WEBHOOK, token=self.credential, path=path, body=body
        )

    async def rotate(self, webhook_id: str, *, overlap_seconds: int | None = None) -> Webhook:
        body = _members(overlap_seconds=overlap_seconds)
        path = _webhook(webhook_id)
        return await self._client._call(
            ops.ROTATE_WEBHOOK, token=self.credential, path=path, body=body
        )

    async def test(self, webhook_id: str) -> Delivery:
        path = _webhook(webhook_id)
        return await self._client._call(ops.TEST_WEBHOOK, token=self.credential, path=path)

    async def deliveries(
        self,
        webhook_id: str,
        *,
        status: str | None = None,
        after: str | None = None,
        limit: int | None = None,
    ) -> DeliveryList:
        return await self._client._call(
            ops.LIST_DELIVERIES,
            token=self.credential,
            path=_webhook(webhook_id),
            params=_query(status, after, limit),
        )

    async def retry(self, webhook_id: str, event_id: str) -> Delivery:
        path = _webhook(webhook_id, event_id=event_id)
        return await self._client._call(ops.RETRY_DELIVERY, token=self.credential, path=path)

    async def keys(self) -> WebhookKeys:
        return await self._client._call(ops.WEBHOOK_KEYS)

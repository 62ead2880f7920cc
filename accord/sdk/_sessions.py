"""Arbitrated sessions (spec/arbitrated-rest.md): a buyer's session on one SKU, and a
merchant's own surface with its secret key (policies, its sessions, their receipts).

Every buyer move answers with the session after the arbiter's verdict and the merchant's
reply; a move repeated with its `message_id` answers the same, marked `duplicate`.
"""

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from accord.sdk import _operations as ops
from accord.sdk._errors import INVALID_RESPONSE, AccordError
from accord.sdk._models import (
    Catalogue,
    Handoff,
    Log,
    Me,
    Policy,
    PolicyList,
    Receipt,
    Reveals,
    SessionList,
    SessionView,
)

if TYPE_CHECKING:
    from accord.sdk._client import Accord, AsyncAccord


def _members(**members: Any) -> dict[str, Any]:
    return {name: value for name, value in members.items() if value is not None}


def _open_body(
    sku: str,
    agent_id: str,
    declared: Mapping[str, Any] | None,
    commitment: str | None,
    fairness_profile: str | None,
    description: str | None,
) -> dict[str, Any]:
    buyer = _members(
        agent_id=agent_id,
        declared=None if declared is None else dict(declared),
        commitment=commitment,
    )
    return _members(
        sku=sku, buyer=buyer, fairness_profile=fairness_profile, description=description
    )


def _offer(
    price_minor: int,
    inclusions: Sequence[str] | None,
    justification: str | None,
    message_id: str | None,
) -> dict[str, Any]:
    return _members(
        type="offer",
        price_minor=price_minor,
        inclusions=None if inclusions is None else list(inclusions),
        justification=justification,
        message_id=message_id,
    )


def _session_token(opened: SessionView) -> str:
    if opened.session_token is None:
        raise AccordError(INVALID_RESPONSE, "The server opened a session without its token.")
    return opened.session_token


class _Buyer:
    def __init__(self, session_id: str, token: str, opening: SessionView | None) -> None:
        self.session_id = session_id
        self.token = token
        self.opening = opening
        """The view the open answered with (the merchant's opening offer); None when the
        session was attached to later."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(session_id={self.session_id!r})"

    @property
    def _path(self) -> dict[str, str]:
        return {"session_id": self.session_id}


class BuyerSession(_Buyer):
    """A buyer's session, held by its session token."""

    def __init__(
        self, client: "Accord", session_id: str, token: str, opening: SessionView | None = None
    ) -> None:
        super().__init__(session_id, token, opening)
        self._client = client

    def view(self) -> SessionView:
        """The session with its whole log."""
        return self._client._call(ops.SHOW_SESSION, token=self.token, path=self._path)

    def move(self, move: Mapping[str, Any]) -> SessionView:
        """Any buyer move as its JSON; an offer, accept or reject without a `message_id` gets
        one."""
        return self._client._call(ops.SESSION_MOVE, token=self.token, path=self._path, body=move)

    def offer(
        self,
        price_minor: int,
        *,
        inclusions: Sequence[str] | None = None,
        justification: str | None = None,
        message_id: str | None = None,
    ) -> SessionView:
        return self.move(_offer(price_minor, inclusions, justification, message_id))

    def accept(self, *, message_id: str | None = None) -> SessionView:
        """Accept the merchant's standing offer (`nothing_to_accept` when none stands)."""
        return self.move(_members(type="accept", message_id=message_id))

    def reject(self, *, reason: str | None = None, message_id: str | None = None) -> SessionView:
        """Walk away: the session closes."""
        return self.move(_members(type="reject", reason=reason, message_id=message_id))

    def reveal(self, private: Mapping[str, Any]) -> SessionView:
        """Open the buyer's committed private set, after the end. It carries no message_id,
        so it is sent again only when it never left."""
        return self.move({"type": "reveal", "private": dict(private)})

    def claim_handoff(self) -> Handoff:
        """The merchant's hand-off once agreed; `handoff_pending` (with `retry_after`) until a
        manual policy's merchant has published it."""
        return self._client._call(ops.CLAIM_HANDOFF, token=self.token, path=self._path)

    def log(self) -> Log:
        return self._client._call(ops.SESSION_LOG, token=self.token, path=self._path)

    def receipt(self) -> Receipt:
        return self._client._call(ops.SESSION_RECEIPT, token=self.token, path=self._path)


class AsyncBuyerSession(_Buyer):
    """`BuyerSession` for an event loop."""

    def __init__(
        self,
        client: "AsyncAccord",
        session_id: str,
        token: str,
        opening: SessionView | None = None,
    ) -> None:
        super().__init__(session_id, token, opening)
        self._client = client

    async def view(self) -> SessionView:
        return await self._client._call(ops.SHOW_SESSION, token=self.token, path=self._path)

    async def move(self, move: Mapping[str, Any]) -> SessionView:
        return await self._client._call(
            ops.SESSION_MOVE, token=self.token, path=self._path, body=move
        )

    async def offer(
        self,
        price_minor: int,
        *,
        inclusions: Sequence[str] | None = None,
        justification: str | None = None,
        message_id: str | None = None,
    ) -> SessionView:
        return await self.move(_offer(price_minor, inclusions, justification, message_id))

    async def accept(self, *, message_id: str | None = None) -> SessionView:
        return await self.move(_members(type="accept", message_id=message_id))

    async def reject(
        self, *, reason: str | None = None, message_id: str | None = None
    ) -> SessionView:
        return await self.move(_members(type="reject", reason=reason, message_id=message_id))

    async def reveal(self, private: Mapping[str, Any]) -> SessionView:
        return await self.move({"type": "reveal", "private": dict(private)})

    async def claim_handoff(self) -> Handoff:
        return await self._client._call(ops.CLAIM_HANDOFF, token=self.token, path=self._path)

    async def log(self) -> Log:
        return await self._client._call(ops.SESSION_LOG, token=self.token, path=self._path)

    async def receipt(self) -> Receipt:
        return await self._client._call(ops.SESSION_RECEIPT, token=self.token, path=self._path)


class Sessions:
    """`accord.sessions`: a buyer opens a session with a merchant's publishable key."""

    def __init__(self, client: "Accord") -> None:
        self._client = client

    def open(
        self,
        publishable_key: str,
        sku: str,
        *,
        agent_id: str,
        declared: Mapping[str, Any] | None = None,
        commitment: str | None = None,
        fairness_profile: str | None = None,
        description: str | None = None,
    ) -> BuyerSession:
        """Open a session on `sku`: the merchant's opening offer is on the table. `declared`
        is the buyer's `{max_rounds?, currency?, inclusions?, utilities?,
        non_price_preferences?}`. Sent again only if it never left."""
        body = _open_body(sku, agent_id, declared, commitment, fairness_profile, description)
        view = self._client._call(ops.OPEN_SESSION, token=publishable_key, body=body)
        return BuyerSession(self._client, view.session_id, _session_token(view), view)

    def attach(self, session_token: str, session_id: str) -> BuyerSession:
        """A session opened earlier, by its token and id."""
        return BuyerSession(self._client, session_id, session_token)

    def catalogue(self, key: str) -> Catalogue:
        """The SKUs a merchant's publishable (or secret) key offers."""
        return self._client._call(ops.CATALOGUE, token=key)


class AsyncSessions:
    """`Sessions` for an event loop."""

    def __init__(self, client: "AsyncAccord") -> None:
        self._client = client

    async def open(
        self,
        publishable_key: str,
        sku: str,
        *,
        agent_id: str,
        declared: Mapping[str, Any] | None = None,
        commitment: str | None = None,
        fairness_profile: str | None = None,
        description: str | None = None,
    ) -> AsyncBuyerSession:
        body = _open_body(sku, agent_id, declared, commitment, fairness_profile, description)
        view = await self._client._call(ops.OPEN_SESSION, token=publishable_key, body=body)
        return AsyncBuyerSession(self._client, view.session_id, _session_token(view), view)

    def attach(self, session_token: str, session_id: str) -> AsyncBuyerSession:
        return AsyncBuyerSession(self._client, session_id, session_token)

    async def catalogue(self, key: str) -> Catalogue:
        return await self._client._call(ops.CATALOGUE, token=key)


class _Merchant:
    def __init__(self, secret_key: str) -> None:
        self.secret_key = secret_key

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class Merchant(_Merchant):
    """A merchant's own surface, with its secret key; its mode (test or live) is the mode of
    everything it reads and writes."""

    def __init__(self, client: "Accord", secret_key: str) -> None:
        super().__init__(secret_key)
        self._client = client

    def me(self) -> Me:
        return self._client._call(ops.ME, token=self.secret_key)

    def catalogue(self) -> Catalogue:
        return self._client._call(ops.CATALOGUE, token=self.secret_key)

    def policies(self) -> PolicyList:
        return self._client._call(ops.POLICIES, token=self.secret_key)

    def put_policy(self, sku: str, policy: Mapping[str, Any]) -> Policy:
        """Store the SKU's policy, replacing any (spec/arbitrated-rest.md, Policy)."""
        return self._client._call(
            ops.PUT_POLICY, token=self.secret_key, path={"sku": sku}, body=policy
        )

    def sessions(self, *, limit: int = 20) -> SessionList:
        """The latest sessions, newest first (1 to 200)."""
        return self._client._call(ops.LIST_SESSIONS, token=self.secret_key, params={"limit": limit})

    def session(self, session_id: str) -> SessionView:
        """A session with its whole log."""
        return self._client._call(
            ops.SHOW_SESSION, token=self.secret_key, path={"session_id": session_id}
        )

    def log(self, session_id: str) -> Log:
        return self._client._call(
            ops.SESSION_LOG, token=self.secret_key, path={"session_id": session_id}
        )

    def receipt(self, session_id: str) -> Receipt:
        return self._client._call(
            ops.SESSION_RECEIPT, token=self.secret_key, path={"session_id": session_id}
        )

    def reveal(self, session_id: str) -> Reveals:
        """Open the merchant's commitment after the end: the one place its floor appears."""
        return self._client._call(
            ops.MERCHANT_REVEAL, token=self.secret_key, path={"session_id": session_id}, body={}
        )

    def publish_handoff(
        self, session_id: str, *, kind: str, value: str, checkout_url: str, expires_at: str
    ) -> Handoff:
        """A manual policy's hand-off for an agreed session."""
        body = {"kind": kind, "value": value, "checkout_url": checkout_url,
                "expires_at": expires_at}  # fmt: skip
        return self._client._call(
            ops.PUBLISH_HANDOFF, token=self.secret_key, path={"session_id": session_id}, body=body
        )


class AsyncMerchant(_Merchant):
    """`Merchant` for an event loop."""

    def __init__(self, client: "AsyncAccord", secret_key: str) -> None:
        super().__init__(secret_key)
        self._client = client

    async def me(self) -> Me:
        return await self._client._call(ops.ME, token=self.secret_key)

    async def catalogue(self) -> Catalogue:
        return await self._client._call(ops.CATALOGUE, token=self.secret_key)

    async def policies(self) -> PolicyList:
        return await self._client._call(ops.POLICIES, token=self.secret_key)

    async def put_policy(self, sku: str, policy: Mapping[str, Any]) -> Policy:
        return await self._client._call(
            ops.PUT_POLICY, token=self.secret_key, path={"sku": sku}, body=policy
        )

    async def sessions(self, *, limit: int = 20) -> SessionList:
        return await self._client._call(
            ops.LIST_SESSIONS, token=self.secret_key, params={"limit": limit}
        )

    async def session(self, session_id: str) -> SessionView:
        return await self._client._call(
            ops.SHOW_SESSION, token=self.secret_key, path={"session_id": session_id}
        )

    async def log(self, session_id: str) -> Log:
        return await self._client._call(
            ops.SESSION_LOG, token=self.secret_key, path={"session_id": session_id}
        )

    async def receipt(self, session_id: str) -> Receipt:
        return await self._client._call(
            ops.SESSION_RECEIPT, token=self.secret_key, path={"session_id": session_id}
        )

    async def reveal(self, session_id: str) -> Reveals:
        return await self._client._call(
            ops.MERCHANT_REVEAL, token=self.secret_key, path={"session_id": session_id}, body={}
        )

    async def publish_handoff(
        self, session_id: str, *, kind: str, value: str, checkout_url: str, expires_at: str
    ) -> Handoff:
        body = {"kind": kind, "value": value, "checkout_url": checkout_url,
                "expires_at": expires_at}  # fmt: skip
        return await self._client._call(
            ops.PUBLISH_HANDOFF, token=self.secret_key, path={"session_id": session_id}, body=body
        )

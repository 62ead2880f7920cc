"""Webhook endpoints as a service (docs/webhooks.md): registered by a credential for exactly the
events that credential's own stream would carry (its audience, A7), listed, changed, rotated,
tested and retried only by a credential of the same scope.

Another scope's endpoint is `webhook_not_found`, never `forbidden`, so an id says nothing of who
registered it. The secret of a `v1` endpoint is shown once, when it is made."""

import socket
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final
from urllib.parse import urlsplit

from sqlalchemy import Connection

from accord.app.events import Audience, Level, PrincipalAudience, ScopeAudience, SeatAudience
from accord.app.identity import (
    Caller,
    CredentialCache,
    MerchantCaller,
    PrincipalCaller,
    SeatCaller,
    resolve,
)
from accord.app.settings import Settings
from accord.app.tokens import new_id, new_token
from accord.core.jsonio import canonical
from accord.core.refusals import RefusalCode, refuse
from accord.core.times import format_time
from accord.protocols.arbitrated.table import tenant_scope
from accord.store import webhooks as rows
from accord.store.database import Database
from accord.store.events import last_event_id
from accord.webhooks import rules
from accord.webhooks.requests import RegisterInput, RotateInput, UpdateInput
from accord.webhooks.signatures import new_secret

PER_SCOPE: Final = 16
DELIVERY_STATUSES: Final = frozenset({"pending", "succeeded", "failed"})

JSONBody = dict[str, Any]
Resolver = Callable[[str], list[str]]


def resolve_host(host: str) -> list[str]:
    """Every address `host` resolves to (none when it does not resolve)."""
    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return []
    return sorted({str(info[4][0]) for info in found})


@dataclass(frozen=True)
class Scope:
    """Whose endpoints: the scope key they are filed under and the audience they receive."""

    key: str
    audience: JSONBody


def scope_of(caller: Caller | None) -> Scope:
    """The scope key and stored audience of the credential that registers or manages an
    endpoint: a seat (agent or owner level), a principal (agent or owner level) or a tenant's
    mode (secret key). Publishable keys, session and invite tokens register nothing."""
    match caller:
        case None:
            raise refuse(RefusalCode.UNAUTHENTICATED, "This credential opens nothing; check it.")
        case SeatCaller():
            level = "owner" if caller.is_owner else "agent"
            audience = {
                "kind": "seat",
                "negotiation_id": caller.negotiation_id,
                "party": caller.party,
                "level": level,
            }
            return Scope(f"seat:{caller.negotiation_id}:{caller.party}:{level}", audience)
        case PrincipalCaller():
            audience = {"kind": "principal", "principal_id": caller.principal_id}
            audience["level"] = caller.level
            return Scope(f"principal:{caller.principal_id}:{caller.level}", audience)
        case MerchantCaller() if caller.key_kind == "secret":
            scope = tenant_scope(caller.tenant_id, caller.mode)
            return Scope(scope, {"kind": "scope", "scope": scope, "level": "owner"})
    raise refuse(
        RefusalCode.FORBIDDEN,
        "Register webhooks with a seat or owner token, a principal's key or a secret key.",
    )


def audience_of(stored: JSONBody) -> Audience:
    level = Level(stored["level"])
    match stored["kind"]:
        case "seat":
            return SeatAudience(stored["negotiation_id"], stored["party"], level)
        case "principal":
            return PrincipalAudience(stored["principal_id"], level)
        case "scope":
            return ScopeAudience(stored["scope"], level)
    raise ValueError(f"a stored webhook audience of kind {stored['kind']!r}")


def endpoint_json(row: rows.EndpointRow, *, secret: str | None = None) -> JSONBody:
    body: JSONBody = {
        "webhook_id": row.id,
        "url": row.url,
        "event_types": row.event_types,
        "description": row.description,
        "scope": row.audience,
        "signature": row.signature,
        "status": row.status,
        "disabled_reason": row.disabled_reason,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
        "last_success_at": row.last_success_at,
    }
    if secret is not None:
        body["secret"] = secret
    return body


class Webhooks:
    def __init__(
        self,
        db: Database,
        settings: Settings,
        *,
        clock: Callable[[], datetime],
        resolver: Resolver = resolve_host,
        wake: Callable[[], None] = lambda: None,
    ) -> None:
        self._db = db
        self._settings = settings
        self._clock = clock
        self._resolver = resolver
        self._credentials = CredentialCache()
        self.wake = wake
        """Tells the delivery worker an endpoint or a delivery changed: read the endpoints
        again and send what is due now (set by `accord serve`)."""

    # -- endpoints ------------------------------------------------------------------------

    def register(self, scope: Scope, request: RegisterInput) -> JSONBody:
        self._check_url(request.url)
        endpoint_id = new_id("whk")
        secret = new_secret() if request.signature == "v1" else None

        def txn(conn: Connection) -> JSONBody:
            if rows.count_in_scope(conn, scope.key) >= PER_SCOPE:
                raise refuse(
                    RefusalCode.INVALID_REQUEST,
                    f"A scope holds at most {PER_SCOPE} webhook endpoints; disable one you "
                    "no longer need and change its URL instead.",
                    fields={"url": f"at most {PER_SCOPE} endpoints a scope"},
                )
            at = format_time(self._clock())
            rows.insert_endpoint(
                conn,
                endpoint_id=endpoint_id,
                scope=scope.key,
                audience=scope.audience,
                url=request.url,
                event_types=request.event_types,
                description=request.description,
                signature=request.signature,
                cursor=last_event_id(conn),
                at=at,
            )
            if secret is not None:
                rows.insert_secret(conn, endpoint_id, secret, at=at, overlap_seconds=0)
            found = rows.find_endpoint(conn, endpoint_id)
            assert found is not None
            return endpoint_json(found, secret=secret)

        answer = self._db.write(txn)
        self.wake()
        return answer

    def list(self, scope: Scope) -> JSONBody:
        found = self._db.read(lambda conn: rows.scope_endpoints(conn, scope.key))
        return {"webhooks": [endpoint_json(row) for row in found]}

    def get(self, scope: Scope, endpoint_id: str) -> JSONBody:
        return endpoint_json(self._db.read(lambda conn: self._mine(conn, scope, endpoint_id)))

    def update(self, scope: Scope, endpoint_id: str, request: UpdateInput) -> JSONBody:
        if request.url is not None:
            self._check_url(request.url)
        changes = request.model_dump(exclude_unset=True, exclude_none=True)

        def txn(conn: Connection) -> JSONBody:
            self._mine(conn, scope, endpoint_id, lock=True)
            values: JSONBody = {**changes, "updated_at": format_time(self._clock())}
            if changes.get("status") == "enabled":
                values |= {"disabled_reason": None, "failing_since": None}
            elif changes.get("status") == "disabled":
                values["disabled_reason"] = "by_request"
            rows.update_endpoint(conn, endpoint_id, **values)
            return endpoint_json(self._mine(conn, scope, endpoint_id))

        answer = self._db.write(txn)
        self.wake()
        return answer

    def rotate(self, scope: Scope, endpoint_id: str, request: RotateInput) -> JSONBody:
        secret = new_secret()

        def txn(conn: Connection) -> JSONBody:
            row = self._mine(conn, scope, endpoint_id, lock=True)
            if row.signature != "v1":
                raise refuse(
                    RefusalCode.INVALID_REQUEST,
                    "A v1a endpoint is signed with the server's webhook key, which its "
                    "operator rotates (accord keys rotate --webhook); it has no secret.",
                    fields={"signature": "v1a has no secret"},
                )
            at = format_time(self._clock())
            rows.insert_secret(
                conn, endpoint_id, secret, at=at, overlap_seconds=request.overlap_seconds
            )
            rows.update_endpoint(conn, endpoint_id, updated_at=at)
            return endpoint_json(self._mine(conn, scope, endpoint_id), secret=secret)

        return self._db.write(txn)

    def test(self, scope: Scope, endpoint_id: str) -> JSONBody:
        """A `webhook.test` event for this endpoint alone, sent at once."""
        event_id = new_token("evt_test")

        def txn(conn: Connection) -> JSONBody:
            self._mine(conn, scope, endpoint_id)
            now = self._clock()
            body = canonical(
                {
                    "id": event_id,
                    "type": rules.TEST_EVENT,
                    "timestamp": format_time(now),
                    "data": {"webhook_id": endpoint_id},
                }
            )
            rows.insert_deliveries(
                conn, [pending_row(endpoint_id, event_id, rules.TEST_EVENT, body, now)]
            )
            return _delivery_json(_read_delivery(conn, endpoint_id, event_id), [])

        answer = self._db.write(txn)
        self.wake()
        return answer

    # -- the delivery log -----------------------------------------------------------------

    def deliveries(
        self,
        scope: Scope,
        endpoint_id: str,
        *,
        status: str | None = None,
        after: str | None = None,
        limit: int = 50,
    ) -> JSONBody:
        if status is not None and status not in DELIVERY_STATUSES:
            raise refuse(
                RefusalCode.INVALID_REQUEST,
                "status is pending, succeeded or failed.",
                fields={"status": "pending, succeeded or failed"},
            )

        def read(conn: Connection) -> JSONBody:
            self._mine(conn, scope, endpoint_id)
            found = rows.endpoint_deliveries(
                conn, endpoint_id, status=status, after=after, limit=limit
            )
            return {"deliveries": [_delivery_json(d, a) for d, a in found]}

        return self._db.read(read)

    def retry(self, scope: Scope, endpoint_id: str, event_id: str) -> JSONBody:
        """The event sent again now, with the same `webhook-id` and body."""

        def txn(conn: Connection) -> JSONBody:
            self._mine(conn, scope, endpoint_id)
            if rows.find_delivery(conn, endpoint_id, event_id) is None:
                raise refuse(
                    RefusalCode.WEBHOOK_NOT_FOUND, "This endpoint has no delivery of that event."
                )
            due = int(self._clock().timestamp() * 1000)
            rows.set_delivery(conn, endpoint_id, event_id, status="pending", due_at=due)
            return _delivery_json(_read_delivery(conn, endpoint_id, event_id), [])

        answer = self._db.write(txn)
        self.wake()
        return answer

    # -- checks ---------------------------------------------------------------------------

    def scope(self, token: str | None) -> Scope:
        """The scope a credential manages endpoints in; checked before anything else."""
        if not token:
            raise refuse(RefusalCode.UNAUTHENTICATED, "Send a credential as a Bearer token.")
        return scope_of(self._db.read(lambda conn: resolve(conn, token, self._credentials)))

    def _mine(
        self, conn: Connection, scope: Scope, endpoint_id: str, *, lock: bool = False
    ) -> rows.EndpointRow:
        row = rows.find_endpoint(conn, endpoint_id, lock=lock)
        if row is None or row.scope != scope.key:
            raise refuse(RefusalCode.WEBHOOK_NOT_FOUND, "No webhook endpoint of yours has this id.")
        return row

    def _check_url(self, url: str) -> None:
        problem = self.url_problem(url)
        if problem is not None:
            raise refuse(
                RefusalCode.INVALID_REQUEST, f"The webhook URL {problem}.", fields={"url": problem}
            )

    def url_problem(self, url: str) -> str | None:
        """What keeps Accord from calling `url` now: its form, or a name that resolves to no
        address or to a private one (unless private addresses are allowed)."""
        allow_private = self._settings.webhook_allow_private
        problem = rules.url_problem(url, allow_private=allow_private)
        if problem is not None or allow_private:
            return problem
        host = urlsplit(url).hostname or ""
        if not rules.all_public(self._resolver(host)):
            return "does not resolve to public addresses only"
        return None


def pending_row(endpoint_id: str, event_id: str, kind: str, body: bytes, now: datetime) -> JSONBody:
    return {
        "endpoint_id": endpoint_id,
        "event_id": event_id,
        "event_type": kind,
        "body": body.decode(),
        "status": "pending",
        "attempts": 0,
        "due_at": int(now.timestamp() * 1000),
        "created_at": format_time(now),
    }


def _read_delivery(conn: Connection, endpoint_id: str, event_id: str) -> rows.DeliveryRow:
    found = rows.find_delivery(conn, endpoint_id, event_id)
    assert found is not None, "read in the transaction that wrote it"
    return found


def _delivery_json(delivery: rows.DeliveryRow, attempts: list[rows.AttemptRow]) -> JSONBody:
    return {
        "event_id": delivery.event_id,
        "event_type": delivery.event_type,
        "status": delivery.status,
        "created_at": delivery.created_at,
        "attempts": [
            {
                "attempt": a.attempt,
                "attempted_at": a.attempted_at,
                "status_code": a.status_code,
                "error": a.error,
                "duration_ms": a.duration_ms,
                "next_attempt_at": a.next_attempt_at,
            }
            for a in attempts
        ],
    }

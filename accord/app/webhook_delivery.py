"""The webhook delivery worker inside `accord serve`: each enabled endpoint's cursor moves over
its audience's events (A7) into the outbox, and due deliveries are sent, signed as sent, and
tried again on Standard Webhooks' schedule until one succeeds.

At least once: a delivery is claimed for a lease before it is sent and recorded after, so a
process that stops in between sends it again once the lease runs out (same `webhook-id`). Each
attempt resolves the endpoint's host again, refuses a private address and connects to the
address it checked, so a name that answers differently a moment later (DNS rebinding) cannot
steer the request inside the network; redirects are never followed."""

import asyncio
import contextlib
import json
import logging
import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import Final

import httpx
from sqlalchemy import Connection, select

from accord import __version__
from accord.app.events import BATCH, events
from accord.app.keys import KeyService
from accord.app.settings import Settings
from accord.app.webhooks import Resolver, audience_of, pending_row, resolve_host
from accord.core.jsonio import canonical
from accord.core.times import format_time, parse_time
from accord.store import webhooks as rows
from accord.store.database import Database
from accord.store.events import EventRow
from accord.store.tables import negotiations
from accord.webhooks import rules
from accord.webhooks.signatures import sign_v1, sign_v1a

log = logging.getLogger("accord.webhooks")

CLAIM: Final = 32
POLL_SECONDS: Final = 1.0
RESCAN_SECONDS: Final = 30.0
PRUNE_SECONDS: Final = 3600.0
PRUNE_BATCH: Final = 500
LEASE_MARGIN_SECONDS: Final = 30.0
RETRY_AFTER_STATUSES: Final = frozenset({429, 503})
NOT_PUBLIC: Final = "not a public address"


@dataclass(frozen=True)
class Target:
    """Where one attempt connects. A name is pinned to the address that was checked: the URL
    holds the address, while `Host` and TLS's server name (whose certificate is verified
    against it) keep the name."""

    url: httpx.URL
    headers: dict[str, str] = field(default_factory=dict)
    extensions: dict[str, str] = field(default_factory=dict)

    @classmethod
    def pinned(cls, url: httpx.URL, address: str) -> "Target":
        return cls(
            url.copy_with(host=address), {"host": url.netloc.decode()}, {"sni_hostname": url.host}
        )


@dataclass(frozen=True)
class Outcome:
    delivery: rows.DeliveryRow
    endpoint: rows.EndpointRow
    attempted_at: datetime
    status_code: int | None
    error: str | None
    duration_ms: int
    retry_after: float | None = None

    @property
    def ok(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


class WebhookDelivery:
    def __init__(
        self,
        db: Database,
        keys: KeyService,
        settings: Settings,
        *,
        clock: Callable[[], datetime],
        resolver: Resolver = resolve_host,
        transport: httpx.AsyncBaseTransport | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self._db = db
        self._keys = keys
        self._settings = settings
        self._clock = clock
        self._resolver = resolver
        self._transport = transport
        self._rng = rng or random.Random()
        self._touched: set[str] | None = None  # None: look at every endpoint
        self._touched_lock = threading.Lock()
        self._wakeup: asyncio.Event | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._look_from: datetime | None = None  # when the outbox is next looked at; None: now
        self._listening: frozenset[str] | None = None
        """The keys the enabled endpoints' audiences follow, as last read; None: read again."""
        self._endpoints_changed = 0
        self._follows: frozenset[str] = frozenset()
        """`_listening` as last read, kept while it is read again."""
        self.changed: Callable[[], None] = lambda: None
        """Called when `follows` answers otherwise (the notifier's, once subscribed)."""

    # -- being told --------------------------------------------------------------------------

    def heard(self, keys: frozenset[str] | None) -> None:
        """A notifier subscriber: a commit touched these keys (None: any). Keys that no
        endpoint follows are let go at once: nothing to queue, so no round to wake."""
        with self._touched_lock:
            if keys is not None and self._listening is not None:
                keys = keys & self._listening
                if not keys:
                    return
            if keys is None:
                self._touched = None
            elif self._touched is not None:
                self._touched |= keys
        self._signal()

    def follows(self) -> frozenset[str]:
        """What the notifier is to hear of: the enabled endpoints' audiences as last read. An
        audience added since is heard of once they are read again: the notifier then tells of
        it once more, and its endpoint's cursor takes every event since."""
        return self._follows

    def wake(self) -> None:
        """An endpoint or a delivery changed (registered, updated, a test event, a manual
        retry): read the endpoints again, and look at the outbox."""
        with self._touched_lock:
            self._look_from = None
            self._listening = None
            self._endpoints_changed += 1
        self._signal()

    def _signal(self) -> None:
        if self._loop is not None and self._wakeup is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._wakeup.set)

    # -- the loop ----------------------------------------------------------------------------

    async def run(self, stop: asyncio.Event) -> None:
        """Rounds until `stop` is set: after a commit, or every second for retries that fall
        due. It stops between rounds, never inside one, so no store call outlives the
        worker (the store may be closed right after)."""
        self._loop = asyncio.get_running_loop()
        self._wakeup = asyncio.Event()
        last_scan = 0.0
        last_prune: float | None = None
        while not stop.is_set():
            if time.monotonic() - last_scan > RESCAN_SECONDS:
                with self._touched_lock:
                    self._touched = None
                last_scan = time.monotonic()
            attempts = 0
            try:
                if last_prune is None or time.monotonic() - last_prune > PRUNE_SECONDS:
                    last_prune = time.monotonic()
                    await asyncio.to_thread(self.prune)
                attempts = await self.round()
            except Exception:  # the worker outlives a bad round; the next one retries
                log.exception("webhook round failed")
            if attempts < CLAIM and not stop.is_set():  # a full round may have left more due
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wakeup.wait(), POLL_SECONDS)
            self._wakeup.clear()

    async def round(self) -> int:
        """Move every cursor, then send what is due; the number of attempts made.

        The outbox is looked at (a write: claims are leases) only when this round queued
        something, a full claim may have left more, or a poll interval has passed since the
        last look (a retry or a lease may have fallen due): not after every commit, where
        it would take the writer once per move for nothing."""
        now = self._clock()
        with self._touched_lock:
            touched, self._touched = self._touched, set()
            due = self._look_from is None or now >= self._look_from
            # An endpoint changed: read them now, so that the process listens on its audience.
            stale = self._listening is None
        made = await asyncio.to_thread(self.enqueue, touched) if touched != set() or stale else 0
        if not (made or due):
            return 0
        with self._touched_lock:  # set before the look, so that a wake during it still counts
            self._look_from = now + timedelta(seconds=POLL_SECONDS)
        claimed = await asyncio.to_thread(self._db.write, self._claim)
        if len(claimed) == CLAIM:  # a full claim may have left more due
            with self._touched_lock:
                self._look_from = None
        if not claimed:
            return 0
        async with httpx.AsyncClient(
            transport=self._transport,
            follow_redirects=False,
            timeout=self._settings.webhook_timeout,
            trust_env=False,
        ) as client:
            outcomes = await asyncio.gather(*(self._send(client, d, e) for d, e in claimed))
        await asyncio.to_thread(self._db.write, lambda conn: self._record(conn, outcomes))
        return len(outcomes)

    def prune(self) -> int:
        """Forget deliveries older than the retention period, with their attempts (in batches,
        so the writer is never held long); how many."""
        before = format_time(self._clock() - timedelta(days=self._settings.retention_days))
        pruned = 0
        while True:
            count = self._db.write(partial(rows.prune, before=before, limit=PRUNE_BATCH))
            pruned += count
            if count < PRUNE_BATCH:
                return pruned

    # -- the outbox ----------------------------------------------------------------------------

    def enqueue(self, touched: set[str] | None = None) -> int:
        """Each enabled endpoint's new events into the outbox (those whose audience a commit
        touched, or all for None); the number of deliveries made. What it reads becomes the
        keys `heard` lets through."""
        with self._touched_lock:
            changed = self._endpoints_changed
        endpoints = self._db.read(rows.enabled_endpoints)
        audiences = [(endpoint.id, audience_of(endpoint.audience)) for endpoint in endpoints]
        follows = frozenset().union(*(a.keys for _, a in audiences))
        with self._touched_lock:
            if self._endpoints_changed == changed:  # not made stale while they were read
                self._listening = follows
            news, self._follows = follows != self._follows, follows
        if news:
            self.changed()
        made = 0
        for endpoint_id, audience in audiences:
            if touched is not None and not (audience.keys & touched):
                continue
            advance = partial(self._advance, endpoint_id=endpoint_id)
            while True:
                count, more = self._db.write(advance)
                made += count
                if not more:
                    break
        return made

    def _advance(self, conn: Connection, *, endpoint_id: str) -> tuple[int, bool]:
        endpoint = rows.find_endpoint(conn, endpoint_id, lock=True)
        if endpoint is None or endpoint.status != "enabled":
            return 0, False
        found = events(conn, audience_of(endpoint.audience), after=endpoint.cursor, limit=BATCH)
        if not found:
            return 0, False
        now = self._clock()
        protocols = _protocols(conn, {r.negotiation_id for r in found if r.negotiation_id})
        pending = []
        for row in found:
            kind, body = event_body(row, protocols.get(row.negotiation_id or ""), now)
            if rules.wanted(endpoint.event_types, kind):
                pending.append(pending_row(endpoint.id, f"evt_{row.id}", kind, body, now))
        rows.insert_deliveries(conn, pending)
        rows.update_endpoint(conn, endpoint.id, cursor=found[-1].id)
        return len(pending), len(found) == BATCH

    def _claim(self, conn: Connection) -> list[tuple[rows.DeliveryRow, rows.EndpointRow]]:
        now_ms = int(self._clock().timestamp() * 1000)
        lease_ms = int((self._settings.webhook_timeout + LEASE_MARGIN_SECONDS) * 1000)
        claimed = []
        for delivery in rows.claim_due(conn, now_ms=now_ms, lease_ms=lease_ms, limit=CLAIM):
            endpoint = rows.find_endpoint(conn, delivery.endpoint_id)
            if endpoint is not None:
                claimed.append((delivery, endpoint))
        return claimed

    # -- sending --------------------------------------------------------------------------------

    async def _send(
        self, client: httpx.AsyncClient, delivery: rows.DeliveryRow, endpoint: rows.EndpointRow
    ) -> Outcome:
        now = self._clock()
        started = time.monotonic()

        def outcome(status: int | None, error: str | None, retry: float | None = None) -> Outcome:
            took = int((time.monotonic() - started) * 1000)
            return Outcome(delivery, endpoint, now, status, error, took, retry)

        target = await asyncio.to_thread(self._target, endpoint.url)
        if target is None:
            return outcome(None, NOT_PUBLIC)
        body = delivery.body.encode()
        timestamp = int(now.timestamp())
        headers = {
            "webhook-id": delivery.event_id,
            "webhook-timestamp": str(timestamp),
            "webhook-signature": " ".join(
                await asyncio.to_thread(
                    self._signatures, endpoint, delivery.event_id, timestamp, body
                )
            ),
            "content-type": "application/json",
            "user-agent": f"Accord-Webhooks/{__version__}",
            **target.headers,
        }
        try:
            response = await client.post(
                target.url, content=body, headers=headers, extensions=target.extensions
            )
        except httpx.TimeoutException:
            return outcome(None, "timeout")
        except httpx.HTTPError as failure:
            return outcome(None, type(failure).__name__)
        retry_after = None
        if response.status_code in RETRY_AFTER_STATUSES:
            retry_after = _seconds(response.headers.get("retry-after"))
        redirect = "redirect not followed" if 300 <= response.status_code < 400 else None
        return outcome(response.status_code, redirect, retry_after)

    def _target(self, url: str) -> Target | None:
        """Where this attempt connects, or None when the endpoint's host is not public now."""
        parsed = httpx.URL(url)
        if self._settings.webhook_allow_private:
            return Target(parsed)
        if rules.is_literal_private(parsed.host):
            return None
        if rules.is_address(parsed.host):
            return Target(parsed)
        addresses = self._resolver(parsed.host)
        if not rules.all_public(addresses):
            return None
        return Target.pinned(parsed, addresses[0])

    def _signatures(
        self, endpoint: rows.EndpointRow, event_id: str, timestamp: int, body: bytes
    ) -> list[str]:
        now = self._clock()
        if endpoint.signature == "v1a":
            signers = self._keys.current().webhook_signers(now)
            return [sign_v1a(key.private, event_id, timestamp, body) for key in signers]
        found = self._db.read(lambda conn: rows.endpoint_secrets(conn, endpoint.id))
        return [sign_v1(s, event_id, timestamp, body) for s in signing_secrets(found, now)]

    # -- recording --------------------------------------------------------------------------------

    def _record(self, conn: Connection, outcomes: Sequence[Outcome]) -> None:
        for outcome in outcomes:
            self._record_one(conn, outcome)

    def _record_one(self, conn: Connection, outcome: Outcome) -> None:
        delivery, at = outcome.delivery, outcome.attempted_at
        endpoint = rows.find_endpoint(conn, delivery.endpoint_id, lock=True)
        assert endpoint is not None
        attempt = rows.last_attempt(conn, endpoint.id, delivery.event_id) + 1
        failed = delivery.attempts + (0 if outcome.ok else 1)
        next_at: datetime | None = None
        when = format_time(at)
        if outcome.ok:
            status = "succeeded"
            rows.update_endpoint(conn, endpoint.id, last_success_at=when, failing_since=None)
        elif outcome.status_code == 410:
            status = "failed"
            rows.update_endpoint(
                conn, endpoint.id, status="disabled", disabled_reason="gone", updated_at=when
            )
        else:
            delay = rules.next_delay(failed, self._rng)
            if delay is not None and outcome.retry_after is not None:
                delay = max(delay, outcome.retry_after)
            status = "pending" if delay is not None else "failed"
            next_at = at + timedelta(seconds=delay) if delay is not None else None
            since = endpoint.failing_since or when
            values: dict[str, object] = {"failing_since": since}
            failing = (at - parse_time(since)).total_seconds()
            if endpoint.status == "enabled" and failing >= rules.FAILING_DISABLE_SECONDS:
                values |= {"status": "disabled", "disabled_reason": "failing", "updated_at": when}
            rows.update_endpoint(conn, endpoint.id, **values)
        rows.insert_attempt(
            conn,
            endpoint.id,
            rows.AttemptRow(
                delivery.event_id,
                attempt,
                when,
                outcome.status_code,
                outcome.error,
                outcome.duration_ms,
                format_time(next_at) if next_at else None,
            ),
        )
        rows.set_delivery(
            conn,
            endpoint.id,
            delivery.event_id,
            status=status,
            attempts=failed,
            due_at=int(next_at.timestamp() * 1000) if next_at else None,
        )


def event_body(row: EventRow, protocol: str | None, now: datetime) -> tuple[str, bytes]:
    """The event's type and its body as sent: RFC 8785 bytes of `{id, type, timestamp, data}`,
    `data` holding the SSE frame's data under `event`."""
    inner = json.loads(row.data)
    kind = rules.event_type(row.kind, inner["type"])
    data: dict[str, object] = {"event": inner}
    if row.negotiation_id is not None:
        data = {"protocol": protocol, "negotiation_id": row.negotiation_id, **data}
    body = {"id": f"evt_{row.id}", "type": kind, "timestamp": format_time(now), "data": data}
    return kind, canonical(body)


def signing_secrets(secrets: Sequence[rows.SecretRow], now: datetime) -> list[str]:
    """The newest secret, and the one before it while the rotation's overlap lasts."""
    if not secrets:
        return []
    newest = secrets[-1]
    signing = [newest.secret]
    if len(secrets) > 1:
        until = parse_time(newest.created_at) + timedelta(seconds=newest.overlap_seconds)
        if now < until:
            signing.append(secrets[-2].secret)
    return signing


def _protocols(conn: Connection, ids: set[str]) -> dict[str, str]:
    if not ids:
        return {}
    query = select(negotiations.c.id, negotiations.c.protocol).where(negotiations.c.id.in_(ids))
    return {row.id: row.protocol for row in conn.execute(query)}


def _seconds(value: str | None) -> float | None:
    """A Retry-After in seconds (an HTTP date is taken as no hint)."""
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None

"""The delivery worker's rules, driven round by round on a test clock with a recording transport
(docs/webhooks.md, Delivery): each attempt checks the address again, redirects are not followed,
Retry-After only delays, five days without a success disable the endpoint, a manual retry sends
the same webhook-id again, and a delivery claimed by a process that stopped is sent once its
lease runs out."""

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import httpx
import pytest
from sqlalchemy import Connection, func, select, text
from sqlalchemy.exc import DBAPIError

from accord.app.identity import SeatCaller
from accord.app.root import Accord
from accord.app.webhook_delivery import Target, WebhookDelivery
from accord.app.webhooks import Scope, Webhooks, audience_of, scope_of
from accord.protocols.rooms.moves import JoinRequest, OpenRequest
from accord.store import webhooks as rows
from accord.store.tables import webhook_attempts
from accord.webhooks import rules
from accord.webhooks.requests import RegisterInput, UpdateInput
from tests.conftest import FakeClock

SCHEMA = {"n": {"type": "int"}}
PUBLIC = ["93.184.215.14"]
URL = "https://hooks.example.com/accord"


@dataclass
class Wire:
    """A transport that answers from a script and records each request."""

    answer: Callable[[httpx.Request], httpx.Response] = lambda _r: httpx.Response(204)
    sent: list[httpx.Request] = field(default_factory=list)

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        return self.answer(request)


@dataclass
class World:
    accord: Accord
    clock: FakeClock
    wire: Wire
    addresses: list[str]
    webhooks: Webhooks

    def worker(self, db: Any = None) -> WebhookDelivery:
        return WebhookDelivery(
            db or self.accord.db,
            self.accord.keys,
            self.accord.settings,
            clock=self.clock,
            resolver=lambda _host: list(self.addresses),
            transport=httpx.MockTransport(self.wire.handle),
        )

    def round(self, worker: WebhookDelivery | None = None) -> int:
        return asyncio.run((worker or self.worker()).round())

    def deliveries(self, endpoint_id: str) -> list[tuple[rows.DeliveryRow, list[rows.AttemptRow]]]:
        return self.accord.db.read(
            lambda conn: rows.endpoint_deliveries(
                conn, endpoint_id, status=None, after=None, limit=100
            )
        )


@pytest.fixture
def world(accord: Accord, clock: FakeClock) -> World:
    addresses = list(PUBLIC)
    webhooks = Webhooks(
        accord.db, accord.settings, clock=clock, resolver=lambda _h: list(addresses)
    )
    return World(accord, clock, Wire(), addresses, webhooks)


def _register(world: World, scope: Scope) -> str:
    made = world.webhooks.register(scope, RegisterInput(url=URL))
    return str(made["webhook_id"])


def _joined_room(world: World) -> tuple[str, Scope]:
    room = world.accord.rooms.open(OpenRequest(subject_schema=SCHEMA, subject={"n": 2}))
    room_id = room["room"]["room_id"]
    scope = scope_of(SeatCaller(room_id, "opener", is_owner=True))
    return room["invite"]["token"], scope


def _with_one_event(world: World) -> tuple[str, Scope]:
    """An endpoint for a room's opener's owner, and one event for it: the room is joined."""
    invite, scope = _joined_room(world)
    endpoint_id = _register(world, scope)
    world.accord.rooms.join(JoinRequest(invite_token=invite))
    return endpoint_id, scope


def test_each_attempt_checks_the_address_again(world: World) -> None:
    endpoint_id, _ = _with_one_event(world)
    world.addresses[:] = ["10.0.0.7"]  # the name now points inside the network
    assert world.round() == 1
    assert world.wire.sent == []  # nothing left for a private address
    ((delivery, attempts),) = world.deliveries(endpoint_id)
    assert (delivery.status, attempts[0].error, attempts[0].status_code) == (
        "pending",
        "not a public address",
        None,
    )
    world.addresses[:] = PUBLIC
    world.clock.advance(seconds=6)
    assert world.round() == 1 and len(world.wire.sent) == 1
    assert world.deliveries(endpoint_id)[0][0].status == "succeeded"


def test_an_attempt_connects_to_the_address_it_checked(world: World) -> None:
    """DNS rebinding: a name that resolves to a public address for the check and to a private
    one for the connection must not reach the private one, so the connection is made to the
    checked address, the name kept for `Host` and for TLS's certificate check."""
    _with_one_event(world)
    answers = iter([PUBLIC, ["10.0.0.7"]])
    worker = WebhookDelivery(
        world.accord.db,
        world.accord.keys,
        world.accord.settings,
        clock=world.clock,
        resolver=lambda _host: next(answers),
        transport=httpx.MockTransport(world.wire.handle),
    )
    assert world.round(worker) == 1
    (sent,) = world.wire.sent
    assert (sent.url.host, sent.url.path) == ("93.184.215.14", "/accord")
    assert sent.headers["host"] == "hooks.example.com"
    assert sent.extensions["sni_hostname"] == "hooks.example.com"
    assert next(answers) == ["10.0.0.7"]  # resolved once per attempt, for the check


@pytest.mark.parametrize(
    ("url", "address", "host"),
    [
        ("https://hooks.example.com:8443/in", "93.184.215.14", "hooks.example.com:8443"),
        ("https://hooks.example.com/in", "2606:2800:220:1::1", "hooks.example.com"),
    ],
)
def test_a_pinned_target_keeps_the_name_and_the_port(url: str, address: str, host: str) -> None:
    target = Target.pinned(httpx.URL(url), address)
    assert target.url.host == address and target.url.path == "/in"
    assert target.url.port == httpx.URL(url).port
    assert target.headers == {"host": host}
    assert target.extensions == {"sni_hostname": "hooks.example.com"}


def test_a_redirect_is_a_failure_and_is_not_followed(world: World) -> None:
    endpoint_id, _ = _with_one_event(world)
    world.wire.answer = lambda _r: httpx.Response(302, headers={"location": "http://10.0.0.1/"})
    world.round()
    assert [str(r.url) for r in world.wire.sent] == ["https://93.184.215.14/accord"]
    ((delivery, attempts),) = world.deliveries(endpoint_id)
    assert (delivery.status, attempts[0].status_code, attempts[0].error) == (
        "pending",
        302,
        "redirect not followed",
    )


def test_retry_after_delays_beyond_the_schedule(world: World) -> None:
    endpoint_id, _ = _with_one_event(world)
    world.wire.answer = lambda _r: httpx.Response(429, headers={"retry-after": "600"})
    world.round()
    world.clock.advance(seconds=30)  # past the schedule's 5 s, not past Retry-After
    assert world.round() == 0
    world.clock.advance(seconds=571)
    assert world.round() == 1
    assert len(world.deliveries(endpoint_id)[0][1]) == 2


def test_ten_failures_end_a_delivery_and_a_manual_retry_sends_the_same_id(world: World) -> None:
    endpoint_id, scope = _with_one_event(world)
    world.wire.answer = lambda _r: httpx.Response(503)
    for delay in rules.SCHEDULE:
        world.clock.advance(seconds=delay * 1.11)
        assert world.round() == 1
    world.clock.advance(days=2)
    assert world.round() == 0
    ((delivery, attempts),) = world.deliveries(endpoint_id)
    assert delivery.status == "failed" and len(attempts) == rules.ATTEMPTS
    assert attempts[-1].next_attempt_at is None

    world.wire.answer = lambda _r: httpx.Response(200)
    world.webhooks.retry(scope, endpoint_id, delivery.event_id)
    assert world.round() == 1
    ids = {r.headers["webhook-id"] for r in world.wire.sent}
    assert ids == {delivery.event_id}
    assert world.deliveries(endpoint_id)[0][0].status == "succeeded"


def test_five_days_without_a_success_disable_the_endpoint(world: World) -> None:
    endpoint_id, scope = _with_one_event(world)
    world.wire.answer = lambda _r: httpx.Response(500)
    world.round()
    world.clock.advance(days=4, hours=23)
    world.webhooks.test(scope, endpoint_id)
    world.round()
    assert world_endpoint(world, endpoint_id).status == "enabled"  # not five days yet
    world.clock.advance(hours=2)
    world.webhooks.test(scope, endpoint_id)
    world.round()
    endpoint = world_endpoint(world, endpoint_id)
    assert (endpoint.status, endpoint.disabled_reason) == ("disabled", "failing")


def world_endpoint(world: World, endpoint_id: str) -> rows.EndpointRow:
    found = world.accord.db.read(lambda conn: rows.find_endpoint(conn, endpoint_id))
    assert found is not None
    return found


@dataclass
class Counted:
    """The store, counting the transactions asked of it."""

    db: Any
    reads: int = 0
    writes: int = 0

    def read(self, fn: Callable[[Connection], Any]) -> Any:
        self.reads += 1
        return self.db.read(fn)

    def write(self, fn: Callable[[Connection], Any]) -> Any:
        self.writes += 1
        return self.db.write(fn)


def test_a_commit_with_nothing_to_send_leaves_the_writer_alone(world: World) -> None:
    """Every commit wakes the worker, but the outbox (a write: a claim is a lease) is looked
    at only when a round queued something, when something was made due now, or once a poll
    interval has passed; and the endpoints are read again only when one changed, so a commit
    that no endpoint follows costs nothing: on a busy server with no endpoint, no transaction
    per move."""
    counted = Counted(world.accord.db)
    worker = world.worker(counted)
    asyncio.run(worker.round())  # the first round reads the endpoints and looks
    looked, read = counted.writes, counted.reads
    invite, _scope = _joined_room(world)
    world.accord.rooms.join(JoinRequest(invite_token=invite))
    for _ in range(3):
        worker.heard(frozenset({"room:any"}))
        assert asyncio.run(worker.round()) == 0
    assert (counted.writes, counted.reads) == (looked, read)
    world.clock.advance(seconds=1)  # a retry may have fallen due since
    asyncio.run(worker.round())
    assert counted.writes == looked + 1
    worker.wake()  # an endpoint registered, a test event, a manual retry
    worker.heard(frozenset({"room:any"}))
    asyncio.run(worker.round())
    assert (counted.writes, counted.reads) == (looked + 2, read + 1)


def test_a_claim_left_by_a_stopped_process_is_sent_after_its_lease(world: World) -> None:
    _with_one_event(world)
    stopped = world.worker()
    stopped.enqueue()
    claimed = world.accord.db.write(stopped._claim)  # the process stops before it sends
    assert len(claimed) == 1
    assert world.round() == 0  # still leased
    world.clock.advance(seconds=world.accord.settings.webhook_timeout + 31)
    assert world.round() == 1
    assert [r.headers["webhook-id"] for r in world.wire.sent] == [claimed[0][0].event_id]


def test_the_body_is_canonical_and_the_same_on_every_attempt(world: World) -> None:
    endpoint_id, _ = _with_one_event(world)
    world.wire.answer = lambda _r: httpx.Response(500)
    world.round()
    world.clock.advance(seconds=6)
    world.round()
    first, second = world.wire.sent
    assert first.content == second.content
    assert first.headers["webhook-id"] == second.headers["webhook-id"]
    assert first.headers["webhook-timestamp"] != second.headers["webhook-timestamp"]
    event: dict[str, Any] = json.loads(first.content)
    assert event["type"] == "envelope.room.joined"
    assert first.content == json.dumps(event, separators=(",", ":"), sort_keys=True).encode()
    assert first.headers["user-agent"].startswith("Accord-Webhooks/")
    assert world.deliveries(endpoint_id)[0][0].event_type == "envelope.room.joined"


def test_nothing_before_registration_is_sent(world: World) -> None:
    invite, scope = _joined_room(world)
    world.accord.rooms.join(JoinRequest(invite_token=invite))  # before the endpoint exists
    endpoint_id = _register(world, scope)
    assert world.round() == 0 and world.deliveries(endpoint_id) == []
    world.webhooks.test(scope, endpoint_id)
    assert world.round() == 1  # the endpoint itself works


def _execute(statement: str, conn: Connection) -> None:
    conn.execute(text(statement))


def test_the_log_is_kept_for_the_retention_period(world: World) -> None:
    endpoint_id, scope = _with_one_event(world)
    world.wire.answer = lambda _r: httpx.Response(500)
    world.round()
    world.clock.advance(seconds=6)
    world.round()  # the old delivery: two attempts
    days = world.accord.settings.retention_days
    world.clock.advance(days=days - 1)
    world.webhooks.test(scope, endpoint_id)
    world.wire.answer = lambda _r: httpx.Response(204)
    world.round()  # a recent delivery, one attempt
    worker = world.worker()
    assert worker.prune() == 0  # nothing older than the period yet
    for statement in ("DELETE FROM webhook_attempts", "UPDATE webhook_attempts SET error = 'x'"):
        with pytest.raises(DBAPIError, match="append-only"):
            world.accord.db.write(partial(_execute, statement))
    world.clock.advance(days=1, seconds=1)
    assert worker.prune() == 1
    ((kept, attempts),) = world.deliveries(endpoint_id)
    assert kept.event_type == "webhook.test" and len(attempts) == 1
    left = world.accord.db.read(
        lambda conn: conn.execute(select(func.count()).select_from(webhook_attempts)).scalar()
    )
    assert left == 1  # the old delivery's attempts went with it


def test_the_worker_follows_the_audiences_it_read_and_keeps_them_while_reading_again(
    world: World,
) -> None:
    """On PostgreSQL a process listens on the channels of what its worker follows: the
    enabled endpoints' audiences, as last read; the notifier is told only when they change."""
    worker = world.worker()
    told: list[frozenset[str]] = []
    worker.changed = lambda: told.append(worker.follows())
    assert worker.follows() == frozenset()
    _invite, scope = _joined_room(world)
    endpoint_id = _register(world, scope)
    worker.enqueue()
    assert (
        told == [audience_of(scope.audience).keys]
        and worker.follows() == audience_of(scope.audience).keys
    )
    worker.wake()  # an endpoint changed: read again, still following the last ones meanwhile
    assert worker.follows() == audience_of(scope.audience).keys
    worker.enqueue()
    assert len(told) == 1  # the same audiences: nothing to listen on anew
    world.webhooks.update(scope, endpoint_id, UpdateInput(status="disabled"))
    worker.wake()
    worker.enqueue()
    assert told[-1] == frozenset() and worker.follows() == frozenset()

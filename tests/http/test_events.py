"""The event stream of each seat over the real server: envelopes and notifications as SSE
frames (`id`, `event`, `data`), resumable with Last-Event-ID, and never the other seat's
private values. Reads wait on the stream itself, with a read timeout, never a sleep."""

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import httpx

from tests.conftest import LiveServer
from tests.http.support import (
    EventStream,
    Frame,
    Room,
    auth,
    move,
    open_room,
    price,
    read_log,
    terms,
    view,
)

READ_TIMEOUT = 10.0
OPENER_FLOOR = 1_234_567
JOINER_CEILING = 1_111_111


@contextmanager
def events(
    client: httpx.Client, room: Room, who: str, last_event_id: int | None = None
) -> Iterator[EventStream]:
    headers = auth(room.token(who))
    if last_event_id is not None:
        headers["Last-Event-ID"] = str(last_event_id)
    with client.stream(
        "GET", f"/v1/rooms/{room.room_id}/events", headers=headers, timeout=READ_TIMEOUT
    ) as response:
        yield EventStream(response)


def kinds(frames: list[Frame]) -> list[tuple[str, str]]:
    return [(f.event, f.data["type"]) for f in frames]


def env(kind: str) -> tuple[str, str]:
    return ("envelope", kind)


def note(kind: str) -> tuple[str, str]:
    return ("notification", kind)


def test_each_seat_streams_its_envelopes_and_notifications(server: LiveServer) -> None:
    with server.client() as client, ExitStack() as stack:
        room = open_room(
            client,
            subject=terms(1_500_000),
            opener_limits={"price": {"min": price(OPENER_FLOOR)}},
            join=False,
        )
        agent = stack.enter_context(events(client, room, "opener_seat"))
        owner = stack.enter_context(events(client, room, "opener_owner"))
        seen: dict[str, list[Frame]] = {"opener_seat": [], "opener_owner": []}
        for who, stream in (("opener_seat", agent), ("opener_owner", owner)):
            seen[who] += stream.take(2)
            assert kinds(seen[who]) == [env("room.opened"), env("move.offer")]

        joined = client.post(
            "/v1/rooms/join",
            json={"invite_token": room.invite, "limits": {"price": {"max": price(JOINER_CEILING)}}},
        )
        assert joined.status_code == 200, joined.text
        j = joined.json()
        room = Room(
            **{
                **room.__dict__,
                "joiner_seat": j["seat_token"],
                "joiner_owner": j["owner_token"],
                "joiner_nonce": j["limits_opening"]["nonce"],
            }
        )
        for who, stream in (("opener_seat", agent), ("opener_owner", owner)):
            got = stream.until("notification", "limits_incompatible")
            assert kinds(got) == [env("room.joined"), note("limits_incompatible")]
            assert got[-1].data["fields"] == ["price"]
            seen[who] += got
        joiner = stack.enter_context(events(client, room, "joiner_seat"))
        joiner_owner = stack.enter_context(events(client, room, "joiner_owner"))
        streams = {
            "opener_seat": agent,
            "opener_owner": owner,
            "joiner_seat": joiner,
            "joiner_owner": joiner_owner,
        }
        for who in ("joiner_seat", "joiner_owner"):
            seen[who] = streams[who].until("notification", "limits_incompatible")
            assert kinds(seen[who]) == [
                env("room.opened"),
                env("move.offer"),
                env("room.joined"),
                note("your_turn"),
                note("limits_incompatible"),
            ]

        def step(expected: dict[str, list[tuple[str, str]]]) -> None:
            for who, wanted in expected.items():
                got = streams[who].take(len(wanted))
                assert kinds(got) == wanted, who
                seen[who] += got

        deadline = "2026-12-05T12:00:00Z"
        countered = move(
            client,
            room,
            "joiner_seat",
            {"type": "counter", "terms": terms(1_000_000), "deadline": deadline},
        )
        assert countered.status_code == 200, countered.text
        to_opener = [env("move.counter"), note("deadline_changed"), note("your_turn")]
        to_joiner = [env("move.counter"), note("deadline_changed")]
        step(
            {
                "opener_seat": to_opener,
                "opener_owner": to_opener,
                "joiner_seat": to_joiner,
                "joiner_owner": to_joiner,
            }
        )
        assert seen["joiner_seat"][-1].data["deadline"] == deadline

        subject_hash = countered.json()["room"]["table"]["subject_hash"]
        asked = move(client, room, "opener_seat", {"type": "approve", "subject_hash": subject_hash})
        assert asked.status_code == 202, asked.text
        step({"opener_owner": [note("confirmation_needed")]})
        confirmation_id = asked.json()["confirmation"]["id"]
        assert seen["opener_owner"][-1].data["confirmation_id"] == confirmation_id

        confirmed = client.post(
            f"/v1/rooms/{room.room_id}/confirmations/{confirmation_id}",
            json={"decision": "confirm"},
            headers=auth(room.opener_owner),
        )
        assert confirmed.status_code == 200, confirmed.text
        # the agent's stream goes straight from your_turn to the approve: no confirmation_needed
        to_joiner = [env("move.approve"), note("your_turn")]
        step(
            {
                "opener_seat": [env("move.approve")],
                "opener_owner": [env("move.approve")],
                "joiner_seat": to_joiner,
                "joiner_owner": to_joiner,
            }
        )
        assert seen["opener_seat"][-1].data["sender"] == {"role": "opener", "via": "confirmed"}

        agreed = move(
            client, room, "joiner_owner", {"type": "approve", "subject_hash": subject_hash}
        )
        assert agreed.status_code == 200, agreed.text
        step({who: [env("move.approve"), env("room.agreed"), note("agreed")] for who in streams})
        log = read_log(client, room)

    for who, frames in seen.items():
        ids = [f.id for f in frames]
        assert ids == sorted(set(ids)), who
        envelopes = [f.data for f in frames if f.event == "envelope"]
        assert envelopes == log, who  # every envelope, in order, as the log has it
        for frame in frames:
            lines = frame.raw.splitlines()
            assert lines[:2] == [f"id: {frame.id}", f"event: {frame.event}"]
            assert len(lines) == 3 and lines[2].startswith("data: {")
            if frame.event == "notification":
                assert frame.data["room_id"] == room.room_id
                assert frame.data["name"] == room.name
    assert [f for f in seen["opener_seat"] if f.data["type"] == "confirmation_needed"] == []
    assert [f for f in seen["joiner_owner"] if f.data["type"] == "confirmation_needed"] == []
    # the other seat's private values never appear in a frame
    for who, secrets in (
        ("opener_seat", (room.joiner_nonce, str(JOINER_CEILING))),
        ("opener_owner", (room.joiner_nonce, str(JOINER_CEILING))),
        ("joiner_seat", (room.opener_nonce, str(OPENER_FLOOR), confirmation_id)),
        ("joiner_owner", (room.opener_nonce, str(OPENER_FLOOR), confirmation_id)),
    ):
        for frame in seen[who]:
            for secret in secrets:
                assert secret not in frame.raw, (who, secret, frame.raw)


def test_resume_with_last_event_id_gets_only_later_events(server: LiveServer) -> None:
    with server.client() as client:
        room = open_room(client)
        for amount, who in ((9000, "joiner_seat"), (9500, "opener_seat"), (9200, "joiner_seat")):
            made = move(client, room, who, {"type": "counter", "terms": terms(amount)})
            assert made.status_code == 200, made.text
        with events(client, room, "joiner_owner") as stream:
            first = stream.until("envelope", "move.counter")
            first += stream.until("envelope", "move.counter")
            first += stream.until("envelope", "move.counter")
        cut = first[len(first) // 2]
        later = [f for f in first if f.id > cut.id]
        assert later
        with events(client, room, "joiner_owner", last_event_id=cut.id) as stream:
            resumed = stream.take(len(later))
        assert resumed == later
        # resuming from the last event waits for the next one
        with events(client, room, "joiner_owner", last_event_id=first[-1].id) as stream:
            made = move(client, room, "opener_owner", {"type": "reject"})
            assert made.status_code == 200, made.text
            got = stream.until("notification", "closed")
        assert kinds(got) == [env("move.reject"), note("closed")]
        assert got[0].id > first[-1].id
        assert got[1].data["by"] == "opener" and got[1].data["move"] == "reject"


def test_expired_after_the_clock_jumps_and_a_read_records_it(server: LiveServer) -> None:
    with server.client() as client:
        room = open_room(client)
        with (
            events(client, room, "opener_seat") as opener,
            events(client, room, "joiner_owner") as joiner,
        ):
            opener.until("envelope", "room.joined")
            joiner.until("notification", "your_turn")
            server.clock.advance(days=8)
            assert view(client, room, "opener_seat")["state"] == "expired"
            for stream in (opener, joiner):
                got = stream.take(2)
                assert kinds(got) == [env("room.expired"), note("expired")]
                assert got[0].data["payload"] == {"reason": "idle"}
                assert got[1].data["reason"] == "idle"
        assert read_log(client, room)[-1]["type"] == "room.expired"


def test_opening_a_stream_after_the_deadline_records_the_expiry(server: LiveServer) -> None:
    with server.client() as client:
        room = open_room(client)
        server.clock.advance(days=8)
        with events(client, room, "joiner_seat") as stream:
            got = stream.until("notification", "expired")
        assert env("room.expired") in kinds(got)
        assert read_log(client, room)[-1]["type"] == "room.expired"


def test_a_refused_stream_request_is_an_error_body(server: LiveServer) -> None:
    with server.client() as client:
        room = open_room(client)
        other = open_room(client)
        got = client.get(f"/v1/rooms/{room.room_id}/events", headers=auth(other.opener_seat))
    assert got.status_code == 403
    assert got.json()["error"]["code"] == "forbidden"

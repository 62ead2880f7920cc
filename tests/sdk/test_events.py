"""A seat's Server-Sent Events through the SDK: from a real server on 127.0.0.1 (every event in
order, resuming after the last one read, a wait that ends at its deadline), and from scripted
streams (frames split anywhere, line breaks that are not SSE's, a dropped stream resumed with
Last-Event-ID)."""

import json
from collections.abc import Iterator
from itertools import islice
from typing import Any

import httpx
import pytest

from accord.sdk import Accord, AccordError, Event, RoomSeat
from tests.sdk.conftest import SCHEMA, Waits, terms

URL = "http://accord.test"


def test_a_seat_reads_its_events_in_order_and_resumes(accord: Accord) -> None:
    opened = accord.rooms.open(SCHEMA, subject=terms(10000))
    joined = accord.rooms.join(opened.invite.token)
    joined.owner.counter(terms(9000))

    first = list(islice(opened.owner.events(), 3))
    assert [e.type for e in first] == ["room.opened", "move.offer", "room.joined"]
    assert [e.event for e in first] == ["envelope"] * 3
    assert [e.id for e in first] == sorted(e.id for e in first)
    assert opened.owner.last_event_id == first[-1].id

    following = opened.owner.next_event(timeout=10)
    assert following is not None and following.type == "move.counter"
    assert following.data["payload"]["terms"] == terms(9000)
    assert opened.owner.last_event_id == following.id
    notice = opened.owner.next_event(timeout=10)
    assert notice is not None and (notice.event, notice.type) == ("notification", "your_turn")

    replayed = next(opened.owner.events(after=first[1].id))
    assert replayed.id == first[2].id  # `after` reads again from any event


def test_a_wait_with_nothing_to_read_ends_with_none(accord: Accord) -> None:
    opened = accord.rooms.open(SCHEMA)
    assert opened.seat.next_event(timeout=10) is not None  # room.opened
    assert opened.seat.next_event(timeout=0.3) is None
    assert opened.seat.next_event(timeout=0) is None


def test_a_bad_token_ends_the_stream_with_a_refusal(accord: Accord) -> None:
    opened = accord.rooms.open(SCHEMA)
    stranger = accord.rooms.seat("seat_nobody", room_id=opened.room.room_id)
    with pytest.raises(AccordError) as caught:
        next(stranger.events())
    assert (caught.value.code, caught.value.status) == ("unauthenticated", 401)


# -- scripted streams -----------------------------------------------------------------------


def frame(event_id: int, data: dict[str, Any], event: str = "envelope") -> str:
    return f"id: {event_id}\nevent: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


class Streams:
    """Answers each stream request with the next list of chunks, and remembers where each
    asked to resume."""

    def __init__(self, *streams: list[str]) -> None:
        self._streams = list(streams)
        self.resumed_after: list[str | None] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.resumed_after.append(request.headers.get("Last-Event-ID"))
        chunks = self._streams.pop(0) if self._streams else []

        def body() -> Iterator[bytes]:
            yield from (c.encode() for c in chunks)

        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=body())


def _seat(streams: Streams, waits: Waits | None = None) -> RoomSeat:
    waits = waits or Waits()
    client = Accord(
        URL, transport=httpx.MockTransport(streams), sleep=waits.sleep, jitter=waits.cap
    )
    return RoomSeat(client, "seat_x", "room_1")


def test_frames_split_anywhere_and_foreign_line_breaks() -> None:
    text = ": accord event stream\n\n" + frame(
        7, {"type": "move.counter", "message": "a\u2028b\x0cc"}
    )
    text += frame(8, {"type": "your_turn"}, event="notification").replace("\n", "\r\n")
    chunks = [text[i : i + 3] for i in range(0, len(text), 3)]  # CRLF split across chunks too
    seat = _seat(Streams(chunks))
    got = list(islice(seat.events(), 2))
    assert [(e.id, e.event, e.type) for e in got] == [
        (7, "envelope", "move.counter"), (8, "notification", "your_turn")
    ]  # fmt: skip
    assert got[0].data["message"] == "a\u2028b\x0cc"


def test_a_dropped_stream_resumes_after_the_last_event() -> None:
    streams = Streams([frame(3, {"type": "a"})], [], [frame(5, {"type": "b"})])
    seat = _seat(streams)
    seat.last_event_id = 2
    got = list(islice(seat.events(), 2))
    assert [e.id for e in got] == [3, 5]
    assert streams.resumed_after == ["2", "3", "3"]


def test_a_wait_opens_an_ended_stream_again_after_a_pause() -> None:
    streams, waits = Streams([": hello\n\n"], [frame(4, {"type": "your_turn"})]), Waits()
    seat = _seat(streams, waits)
    seat.last_event_id = 3
    event = seat.next_event(timeout=30)
    assert event is not None and event.id == 4 and seat.last_event_id == 4
    assert streams.resumed_after == ["3", "3"]
    assert waits.seconds == [0.5]


def test_a_multi_line_data_frame() -> None:
    chunks = ['id: 1\nevent: envelope\ndata: {"type":\ndata:  "x"}\n\n']
    (event,) = islice(_seat(Streams(chunks)).events(), 1)
    assert event == Event(id=1, event="envelope", data={"type": "x"})


@pytest.mark.parametrize(
    "chunks",
    [
        pytest.param(["id: x\ndata: {}\n\n"], id="id_not_a_number"),
        pytest.param(["data: {}\n\n"], id="no_id"),
        pytest.param(["id: 1\ndata: [1]\n\n"], id="data_not_an_object"),
        pytest.param(["id: 1\ndata: {nope\n\n"], id="data_not_json"),
    ],
)
def test_a_frame_accord_does_not_send(chunks: list[str]) -> None:
    with pytest.raises(AccordError) as caught:
        next(_seat(Streams(chunks)).events())
    assert caught.value.code == "invalid_response"


def test_a_stream_that_is_not_an_event_stream() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"hello": "world"})

    client = Accord(URL, transport=httpx.MockTransport(handler))
    with pytest.raises(AccordError) as caught:
        next(RoomSeat(client, "seat_x", "room_1").events())
    assert (caught.value.code, caught.value.status) == ("invalid_response", 200)

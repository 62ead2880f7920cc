"""Builders for the HTTP tests: rooms opened and joined over the wire, snapshots of what a room
holds, and a reader of Server-Sent Events frames."""

import json
import ssl
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import httpx

from accord.core.refusals import RefusalCode
from accord.core.statuses import STATUS_BY_CODE

SCHEMA: dict[str, Any] = {
    "price": {"type": "money", "currency": "EUR"},
    "day": {"type": "date"},
    "qty": {"type": "int", "optional": True},
}

JSONBody = dict[str, Any]


def terms(amount: int, day: str = "2026-12-10") -> JSONBody:
    return {"price": {"amount_minor": amount, "currency": "EUR"}, "day": day}


def price(amount: int) -> JSONBody:
    return {"amount_minor": amount, "currency": "EUR"}


@cache
def _tls() -> ssl.SSLContext:
    return ssl.create_default_context()


def connect(url: str, token: str | None = None, *, timeout: float = 30) -> httpx.Client:
    """A client like LiveServer.client, sharing one SSL context: the tests make many clients,
    and a context of its own costs each one tens of milliseconds."""
    return httpx.Client(base_url=url, headers=auth(token), timeout=timeout, verify=_tls())


def auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


@dataclass(frozen=True)
class Room:
    room_id: str
    name: str
    invite: str
    opener_seat: str
    opener_owner: str
    opener_nonce: str
    joiner_seat: str = ""
    joiner_owner: str = ""
    joiner_nonce: str = ""

    def token(self, who: str) -> str:
        token: str = getattr(self, who)
        assert token, f"{who} has no token in this room"
        return token

    @property
    def moves(self) -> str:
        return f"/v1/rooms/{self.room_id}/moves"


def open_room(
    client: httpx.Client,
    *,
    subject: JSONBody | None = None,
    opener_limits: JSONBody | None = None,
    joiner_limits: JSONBody | None = None,
    join: bool = True,
    **extra: Any,
) -> Room:
    """Open a room (with the opener's offer `subject`, 10000 by default) and join it."""
    body: JSONBody = {"subject_schema": SCHEMA, "subject": subject or terms(10000), **extra}
    if opener_limits is not None:
        body["limits"] = opener_limits
    opened = client.post("/v1/rooms", json=body)
    assert opened.status_code == 201, opened.text
    o = opened.json()
    room = Room(
        room_id=o["room"]["room_id"],
        name=o["room"]["name"],
        invite=o["invite"]["token"],
        opener_seat=o["seat_token"],
        opener_owner=o["owner_token"],
        opener_nonce=o["limits_opening"]["nonce"],
    )
    if not join:
        return room
    join_body: JSONBody = {"invite_token": room.invite}
    if joiner_limits is not None:
        join_body["limits"] = joiner_limits
    joined = client.post("/v1/rooms/join", json=join_body)
    assert joined.status_code == 200, joined.text
    j = joined.json()
    return Room(
        **{
            **room.__dict__,
            "joiner_seat": j["seat_token"],
            "joiner_owner": j["owner_token"],
            "joiner_nonce": j["limits_opening"]["nonce"],
        }
    )


def move(client: httpx.Client, room: Room, who: str, body: Mapping[str, Any]) -> httpx.Response:
    return client.post(room.moves, json=dict(body), headers=auth(room.token(who)))


def read_log(client: httpx.Client, room: Room) -> list[JSONBody]:
    got = client.get(f"/v1/rooms/{room.room_id}/log", headers=auth(room.opener_owner))
    assert got.status_code == 200, got.text
    envelopes: list[JSONBody] = got.json()["envelopes"]
    return envelopes


def view(client: httpx.Client, room: Room, who: str) -> JSONBody:
    got = client.get(f"/v1/rooms/{room.room_id}", headers=auth(room.token(who)))
    assert got.status_code == 200, got.text
    body: JSONBody = got.json()
    return body


def snapshot(client: httpx.Client, room: Room) -> JSONBody:
    """Everything a room shows its seats: the log, both views, both owners' confirmations."""
    shot: JSONBody = {"log": read_log(client, room)}
    for who in ("opener_owner", "joiner_owner"):
        if not getattr(room, who):
            continue
        shot[who] = view(client, room, who)
        pending = client.get(
            f"/v1/rooms/{room.room_id}/confirmations", headers=auth(room.token(who))
        )
        assert pending.status_code == 200, pending.text
        shot[f"{who}_confirmations"] = pending.json()
    return shot


def assert_error(response: httpx.Response, code: str) -> JSONBody:
    """The one error body, with the status the table gives `code`."""
    body = response.json()
    assert set(body) == {"error"}, body
    error: JSONBody = body["error"]
    assert error["code"] == code, body
    assert isinstance(error["message"], str) and error["message"], body
    assert response.status_code == STATUS_BY_CODE[RefusalCode(code)], (response.status_code, body)
    assert response.headers["content-type"].startswith("application/json")
    return error


@dataclass(frozen=True)
class Frame:
    id: int
    event: str
    data: JSONBody
    raw: str


class EventStream:
    """Frames from an open SSE response, read one at a time; a silent stream raises
    httpx.ReadTimeout (the client's read timeout) instead of hanging."""

    def __init__(self, response: httpx.Response) -> None:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        self._lines: Iterator[str] = response.iter_lines()

    def next_frame(self) -> Frame:
        fields: dict[str, str] = {}
        raw: list[str] = []
        for line in self._lines:
            if line == "":
                if fields:
                    return Frame(
                        int(fields["id"]),
                        fields["event"],
                        json.loads(fields["data"]),
                        "\n".join(raw),
                    )
                raw.clear()
                continue
            raw.append(line)
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            assert name in ("id", "event", "data"), line
            assert name not in fields, f"{name} twice in one frame"
            fields[name] = value.removeprefix(" ")
        raise AssertionError("the event stream ended")

    def take(self, count: int) -> list[Frame]:
        return [self.next_frame() for _ in range(count)]

    def until(self, event: str, kind: str) -> list[Frame]:
        """Frames up to and including the first `event` frame whose data has `kind` as type."""
        frames = []
        while True:
            frame = self.next_frame()
            frames.append(frame)
            if frame.event == event and frame.data.get("type") == kind:
                return frames

"""The Authorization header as the bearer dependency reads it, through the real transport: the
scheme is `Bearer` in any case, and anything else opens nothing."""

import httpx
import pytest

from tests.http.support import open_room

CASES = [
    ("Bearer {token}", 200),
    ("bearer {token}", 200),
    ("BEARER {token}", 200),
    ("Basic {token}", 401),
    ("{token}", 401),
    ("Bearer", 401),
    ("", 401),
]


@pytest.mark.parametrize(("header", "status"), CASES, ids=[c[0] or "empty" for c in CASES])
def test_the_bearer_scheme_is_read_from_the_authorization_header(
    client: httpx.Client, header: str, status: int
) -> None:
    room = open_room(client)
    got = client.get(
        f"/v1/rooms/{room.room_id}",
        headers={"Authorization": header.format(token=room.opener_seat)},
    )
    assert got.status_code == status, got.text
    if status == 401:
        assert got.json()["error"]["code"] == "unauthenticated"
    else:
        assert got.json()["room_id"] == room.room_id


def test_without_an_authorization_header_a_room_is_not_shown(client: httpx.Client) -> None:
    room = open_room(client)
    got = client.get(f"/v1/rooms/{room.room_id}")
    assert got.status_code == 401 and got.json()["error"]["code"] == "unauthenticated"

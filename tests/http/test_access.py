"""Every response carries an X-Request-Id, and every request leaves one access log line that
holds no body, credential or query string; `accord serve` prints those lines at INFO."""

import logging
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from tests.http.support import auth, open_room, terms
from tests.http.test_crash import serving

MADE = re.compile(r"[0-9a-f]{12}-[0-9a-f]+")  # the process, then a counter
WAIT = 15.0


class Lines(logging.Handler):
    """The records one logger emits, from whichever thread, with a way to wait for one."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.records: list[logging.LogRecord] = []
        self._changed = threading.Condition()

    def emit(self, record: logging.LogRecord) -> None:
        with self._changed:
            self.records.append(record)
            self._changed.notify_all()

    def wait_for(self, request_id: str) -> logging.LogRecord:
        """The line of the request `request_id` (the server writes it once the response is
        sent, so it may come just after the client has the response)."""

        def found() -> list[logging.LogRecord]:
            return [r for r in self.records if getattr(r, "request_id", None) == request_id]

        with self._changed:
            assert self._changed.wait_for(found, timeout=WAIT), request_id
            [record] = found()
            return record


@pytest.fixture
def lines() -> Iterator[Lines]:
    logger = logging.getLogger("accord.access")
    handler = Lines()
    level = logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)


def _requests() -> list[tuple[str, Callable[[httpx.Client], httpx.Response]]]:
    big = b"{" + b" " * 300_000 + b"}"
    return [
        ("ok", lambda c: c.get("/healthz")),
        ("not_found", lambda c: c.get("/v1/nothing")),
        ("unauthenticated", lambda c: c.get("/v1/rooms/room_x")),
        ("invalid_request", lambda c: c.post("/v1/rooms", content=b"{")),
        ("payload_too_large", lambda c: c.post("/v1/rooms", content=big)),
        ("html_page", lambda c: c.get("/rooms/join")),
    ]


@pytest.mark.parametrize(("name", "call"), _requests(), ids=[n for n, _ in _requests()])
def test_every_response_carries_a_new_request_id(
    client: httpx.Client, name: str, call: Callable[[httpx.Client], httpx.Response]
) -> None:
    first, second = call(client), call(client)
    for answer in (first, second):
        assert MADE.fullmatch(answer.headers["X-Request-Id"]), (name, answer.headers)
    assert first.headers["X-Request-Id"] != second.headers["X-Request-Id"]


@pytest.mark.parametrize(
    ("given", "echoed"),
    [
        pytest.param("trace-42.a_B", True, id="plain_token"),
        pytest.param("x" * 128, True, id="longest"),
        pytest.param("x" * 129, False, id="too_long"),
        pytest.param("two words", False, id="space"),
        pytest.param("a\u00e9", False, id="not_ascii"),
        pytest.param("", False, id="empty"),
    ],
)
def test_a_clients_request_id_is_echoed_only_when_valid(
    client: httpx.Client, given: str, echoed: bool
) -> None:
    answer = client.get("/healthz", headers={b"X-Request-Id": given.encode()})
    if echoed:
        assert answer.headers["X-Request-Id"] == given
    else:
        assert MADE.fullmatch(answer.headers["X-Request-Id"])


def test_one_access_line_per_request_with_no_body_credential_or_query(
    client: httpx.Client, lines: Lines
) -> None:
    room = open_room(client)
    shown = client.get(f"/v1/rooms/{room.room_id}?note=QUERYMARK", headers=auth(room.opener_owner))
    moved = client.post(
        room.moves,
        json={"type": "counter", "terms": terms(9000), "message_id": "BODYMARK"},
        headers=auth(room.joiner_seat),
    )
    missing = client.get("/v1/nothing/here?token=QUERYMARK", headers=auth(room.opener_owner))
    expected = [
        (shown, "GET", "/v1/rooms/{room_id}", 200),
        (moved, "POST", "/v1/rooms/{room_id}/moves", 200),
        (missing, "GET", "/v1/nothing/here", 404),
    ]
    for answer, method, path, status in expected:
        record = lines.wait_for(answer.headers["X-Request-Id"])
        assert (record.method, record.path, record.status) == (method, path, status)  # type: ignore[attr-defined]
        assert isinstance(record.duration_ms, float) and record.duration_ms >= 0  # type: ignore[attr-defined]
        text = record.getMessage()
        assert text.startswith(f"{method} {path} {status} "), text
        assert text.endswith(answer.headers["X-Request-Id"]), text
        for secret in (
            "QUERYMARK",
            "BODYMARK",
            "?",
            room.opener_owner,
            room.joiner_seat,
            room.room_id,
        ):
            assert secret not in text and secret not in str(record.__dict__), (secret, text)
    ids = [answer.headers["X-Request-Id"] for answer, *_ in expected]
    assert sum(getattr(r, "request_id", None) in ids for r in lines.records) == len(ids)


def test_accord_serve_prints_the_access_line_at_info(tmp_path: Path, database_url: str) -> None:
    logs = tmp_path / "serve.log"
    with (
        serving(tmp_path / "data", database_url, logs) as (url, _),
        httpx.Client(base_url=url, timeout=10) as client,
    ):
        client.get("/healthz", headers={"X-Request-Id": "serve-check-1"})
    printed = logs.read_text()
    [line] = [line for line in printed.splitlines() if "serve-check-1" in line]
    assert "INFO" in line and "GET /healthz 200 " in line, printed

"""What one client can make the server do is bounded: the size of a body (refused before it is
read), its shape (depth, members, items), the time a body and the headers may take, and how
long a connection that asks nothing is kept; and while an anonymous client abuses all of it,
the server goes on answering everyone else."""

import dataclasses
import socket
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from accord.app.settings import Settings
from tests.conftest import FakeClock, LiveServer, serve_in_thread
from tests.http.support import SCHEMA, assert_error

LIMIT = 8192
SHORT = 0.5  # the header and body timeouts of the `limited` server, in seconds
WAIT = 15.0  # how long a test waits on a socket before it calls the server stuck


@pytest.fixture
def limited(settings: Settings, clock: FakeClock) -> Iterator[LiveServer]:
    """A server with a small body limit and short timeouts."""
    small = settings.model_copy(
        update=dict(
            max_body_bytes=LIMIT,
            header_timeout=SHORT,
            body_timeout=SHORT,
            keep_alive_timeout=1,
        )
    )
    with serve_in_thread(small, clock) as live:
        yield live


def _connect(server: LiveServer) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.settings.port), timeout=WAIT)
    sock.settimeout(WAIT)  # a server that never answers fails the test, it does not hang it
    return sock


def _until_closed(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


@dataclasses.dataclass(frozen=True)
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes

    @classmethod
    def of(cls, data: bytes) -> "RawResponse":
        head, _, body = data.partition(b"\r\n\r\n")
        status_line, *lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        return cls(int(status_line.split()[1]), headers, body)

    def error_code(self) -> str:
        code: str = httpx.Response(self.status, content=self.body).json()["error"]["code"]
        return code


def _request_head(method: str, path: str, *headers: str) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", "Host: accord.test", *headers, "", ""]
    return "\r\n".join(lines).encode()


# -- size ----------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/v1/rooms", "/v1/rooms/room_x/moves", "/healthz"])
def test_a_declared_length_over_the_limit_is_refused_before_the_body_is_sent(
    limited: LiveServer, path: str
) -> None:
    with _connect(limited) as sock:
        sock.sendall(
            _request_head(
                "POST", path, "Content-Type: application/json", "Content-Length: 100000000"
            )
        )
        answer = RawResponse.of(_until_closed(sock))
    assert (answer.status, answer.error_code()) == (413, "payload_too_large")
    assert answer.headers["connection"] == "close"
    assert answer.headers["x-request-id"]


def test_a_chunked_body_is_refused_as_soon_as_it_passes_the_limit(limited: LiveServer) -> None:
    chunk = b"x" * 1024
    with _connect(limited) as sock:
        sock.sendall(
            _request_head(
                "POST", "/v1/rooms", "Content-Type: application/json", "Transfer-Encoding: chunked"
            )
        )
        for _ in range(LIMIT // len(chunk) + 1):  # past the limit; the body never ends
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        answer = RawResponse.of(_until_closed(sock))
    assert (answer.status, answer.error_code()) == (413, "payload_too_large")


def test_a_body_within_the_limit_is_served(limited: LiveServer) -> None:
    body = b'{"subject_schema": {"n": {"type": "int"}}}'
    padded = body[:-1] + b" " * (LIMIT - len(body)) + b"}"  # exactly the limit
    with limited.client() as client:
        opened = client.post(
            "/v1/rooms", content=padded, headers={"Content-Type": "application/json"}
        )
        assert opened.status_code == 201, opened.text
        over = client.post(
            "/v1/rooms", content=padded + b" ", headers={"Content-Type": "application/json"}
        )
    assert assert_error(over, "payload_too_large")["max_bytes"] == LIMIT


# -- shape ---------------------------------------------------------------------------------


def _members(count: int) -> bytes:
    return b'{"subject_schema": {' + b",".join(b'"f%d": 0' % i for i in range(count)) + b"}}"


@pytest.mark.parametrize(
    ("body", "words"),
    [
        pytest.param(b"[" * 33 + b"]" * 33, "deeper than 32", id="nested_33_deep"),
        pytest.param(b"[" * 100_000, "too deeply", id="nested_past_the_recursion_limit"),
        pytest.param(_members(1001), "more than 1000 members", id="object_of_1001_members"),
        pytest.param(
            b'{"tokens": [' + b",".join([b'"t"'] * 1001) + b"]}",
            "more than 1000 items",
            id="array_of_1001_items",
        ),
    ],
)
def test_a_body_out_of_bounds_is_an_invalid_request(
    client: httpx.Client, body: bytes, words: str
) -> None:
    for path in ("/v1/rooms", "/v1/rooms/list"):
        sent = client.post(path, content=body, headers={"Content-Type": "application/json"})
        assert words in assert_error(sent, "invalid_request")["reason"]


def test_a_large_valid_body_is_parsed_off_the_event_loop_and_served(client: httpx.Client) -> None:
    body = b'{"subject_schema": ' + httpx.Request("GET", "/", json=SCHEMA).content + b"}"
    padded = body[:-1] + b" " * 100_000 + b"}"  # far above the size parsed inline
    opened = client.post("/v1/rooms", content=padded, headers={"Content-Type": "application/json"})
    assert opened.status_code == 201, opened.text


# -- an anonymous client abusing all of it, while others are served -------------------------

HUGE = b"{" + b",".join(b'"k%d": 0' % i for i in range(1_000_000)) + b"}"  # 12 MB
WIDE = _members(20_000)  # within the size limit, past the member bound
DEEP = b"[" * 200_000


def _chunks(data: bytes) -> Iterator[bytes]:
    for start in range(0, len(data), 65536):
        yield data[start : start + 65536]


REFUSED_AT_ONCE = {413, "cut off"}  # the server refused, and may hang up mid-body
ABUSE: list[tuple[str, Any, set[Any]]] = [
    ("/v1/rooms", HUGE, REFUSED_AT_ONCE),
    ("/v1/rooms", HUGE, REFUSED_AT_ONCE),
    ("/v1/rooms/room_x/moves", HUGE, REFUSED_AT_ONCE),
    ("/v1/rooms/room_x/moves", HUGE, REFUSED_AT_ONCE),
    ("/v1/rooms/join", "chunked", REFUSED_AT_ONCE),
    ("/v1/rooms/list", "chunked", REFUSED_AT_ONCE),
    ("/v1/rooms", WIDE, {400}),
    ("/v1/rooms/list", DEEP, {400}),
]
ROUNDS = 3


def _abuse(url: str, path: str, body: Any, outcomes: list[Any]) -> None:
    with httpx.Client(base_url=url, timeout=120) as client:
        for _ in range(ROUNDS):
            content = _chunks(HUGE) if body == "chunked" else body
            try:
                sent = client.post(
                    path, content=content, headers={"Content-Type": "application/json"}
                )
                outcomes.append(sent.status_code)
            except httpx.TransportError:
                outcomes.append("cut off")


def test_healthz_is_answered_while_an_anonymous_client_abuses_sizes_and_shapes(
    server: LiveServer,
) -> None:
    answered: list[int] = []
    stalled: list[str] = []
    outcomes: list[list[Any]] = [[] for _ in ABUSE]
    abusing = threading.Event()
    done = threading.Event()

    def probe() -> None:
        with httpx.Client(base_url=server.url, timeout=5) as client:
            while not done.is_set():
                try:
                    answered.append(client.get("/healthz").status_code)
                except httpx.TimeoutException as exc:
                    stalled.append(repr(exc))
                if answered:
                    abusing.set()

    prober = threading.Thread(target=probe)
    prober.start()
    assert abusing.wait(timeout=30)
    before = len(answered)
    abusers = [
        threading.Thread(target=_abuse, args=(server.url, path, body, seen))
        for (path, body, _), seen in zip(ABUSE, outcomes, strict=True)
    ]
    for abuser in abusers:
        abuser.start()
    for abuser in abusers:
        abuser.join(timeout=300)
    answered_during = len(answered) - before
    done.set()
    prober.join(timeout=30)
    assert not stalled, stalled
    assert set(answered) == {200}
    assert answered_during > 0
    for (path, _, allowed), seen in zip(ABUSE, outcomes, strict=True):
        assert len(seen) == ROUNDS and set(seen) <= allowed, (path, seen)


# -- slow clients --------------------------------------------------------------------------


def test_connections_that_send_nothing_are_closed(limited: LiveServer) -> None:
    idle = [_connect(limited) for _ in range(20)]
    try:
        with limited.client() as client:
            assert client.get("/healthz").status_code == 200
        for sock in idle:
            assert _until_closed(sock) == b""
    finally:
        for sock in idle:
            sock.close()


def test_a_connection_that_trickles_its_headers_is_closed(limited: LiveServer) -> None:
    with _connect(limited) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: accord.test\r\n")  # never the blank line
        assert _until_closed(sock) == b""


def test_a_body_that_does_not_arrive_in_time_is_refused(limited: LiveServer) -> None:
    with _connect(limited) as sock:
        sock.sendall(
            _request_head(
                "POST", "/v1/rooms", "Content-Type: application/json", "Content-Length: 100"
            )
            + b'{"subject_schema": '  # and nothing more
        )
        answer = RawResponse.of(_until_closed(sock))
    assert (answer.status, answer.error_code()) == (408, "request_timeout")
    assert answer.headers["connection"] == "close"


def test_an_idle_connection_after_a_response_is_closed(limited: LiveServer) -> None:
    with _connect(limited) as sock:
        sock.sendall(_request_head("GET", "/healthz"))
        answer = RawResponse.of(_until_closed(sock))  # answered, then closed when idle
    assert answer.status == 200


def test_a_connection_whose_headers_never_end_is_closed_before_they_pile_up(
    server: LiveServer,
) -> None:
    """The default header timeout (10 s) is far away: the size of the head is what closes it."""
    line = b"X-Pad: " + b"a" * 1000 + b"\r\n"
    with _connect(server) as sock:
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: accord.test\r\n")
        with pytest.raises(OSError):  # the server hung up while the headers were still coming
            for _ in range(20_000):  # 20 MB of headers
                sock.sendall(line)

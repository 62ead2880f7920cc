"""FastAPI's own OpenTelemetry never sees a request: with a tracer and a logger provider in
the process, a room opened with private limits and a move through the real transport ask
neither for a tracer or a logger (its spans and records would carry the bodies)."""

from typing import Any

import httpx
import pytest
from opentelemetry import _logs, trace

from tests.http.support import move, open_room, terms


class Provider(trace.TracerProvider, _logs.LoggerProvider):
    """A provider FastAPI takes for a configured one, counting who asks it for what."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def get_tracer(self, *args: Any, **kwargs: Any) -> trace.Tracer:
        self.asked.append("tracer")
        return trace.NoOpTracer()

    def get_logger(self, *args: Any, **kwargs: Any) -> _logs.Logger:
        self.asked.append("logger")
        return _logs.NoOpLogger("fastapi")


def test_no_request_reaches_a_telemetry_provider(
    client: httpx.Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = Provider()
    monkeypatch.setattr(trace, "get_tracer_provider", lambda: provider)
    monkeypatch.setattr(_logs, "get_logger_provider", lambda: provider)
    room = open_room(
        client, opener_limits={"price": {"min": {"amount_minor": 9000, "currency": "EUR"}}}
    )
    moved = move(client, room, "joiner_seat", {"type": "counter", "terms": terms(9000)})
    assert moved.status_code == 200, moved.text
    assert provider.asked == []

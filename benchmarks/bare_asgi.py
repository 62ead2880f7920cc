"""The cheapest HTTP answer uvicorn can give: a bare ASGI app with `/healthz`'s body, no
framework. `rooms_throughput.py` serves it as a ceiling beside Accord's own `/healthz`.

    .venv/bin/python -m uvicorn --app-dir benchmarks bare_asgi:app --port 8001
"""

from typing import Any

BODY = b'{"status":"ok","version":"bare"}'
HEADERS = [(b"content-type", b"application/json"), (b"content-length", str(len(BODY)).encode())]


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
    await send({"type": "http.response.body", "body": BODY})

"""A pinned attempt over real TLS on 127.0.0.1: the connection goes to the checked address while
the certificate is verified against the endpoint's name, so pinning neither weakens TLS nor
breaks a genuine endpoint."""

import asyncio
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
import trustme

from accord.app.webhook_delivery import Target

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def tls_server(ca: trustme.CA, name: str, heard: list[bytes]) -> AsyncIterator[int]:
    """An HTTPS server on 127.0.0.1 with a certificate for `name`, answering 204."""
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert(name).configure_cert(context)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            heard.append(await reader.readuntil(b"\r\n\r\n"))
            writer.write(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n")
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass  # a client that refused the certificate hung up
        finally:
            writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=context)
    async with server:
        yield server.sockets[0].getsockname()[1]


async def _post(ca: trustme.CA, target: Target) -> httpx.Response:
    verify = ssl.create_default_context()
    ca.configure_trust(verify)
    async with httpx.AsyncClient(verify=verify, trust_env=False) as client:
        return await client.post(
            target.url, content=b"{}", headers=target.headers, extensions=target.extensions
        )


async def test_the_certificate_is_checked_against_the_name() -> None:
    ca, heard = trustme.CA(), list[bytes]()
    async with tls_server(ca, "hooks.example.com", heard) as port:
        url = httpx.URL(f"https://hooks.example.com:{port}/in")
        answered = await _post(ca, Target.pinned(url, "127.0.0.1"))
    assert answered.status_code == 204
    (request,) = heard
    assert request.startswith(b"POST /in HTTP/1.1\r\n")
    assert f"host: hooks.example.com:{port}\r\n".encode() in request.lower()


async def test_a_certificate_for_another_name_is_refused() -> None:
    ca, heard = trustme.CA(), list[bytes]()
    async with tls_server(ca, "elsewhere.example.net", heard) as port:
        url = httpx.URL(f"https://hooks.example.com:{port}/in")
        with pytest.raises(httpx.ConnectError, match="certificate"):
            await _post(ca, Target.pinned(url, "127.0.0.1"))
    assert heard == []

"""The UCP profile (spec/arbitrated-rest.md, UCP profile) on a real server: its shape, the
namespace, the capability's spec page, schema and OpenAPI, cacheable and never redirected."""

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from accord.app.settings import Settings
from accord.http.ucp import namespace
from tests.conftest import FakeClock, LiveServer, serve_in_thread

SHOP = "https://shop.example.com"
PATHS = (
    "/.well-known/ucp",
    "/ucp/negotiation/spec",
    "/ucp/negotiation/schema.json",
    "/ucp/negotiation/openapi.json",
)


@contextlib.contextmanager
def _serve(
    tmp_path: Path,
    database_url: str,
    clock: FakeClock,
    *,
    public_url: str | None = None,
    ucp_namespace: str | None = None,
) -> Iterator[LiveServer]:
    own = Settings(
        data_dir=tmp_path / "data",
        database_url=database_url,
        public_url=public_url,
        ucp_namespace=ucp_namespace,
    )
    with serve_in_thread(own, clock) as live:
        yield live


@pytest.fixture
def shop_server(tmp_path: Path, database_url: str, clock: FakeClock) -> Iterator[LiveServer]:
    """A server whose public URL is https://shop.example.com (it still listens on 127.0.0.1)."""
    with _serve(tmp_path, database_url, clock, public_url=SHOP) as live:
        yield live


def test_the_profile_declares_the_capability_under_the_reversed_public_host(
    shop_server: LiveServer,
) -> None:
    with shop_server.client() as client:
        keys = client.get("/.well-known/jwks.json").json()["keys"]
        answer = client.get("/.well-known/ucp")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/json")
    assert answer.json() == {
        "ucp": {
            "version": "2026-01-23",
            "services": {
                "com.example.shop.negotiation": [
                    {
                        "transport": "rest",
                        "endpoint": f"{SHOP}/v1",
                        "schema": f"{SHOP}/ucp/negotiation/openapi.json",
                    }
                ]
            },
            "capabilities": {
                "com.example.shop.shopping.negotiation": [
                    {
                        "version": "2026-09-01",
                        "spec": f"{SHOP}/ucp/negotiation/spec",
                        "schema": f"{SHOP}/ucp/negotiation/schema.json",
                    }
                ]
            },
        },
        "keys": keys,
    }
    assert {key["mode"] for key in keys} == {"live", "test"}


def test_a_configured_namespace_wins(tmp_path: Path, database_url: str, clock: FakeClock) -> None:
    with (
        _serve(
            tmp_path, database_url, clock, public_url=SHOP, ucp_namespace="dev.accord.demo"
        ) as live,
        live.client() as client,
    ):
        ucp = client.get("/.well-known/ucp").json()["ucp"]
    assert list(ucp["services"]) == ["dev.accord.demo.negotiation"]
    assert list(ucp["capabilities"]) == ["dev.accord.demo.shopping.negotiation"]
    assert ucp["services"]["dev.accord.demo.negotiation"][0]["endpoint"] == f"{SHOP}/v1"


def test_without_a_public_url_the_links_point_at_the_listening_address(
    server: LiveServer,
) -> None:
    with server.client() as client:
        ucp = client.get("/.well-known/ucp").json()["ucp"]
    assert list(ucp["services"]) == ["1.0.0.127.negotiation"]
    capability = ucp["capabilities"]["1.0.0.127.shopping.negotiation"][0]
    assert capability["schema"] == f"{server.url}/ucp/negotiation/schema.json"


@pytest.mark.parametrize(
    ("settings", "expected"),
    [
        pytest.param({"public_url": "https://shop.example.com/"}, "com.example.shop", id="host"),
        pytest.param({"public_url": "https://Accord.Example:8443/x"}, "example.accord", id="port"),
        pytest.param({"host": "localhost", "port": 9000}, "localhost", id="no_public_url"),
        pytest.param(
            {"public_url": "https://shop.example.com", "ucp_namespace": "org.acme"},
            "org.acme",
            id="configured",
        ),
    ],
)
def test_namespace(settings: dict[str, object], expected: str) -> None:
    assert namespace(Settings(**settings)) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("slash", ["", "/"], ids=["exact", "trailing_slash"])
def test_every_profile_document_is_cacheable_and_never_redirects(
    shop_server: LiveServer, path: str, slash: str
) -> None:
    with shop_server.client() as client:
        answer = client.get(path + slash, follow_redirects=False)
    assert answer.status_code == 200, answer.text
    assert "location" not in answer.headers
    assert answer.headers["cache-control"] == "public, max-age=300"


def test_the_schema_is_built_from_the_models_and_names_its_own_url(
    shop_server: LiveServer,
) -> None:
    with shop_server.client() as client:
        answer = client.get("/ucp/negotiation/schema.json")
    schema = answer.json()
    assert schema["$id"] == f"{SHOP}/ucp/negotiation/schema.json"
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    defs = schema["$defs"]
    assert {"OpenSessionRequest", "Move", "SessionView", "Receipt"} <= set(defs)
    assert set(defs["OpenSessionRequest"]["required"]) == {"sku", "buyer"}
    assert defs["OpenSessionRequest"]["additionalProperties"] is False
    assert set(defs["Move"]["discriminator"]["mapping"]) == {"offer", "accept", "reject", "reveal"}
    assert "session_token" in defs["SessionView"]["properties"]
    assert "artifact" in defs["Receipt"]["properties"]
    refs = _refs(schema)
    assert refs, "the parts refer to each other"
    assert all(ref.removeprefix("#/$defs/") in defs for ref in refs)


def _refs(node: object) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"]} if isinstance(node.get("$ref"), str) else set()
        return found.union(*(_refs(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(v) for v in node))
    return set()


def test_the_spec_page_describes_the_capability_and_links_the_rest_surface(
    shop_server: LiveServer,
) -> None:
    with shop_server.client() as client:
        page = client.get("/ucp/negotiation/spec")
    assert page.headers["content-type"].startswith("text/html")
    assert "com.example.shop.shopping.negotiation" in page.text
    for link in ("/v1", "/ucp/negotiation/openapi.json", "/ucp/negotiation/schema.json"):
        assert f'href="{SHOP}{link}"' in page.text
    assert "POST /v1/sessions" in page.text


def test_the_openapi_document_is_the_negotiation_service(shop_server: LiveServer) -> None:
    with shop_server.client() as client:
        document = client.get("/ucp/negotiation/openapi.json").json()
    assert document["openapi"].startswith("3.")
    assert document["servers"] == [{"url": SHOP}]
    paths = set(document["paths"])
    assert {"/v1/sessions", "/v1/sessions/{session_id}/messages", "/v1/catalogue"} <= paths
    assert not any(p.startswith("/v1/rooms") for p in paths)
    assert "/.well-known/ucp" not in paths
    schemas = set(document["components"]["schemas"])
    assert {"OpenSessionRequest", "SessionView", "ErrorBody"} <= schemas
    assert "HTTPValidationError" not in schemas and "RoomView" not in schemas
    assert not any(name.startswith("Room") for name in schemas)

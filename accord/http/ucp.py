"""The operator's UCP profile (spec/arbitrated-rest.md, UCP profile): `/.well-known/ucp` declares
the negotiation capability under the operator's own namespace, and the server serves that
capability's `spec` page, JSON Schema and OpenAPI document itself, cacheable and never
redirected."""

import functools
import html
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal

from fastapi import APIRouter, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.routing import APIRoute, RouteContext, iter_route_contexts
from pydantic import TypeAdapter

from accord.app.answers import Receipt, SessionView
from accord.app.root import Accord
from accord.app.settings import Settings
from accord.http import openapi
from accord.protocols.arbitrated.moves import Move, OpenSessionRequest

UCP_VERSION: Final = "2026-01-23"
CAPABILITY_VERSION: Final = "2026-09-01"
CACHE_CONTROL: Final = "public, max-age=300"
SPEC_PATH: Final = "/ucp/negotiation/spec"
SCHEMA_PATH: Final = "/ucp/negotiation/schema.json"
OPENAPI_PATH: Final = "/ucp/negotiation/openapi.json"
JSON_SCHEMA_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"
READS: Final = frozenset({"/v1/me", "/v1/catalogue"})


def namespace(settings: Settings) -> str:
    """The configured namespace, else the public host reversed (`shop.example.com` →
    `com.example.shop`): UCP wants the capability's authority to be the serving host."""
    if settings.ucp_namespace:
        return settings.ucp_namespace
    return ".".join(reversed(settings.public_host.split(".")))


def profile(settings: Settings, keys: Mapping[str, Any]) -> dict[str, Any]:
    base, ns = settings.base_url, namespace(settings)
    return {
        "ucp": {
            "version": UCP_VERSION,
            "services": {
                f"{ns}.negotiation": [
                    {"transport": "rest", "endpoint": f"{base}/v1", "schema": base + OPENAPI_PATH}
                ]
            },
            "capabilities": {
                f"{ns}.shopping.negotiation": [
                    {
                        "version": CAPABILITY_VERSION,
                        "spec": base + SPEC_PATH,
                        "schema": base + SCHEMA_PATH,
                    }
                ]
            },
        },
        "keys": list(keys.get("keys", [])),
    }


_PARTS: Final[tuple[tuple[str, Any, Literal["validation", "serialization"]], ...]] = (
    ("OpenSessionRequest", OpenSessionRequest, "validation"),
    ("Move", Move, "validation"),
    ("SessionView", SessionView, "serialization"),
    ("Receipt", Receipt, "serialization"),
)


def capability_schema(schema_id: str) -> dict[str, Any]:
    """The capability's JSON Schema, made by pydantic from the models the server validates with:
    what a buyer sends (OpenSessionRequest, Move) and what it gets back (SessionView, Receipt),
    one generator for all four so that a shared model is defined once."""
    inputs = [(name, mode, TypeAdapter(model)) for name, model, mode in _PARTS]
    parts, generated = TypeAdapter.json_schemas(inputs, ref_template="#/$defs/{model}")
    defs: dict[str, Any] = generated["$defs"]
    for (name, _mode), part in parts.items():
        defs.setdefault(name, part)  # a model is defined under its own name; a union is not
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "$id": schema_id,
        "title": "Negotiation (arbitrated sessions)",
        "description": "The messages of the shopping.negotiation capability as Accord serves "
        "it: a buyer opens a session on a SKU, moves, and reads the receipt.",
        "anyOf": [{"$ref": f"#/$defs/{name}"} for name, _, _ in _PARTS],
        "$defs": defs,
    }


def service_routes(app: FastAPI) -> list[RouteContext]:
    """The buyer's part of the REST surface, which the negotiation service's OpenAPI
    describes: every session route, and the two merchant reads a buyer's agent uses."""
    return [
        context
        for context in iter_route_contexts(app.routes)
        if isinstance(context.original_route, APIRoute)
        and context.path is not None
        and (context.path in READS or context.path.startswith("/v1/sessions"))
    ]


def service_openapi(app: FastAPI, base_url: str) -> dict[str, Any]:
    """The negotiation service's OpenAPI document: FastAPI's own generator over the service's
    routes, titled as the app is, so it says what the app's own document says of them."""
    return openapi.document(
        title=app.title,
        version=app.version,
        summary=app.summary,
        description=app.description,
        routes=service_routes(app),
        servers=[{"url": base_url}],
    )


def spec_page(settings: Settings) -> str:
    base = html.escape(settings.base_url)
    ns = html.escape(namespace(settings))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<title>{ns}.shopping.negotiation</title></head>
<body>
<h1>{ns}.shopping.negotiation</h1>
<p>Version {CAPABILITY_VERSION}. A buyer's agent negotiates the price of one SKU with the
merchant's hosted policy, under a neutral arbiter that scores every offer for fairness against
an attested reference price. The merchant moves first; each buyer offer gets a verdict and the
merchant's answer in the same call. A session ends agreed, with a receipt the arbiter signs
(Ed25519, detached JWS), or closed, with an unsigned one.</p>
<h2>REST surface</h2>
<p>Service <code>{ns}.negotiation</code> at <a href="{base}/v1">{base}/v1</a>
(<a href="{base}{OPENAPI_PATH}">OpenAPI</a>, messages in the
<a href="{base}{SCHEMA_PATH}">JSON Schema</a>):</p>
<ul>
<li><code>POST /v1/sessions</code> (a publishable key): open a session,
<code>OpenSessionRequest</code> → <code>SessionView</code> with its
<code>session_token</code></li>
<li><code>POST /v1/sessions/{{id}}/messages</code> (the session token): a <code>Move</code>
(offer, accept, reject, reveal) → <code>SessionView</code></li>
<li><code>GET /v1/sessions/{{id}}</code>, <code>…/log</code>: the view and the hash chain</li>
<li><code>GET /v1/sessions/{{id}}/receipt</code>: the <code>Receipt</code> once ended</li>
<li><code>POST /v1/sessions/{{id}}/handoff/claim</code>: the merchant's checkout hand-off
once agreed</li>
</ul>
<p>Signing keys: <a href="{base}/.well-known/jwks.json">{base}/.well-known/jwks.json</a>;
this profile: <a href="{base}/.well-known/ucp">{base}/.well-known/ucp</a>.</p>
</body></html>
"""


class SchemaResponse(JSONResponse):
    media_type = "application/schema+json"


def create_router(settings: Settings) -> APIRouter:
    """The profile's routes for these settings; none of them redirects, with or without a
    trailing slash."""
    router = APIRouter(tags=["ucp"])
    headers = {"Cache-Control": CACHE_CONTROL}
    schema = capability_schema(settings.base_url + SCHEMA_PATH)
    page = spec_page(settings)

    def ucp_profile(request: Request) -> JSONResponse:
        accord: Accord = request.app.state.accord
        return JSONResponse(profile(settings, accord.keys.jwks()), headers=headers)

    def capability_spec() -> HTMLResponse:
        return HTMLResponse(page, headers=headers)

    def capability_json_schema() -> JSONResponse:
        return SchemaResponse(schema, headers=headers)

    @functools.cache  # generating takes a while; the app's routes are fixed once it serves
    def openapi_of(app: FastAPI) -> dict[str, Any]:
        return service_openapi(app, settings.base_url)

    def negotiation_openapi(request: Request) -> JSONResponse:
        return JSONResponse(openapi_of(request.app), headers=headers)

    routes: tuple[tuple[str, Callable[..., Response], str, type[Response]], ...] = (
        (
            "/.well-known/ucp",
            ucp_profile,
            "The UCP profile: the negotiation capability",
            JSONResponse,
        ),
        (SPEC_PATH, capability_spec, "The negotiation capability's spec page", HTMLResponse),
        (SCHEMA_PATH, capability_json_schema, "The capability's JSON Schema", SchemaResponse),
        (OPENAPI_PATH, negotiation_openapi, "The negotiation service's OpenAPI", JSONResponse),
    )
    for path, endpoint, summary, answer in routes:
        router.add_api_route(
            path, endpoint, methods=["GET"], summary=summary, response_class=answer
        )
        router.add_api_route(path + "/", endpoint, methods=["GET"], include_in_schema=False)
    return router

"""The OpenAPI document's promises that schemathesis does not check: no FastAPI validation
error, the one error body for every refusal, and a credential asked for only where one is."""

import tempfile
from pathlib import Path
from typing import Any

import pytest

from accord.app.settings import Settings
from accord.http.app import create_app

PUBLIC = {
    "/v1/rooms",
    "/v1/rooms/join",
    "/v1/rooms/list",
    "/healthz",
    "/.well-known/jwks.json",
    "/.well-known/webhook-keys.json",
    "/.well-known/ucp",
    "/ucp/negotiation/spec",
    "/ucp/negotiation/schema.json",
    "/ucp/negotiation/openapi.json",
}


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as data_dir:
        return create_app(Settings(data_dir=Path(data_dir))).openapi()


def operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(p, m, op) for p, ops in document["paths"].items() for m, op in ops.items()]


def test_no_answer_is_a_fastapi_validation_error(document: dict[str, Any]) -> None:
    assert "HTTPValidationError" not in document["components"]["schemas"]
    assert "ValidationError" not in document["components"]["schemas"]
    for path, method, op in operations(document):
        for status, response in op["responses"].items():
            schema = response.get("content", {}).get("application/json", {}).get("schema", {})
            assert "HTTPValidationError" not in str(schema), (path, method, status)


def test_every_refusal_has_the_one_error_body(document: dict[str, Any]) -> None:
    for path, method, op in operations(document):
        assert "413" in op["responses"], (path, method)  # any request may be too large
        for status, response in op["responses"].items():
            content = response["content"]["application/json"] if status >= "400" else None
            if content is not None:
                assert content["schema"] == {"$ref": "#/components/schemas/ErrorBody"}
                assert content["examples"], (path, method, status)


def test_a_credential_is_asked_for_only_where_one_is_needed(document: dict[str, Any]) -> None:
    for path, method, op in operations(document):
        if path in PUBLIC:
            assert "security" not in op, (path, method)
            assert "401" not in op["responses"], (path, method)
        else:
            assert op["security"], (path, method)
            assert "401" in op["responses"], (path, method)


def test_every_success_body_is_typed(document: dict[str, Any]) -> None:
    untyped = {"/ucp/negotiation/openapi.json", "/ucp/negotiation/schema.json"}
    for path, method, op in operations(document):
        for status, response in op["responses"].items():
            if status < "300" and path not in untyped:
                schemas = [c["schema"] for c in response["content"].values()]
                assert all(s.get("$ref") or s.get("type") == "string" for s in schemas), (
                    path,
                    method,
                    status,
                    schemas,
                )

"""Schemathesis over the whole OpenAPI document, against a real server, with a credential of
the right kind for every operation: no answer is a server error, and every answer's status,
content type and body are the ones the document gives that operation.

The event streams (a room's, a principal's) are called without a credential: an authorized
stream never ends, so only their refusals can be checked here (tests/http/test_events.py and
tests/intro/test_events_http.py read the streams themselves)."""

import tempfile
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import Case
from schemathesis.checks import not_a_server_error
from schemathesis.config import SchemathesisConfig
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from accord.app.settings import Settings
from accord.http.app import create_app
from tests.conftest import LiveServer
from tests.http.credentials import Credentials, make_credentials

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
CONFIG = SchemathesisConfig.from_dict(
    {
        "generation": {"max-examples": 10, "deterministic": True},
        "phases": {"coverage": {"enabled": False}, "stateful": {"enabled": False}},
    }
)


@pytest.fixture(scope="module")
def credentials(shared_server: LiveServer, client: httpx.Client) -> Credentials:
    return make_credentials(shared_server, client, "fuzzed")


def _document() -> dict[str, Any]:
    """The document as the app makes it; a test below holds the served one to it."""
    with tempfile.TemporaryDirectory() as data_dir:
        return create_app(Settings(data_dir=Path(data_dir))).openapi()


DOCUMENT = _document()
schema = schemathesis.openapi.from_dict(DOCUMENT, config=CONFIG)


def test_the_served_document_is_the_one_fuzzed(client: httpx.Client) -> None:
    served = client.get("/openapi.json")
    assert served.status_code == 200
    assert served.json() == DOCUMENT


def credential_for(case: Case[Any], creds: Credentials) -> str | None:
    """The credential that opens `case`'s operation, with its path naming what it opens."""
    path, method = case.operation.path, case.operation.method.upper()
    params = case.path_parameters
    if "{room_id}" in path:
        params["room_id"] = creds.room.room_id
        if path.endswith("/events"):
            return None
        if "/confirmations" in path:
            return creds.room.opener_owner
        return creds.room.opener_seat
    if "{session_id}" in path:
        params["session_id"] = creds.session_id
        if path.endswith(("/handoff", "/reveal")):
            return creds.merchant["secret_test"]
        return creds.session_token
    if path == "/api/events":
        return None
    if path == "/v1/adviser/events":
        return None
    if path.startswith("/v1/adviser/"):
        if "{case_id}" in path:
            params["case_id"] = creds.case_id
        return creds.principal_owner
    if path.startswith("/api/"):
        if "{intent_id}" in path:
            params["intent_id"] = creds.intent_id
        if "{opportunity_id}" in path:
            params["opportunity_id"] = creds.opportunity_id
            if path.endswith("/turns"):
                return creds.principal_agent
        return creds.principal_owner
    if path in ("/v1/sessions", "/v1/me", "/v1/catalogue") or path.startswith("/v1/policies"):
        return creds.merchant["publishable_test" if method == "POST" else "secret_test"]
    return None


@schema.parametrize()
@settings(
    max_examples=10,
    derandomize=True,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_every_answer_is_documented(
    case: Case[Any], credentials: Credentials, shared_server: LiveServer
) -> None:
    token = credential_for(case, credentials)
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    case.call_and_validate(base_url=shared_server.url, headers=headers, checks=CHECKS, timeout=30)

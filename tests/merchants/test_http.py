"""The merchant endpoints through a real server (spec/arbitrated-rest.md, Endpoints): every
route, the key each one takes, and bad input answered with one error body that changes
nothing."""

from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from accord.app.merchants import Merchants
from accord.store.database import Database
from tests.conftest import LiveServer
from tests.http.support import assert_error, auth
from tests.merchants.conftest import (
    DROP,
    POLICY,
    Tenant,
    dump_tables,
    make_tenant,
    policy_body,
)

SKU = "bike-blue-52"
PUT = f"/v1/policies/{SKU}"
JSON_HEADERS = {"Content-Type": "application/json"}


@pytest.fixture
def client(server: LiveServer) -> Any:
    with server.client() as client:
        yield client


def put(client: httpx.Client, key: str, body: Any, sku: str = SKU) -> httpx.Response:
    return client.put(f"/v1/policies/{sku}", json=body, headers=auth(key))


@pytest.mark.parametrize(
    ("who", "kind", "mode"),
    [
        ("pk_test", "publishable", "test"),
        ("pk_live", "publishable", "live"),
        ("sk_test", "secret", "test"),
        ("sk_live", "secret", "live"),
    ],
)
def test_me_names_the_keys_tenant_mode_and_kind(
    client: httpx.Client, acme: Tenant, who: str, kind: str, mode: str
) -> None:
    got = client.get("/v1/me", headers=auth(getattr(acme, who)))
    assert got.status_code == 200, got.text
    assert got.json() == {"tenant_id": acme.tenant_id, "mode": mode, "key_kind": kind}


def test_a_policy_from_put_to_catalogue(client: httpx.Client, acme: Tenant) -> None:
    stored = put(client, acme.sk_test, policy_body(sku=DROP))
    assert stored.status_code == 200, stored.text
    assert stored.json() == POLICY  # the sku from the path; the merchant's own floor included

    listed = client.get("/v1/policies", headers=auth(acme.sk_test))
    assert listed.status_code == 200, listed.text
    assert listed.json() == {"policies": [POLICY]}

    for key in (acme.pk_test, acme.sk_test):
        catalogue = client.get("/v1/catalogue", headers=auth(key))
        assert catalogue.status_code == 200, catalogue.text
        assert catalogue.json() == {
            "items": [
                {
                    "sku": SKU,
                    "description": "Blue city bike, 52 cm frame",
                    "list_price_minor": 49900,
                    "currency": "EUR",
                    "inclusions": ["free_shipping", "helmet"],
                }
            ]
        }
        assert "floor" not in catalogue.text and "41900" not in catalogue.text


def test_inactive_policies_stay_out_of_the_catalogue(client: httpx.Client, acme: Tenant) -> None:
    assert put(client, acme.sk_live, policy_body(active=False)).status_code == 200
    assert put(client, acme.sk_live, policy_body(sku="b"), sku="b").status_code == 200
    catalogue = client.get("/v1/catalogue", headers=auth(acme.pk_live)).json()
    assert [item["sku"] for item in catalogue["items"]] == ["b"]
    policies = client.get("/v1/policies", headers=auth(acme.sk_live)).json()["policies"]
    assert [(p["sku"], p["active"]) for p in policies] == [("b", True), (SKU, False)]


def test_a_put_replaces_and_returns_the_stored_policy(client: httpx.Client, acme: Tenant) -> None:
    assert put(client, acme.sk_test, policy_body()).status_code == 200
    again = put(client, acme.sk_test, policy_body(floor_minor=42000, max_rounds=8))
    assert again.status_code == 200, again.text
    assert again.json() == policy_body(floor_minor=42000, max_rounds=8)
    policies = client.get("/v1/policies", headers=auth(acme.sk_test)).json()["policies"]
    assert policies == [policy_body(floor_minor=42000, max_rounds=8)]


def test_a_test_key_sees_only_test_data_and_a_tenant_only_its_own(
    client: httpx.Client, merchants: Merchants, acme: Tenant
) -> None:
    globex = make_tenant(merchants, "globex")
    assert put(client, acme.sk_test, policy_body()).status_code == 200
    for key in (acme.sk_live, globex.sk_test, globex.sk_live):
        assert client.get("/v1/policies", headers=auth(key)).json() == {"policies": []}
        assert client.get("/v1/catalogue", headers=auth(key)).json() == {"items": []}
    for key in (acme.pk_live, globex.pk_test):
        assert client.get("/v1/catalogue", headers=auth(key)).json() == {"items": []}
    # The same SKU in the live mode and at another tenant are policies of their own.
    assert put(client, acme.sk_live, policy_body(floor_minor=1)).status_code == 200
    assert put(client, globex.sk_test, policy_body(floor_minor=2)).status_code == 200
    floors = {
        key: client.get("/v1/policies", headers=auth(key)).json()["policies"][0]["floor_minor"]
        for key in (acme.sk_test, acme.sk_live, globex.sk_test)
    }
    assert floors == {acme.sk_test: 38000, acme.sk_live: 1, globex.sk_test: 2}


def test_a_rotated_key_opens_nothing(
    client: httpx.Client, merchants: Merchants, acme: Tenant
) -> None:
    rotated = merchants.rotate_keys("acme", "secret")
    assert_error(client.get("/v1/me", headers=auth(acme.sk_test)), "unauthenticated")
    new = client.get("/v1/me", headers=auth(rotated["keys"]["secret_test"]))
    assert new.json()["tenant_id"] == acme.tenant_id


@dataclass(frozen=True)
class Case:
    method: str
    path: str
    who: str | None
    code: str
    body: bytes | dict[str, Any] | list[Any] | None = None
    detail: str | None = None  # "reason" or "fields" for invalid_request
    names: tuple[str, ...] = ()  # the fields `fields` must name
    headers: dict[str, str] = field(default_factory=lambda: dict(JSON_HEADERS))


def _bad(changes: dict[str, Any], *names: str, path: str = PUT) -> Case:
    return Case("PUT", path, "sk_test", "invalid_request", policy_body(**changes), "fields", names)


def _raw(body: bytes, who: str | None = "sk_test") -> Case:
    code = "invalid_request" if who == "sk_test" else "unauthenticated"
    return Case("PUT", PUT, who, code, body, "reason" if who == "sk_test" else None)


CASES = [
    # unauthenticated and forbidden, on every route, before the body is looked at
    pytest.param(Case("GET", "/v1/me", None, "unauthenticated"), id="me_without_key"),
    pytest.param(Case("GET", "/v1/me", "unknown", "unauthenticated"), id="me_unknown_key"),
    pytest.param(Case("GET", "/v1/me", "retired", "unauthenticated"), id="me_retired_key"),
    pytest.param(Case("GET", "/v1/catalogue", None, "unauthenticated"), id="catalogue_no_key"),
    pytest.param(
        Case("GET", "/v1/catalogue", "unknown", "unauthenticated"), id="catalogue_unknown_key"
    ),
    pytest.param(Case("GET", "/v1/policies", None, "unauthenticated"), id="policies_no_key"),
    pytest.param(
        Case("GET", "/v1/policies", "retired", "unauthenticated"), id="policies_retired_key"
    ),
    pytest.param(Case("GET", "/v1/policies", "pk_test", "forbidden"), id="policies_publishable"),
    pytest.param(Case("GET", "/v1/policies", "pk_live", "forbidden"), id="policies_pk_live"),
    pytest.param(Case("PUT", PUT, None, "unauthenticated", POLICY), id="put_without_key"),
    pytest.param(Case("PUT", PUT, "unknown", "unauthenticated", POLICY), id="put_unknown_key"),
    pytest.param(Case("PUT", PUT, "retired", "unauthenticated", POLICY), id="put_retired_key"),
    pytest.param(Case("PUT", PUT, "pk_test", "forbidden", POLICY), id="put_publishable"),
    pytest.param(_raw(b'{"sku": ', who=None), id="put_malformed_without_key"),
    pytest.param(
        Case("PUT", PUT, "pk_test", "forbidden", b'{"sku": '), id="put_malformed_publishable"
    ),
    # strict JSON
    pytest.param(_raw(b'{"sku": '), id="malformed_json"),
    pytest.param(_raw(b'{"sku": "a", "sku": "b"}'), id="duplicate_key"),
    pytest.param(_raw(b'{"list_price_minor": NaN}'), id="nan"),
    pytest.param(_raw(b'{"list_price_minor": 9007199254740993}'), id="unsafe_integer"),
    pytest.param(
        Case("PUT", PUT, "sk_test", "invalid_request", b"", "fields", ("body",)), id="empty_body"
    ),
    # the model
    pytest.param(
        Case("PUT", PUT, "sk_test", "invalid_request", [POLICY], "fields"), id="body_not_object"
    ),
    pytest.param(_bad({"currency": DROP}, "currency"), id="missing_member"),
    pytest.param(_bad({"margin": 5}, "margin"), id="unknown_member"),
    pytest.param(_bad({"list_price_minor": "49900"}, "list_price_minor"), id="price_as_string"),
    pytest.param(_bad({"list_price_minor": 499.5}, "list_price_minor"), id="price_as_float"),
    pytest.param(_bad({"active": 1}, "active"), id="int_for_bool"),
    pytest.param(_bad({"concession": {"style": "tough"}}, "concession.style"), id="bad_style"),
    pytest.param(_bad({"fair_band": 0.05}, "fair_band"), id="band_as_number"),
    # the rules
    pytest.param(_bad({"floor_minor": 44105}, "floor_minor"), id="floor_at_band_top"),
    pytest.param(
        _bad({"reference_price_minor": 49900, "floor_minor": 49900}, "floor_minor"),
        id="floor_at_list_price",
    ),
    pytest.param(_bad({"currency": "ZZZ"}, "currency"), id="unknown_currency"),
    pytest.param(_bad({"fair_band": "1"}, "fair_band"), id="band_of_one"),
    pytest.param(_bad({"max_rounds": 0}, "max_rounds"), id="no_rounds"),
    pytest.param(_bad({"sku": "bike-red-52"}, "sku"), id="sku_other_than_path"),
    pytest.param(_bad({"sku": DROP}, "sku", path="/v1/policies/%20bike"), id="bad_sku_in_path"),
    pytest.param(
        _bad({"handoff__checkout_url": "http://shop.example.com/"}, "handoff.checkout_url"),
        id="checkout_over_http",
    ),
    # routes and methods
    pytest.param(Case("GET", PUT, "sk_test", "method_not_allowed"), id="get_one_policy"),
    pytest.param(Case("DELETE", PUT, "sk_test", "method_not_allowed"), id="delete_policy"),
    pytest.param(
        Case("POST", "/v1/catalogue", "pk_test", "method_not_allowed", POLICY), id="post_catalogue"
    ),
]


def _token(acme: Tenant, retired: str, who: str | None) -> str | None:
    match who:
        case None:
            return None
        case "unknown":
            return "acc_sk_test_" + "0" * 43
        case "retired":
            return retired
        case _:
            return str(getattr(acme, who))


@pytest.mark.parametrize("case", CASES)
def test_bad_requests_get_one_error_body_and_change_nothing(
    client: httpx.Client, db: Database, merchants: Merchants, acme: Tenant, case: Case
) -> None:
    old_secret = acme.sk_test
    rotated = merchants.rotate_keys("acme", "secret")
    acme = Tenant(acme.tenant_id, acme.name, {**acme.keys, **rotated["keys"]})
    assert put(client, acme.sk_test, policy_body(floor_minor=30000)).status_code == 200
    before = dump_tables(db)
    headers = {**case.headers, **auth(_token(acme, old_secret, case.who))}
    content = case.body if isinstance(case.body, bytes) else None
    json_body = None if isinstance(case.body, bytes) else case.body
    response = client.request(
        case.method, case.path, headers=headers, content=content, json=json_body
    )
    error = assert_error(response, case.code)
    if case.detail is not None:
        assert case.detail in error, error
    for name in case.names:
        assert name in error["fields"], error
    assert dump_tables(db) == before

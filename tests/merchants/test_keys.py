"""Tenants and keys (spec/arbitrated-rest.md, Tenants and keys), through the service: four
keys with their prefixes, stored only as hashes, retired by a rotation, each seeing only its
own tenant and mode."""

import re
from typing import Any

import pytest
from sqlalchemy import text

from accord.app.identity import MerchantCaller
from accord.app.merchants import ANY_KEY, SECRET_KEY, Merchants
from accord.app.tokens import hash_token
from accord.core.refusals import Refused
from accord.protocols.arbitrated.policy import PolicyRequest
from accord.store.database import Database
from tests.conftest import START, FakeClock
from tests.merchants.conftest import Tenant, dump_tables, make_tenant, policy_body

PREFIXES = {
    "publishable_test": "acc_pk_test_",
    "publishable_live": "acc_pk_live_",
    "secret_test": "acc_sk_test_",
    "secret_live": "acc_sk_live_",
}


def _code(excinfo: pytest.ExceptionInfo[Refused]) -> str:
    return str(excinfo.value.refusal.code)


def test_a_tenant_gets_four_keys_with_their_prefixes(merchants: Merchants) -> None:
    made = merchants.create_tenant("acme")
    assert set(made) == {"tenant_id", "keys"}
    assert re.fullmatch(r"ten_[0-9a-f]{20}", made["tenant_id"])
    assert set(made["keys"]) == set(PREFIXES)
    for name, key in made["keys"].items():
        assert key.startswith(PREFIXES[name])
        assert re.fullmatch(r"[A-Za-z0-9_-]{43}", key.removeprefix(PREFIXES[name]))  # 256 bits
    assert len(set(made["keys"].values())) == 4


@pytest.mark.parametrize(
    ("name", "kind", "mode"),
    [
        ("publishable_test", "publishable", "test"),
        ("publishable_live", "publishable", "live"),
        ("secret_test", "secret", "test"),
        ("secret_live", "secret", "live"),
    ],
)
def test_each_key_authenticates_as_its_kind_and_mode(
    merchants: Merchants, acme: Tenant, name: str, kind: str, mode: str
) -> None:
    access = merchants.authenticate(acme.keys[name], allow=ANY_KEY)
    assert access == MerchantCaller(acme.tenant_id, mode, kind)  # type: ignore[arg-type]  # literals from the table
    assert merchants.me(access) == {"tenant_id": acme.tenant_id, "mode": mode, "key_kind": kind}


def test_keys_are_stored_only_as_hashes(db: Database, merchants: Merchants, acme: Tenant) -> None:
    rotated = merchants.rotate_keys("acme", "secret")
    keys = [*acme.keys.values(), *rotated["keys"].values()]
    with db.read_engine.connect() as conn:
        stored = set(conn.execute(text("SELECT key_hash FROM tenant_keys")).scalars())
        everything = " ".join(
            str(row)
            for table in ("tenants", "tenant_keys", "policies")
            for row in conn.execute(text(f"SELECT * FROM {table}"))
        )
    assert stored == {hash_token(key) for key in keys}
    for key in keys:
        assert key not in everything
        assert key.split("_", 3)[3] not in everything


@pytest.mark.parametrize(
    ("token", "allow", "code"),
    [
        pytest.param(None, ANY_KEY, "unauthenticated", id="no_key"),
        pytest.param("", ANY_KEY, "unauthenticated", id="empty_key"),
        pytest.param("acc_sk_test_" + "A" * 43, ANY_KEY, "unauthenticated", id="unknown_key"),
        pytest.param("acc_st_test_" + "A" * 43, ANY_KEY, "unauthenticated", id="session_token"),
        pytest.param("pk_test", SECRET_KEY, "forbidden", id="publishable_key_for_secret_only"),
        pytest.param("pk_live", SECRET_KEY, "forbidden", id="publishable_live_for_secret_only"),
    ],
)
def test_refused_keys(
    merchants: Merchants, acme: Tenant, token: str | None, allow: frozenset[str], code: str
) -> None:
    if token in ("pk_test", "pk_live"):
        token = getattr(acme, token)
    with pytest.raises(Refused) as refused:
        merchants.authenticate(token, allow=allow)
    assert _code(refused) == code


def test_rotation_retires_the_old_keys_of_that_kind_only(
    merchants: Merchants, acme: Tenant, clock: FakeClock
) -> None:
    clock.advance(hours=1)
    rotated = merchants.rotate_keys("acme", "secret")
    assert rotated["tenant_id"] == acme.tenant_id
    assert set(rotated["keys"]) == {"secret_test", "secret_live"}
    for old in (acme.sk_test, acme.sk_live):
        with pytest.raises(Refused) as refused:
            merchants.authenticate(old, allow=ANY_KEY)
        assert _code(refused) == "unauthenticated"
    assert merchants.authenticate(rotated["keys"]["secret_live"], allow=SECRET_KEY).mode == "live"
    assert merchants.authenticate(acme.pk_test, allow=ANY_KEY).key_kind == "publishable"

    keys = merchants.describe_tenant("acme")["keys"]
    assert len(keys) == 6
    retired = [(k["kind"], k["mode"]) for k in keys if k["retired_at"] is not None]
    assert sorted(retired) == [("secret", "live"), ("secret", "test")]
    assert {k["retired_at"] for k in keys if k["retired_at"]} == {"2026-11-30T13:00:00Z"}


def test_rotating_again_retires_the_rotated_keys(merchants: Merchants, acme: Tenant) -> None:
    first = merchants.rotate_keys("acme", "publishable")
    second = merchants.rotate_keys("acme", "publishable")
    with pytest.raises(Refused):
        merchants.authenticate(first["keys"]["publishable_test"], allow=ANY_KEY)
    access = merchants.authenticate(second["keys"]["publishable_test"], allow=ANY_KEY)
    assert access.key_kind == "publishable"


def test_the_listing_shows_metadata_never_keys(merchants: Merchants, acme: Tenant) -> None:
    globex = make_tenant(merchants, "globex")
    listed = merchants.list_tenants()
    assert [t["name"] for t in listed] == ["acme", "globex"]
    assert listed[0] == {
        "tenant_id": acme.tenant_id,
        "name": "acme",
        "created_at": START.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "keys": listed[0]["keys"],
    }
    assert {(k["kind"], k["mode"]) for k in listed[0]["keys"]} == {
        (kind, mode) for kind in ("publishable", "secret") for mode in ("test", "live")
    }
    assert all(set(k) == {"kind", "mode", "created_at", "retired_at"} for k in listed[0]["keys"])
    text_ = str(listed)
    for key in (*acme.keys.values(), *globex.keys.values()):
        assert key not in text_
        assert hash_token(key) not in text_


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("", id="empty"),
        pytest.param("a" * 65, id="longer_than_64"),
        pytest.param("-acme", id="starting_with_a_dash"),
        pytest.param("acme shop", id="with_a_space"),
        pytest.param("acmé", id="not_ascii"),
        pytest.param("acme/shop", id="with_a_slash"),
    ],
)
def test_bad_tenant_names_are_refused(db: Database, merchants: Merchants, name: str) -> None:
    before = dump_tables(db)
    with pytest.raises(Refused) as refused:
        merchants.create_tenant(name)
    assert _code(refused) == "invalid_request"
    assert refused.value.refusal.details["fields"].keys() == {"name"}
    assert dump_tables(db) == before


def test_a_name_is_taken_once(db: Database, merchants: Merchants, acme: Tenant) -> None:
    before = dump_tables(db)
    with pytest.raises(Refused) as refused:
        merchants.create_tenant("acme")
    assert _code(refused) == "invalid_request"
    assert dump_tables(db) == before


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        pytest.param("nobody", "secret", id="unknown_tenant"),
        pytest.param("acme", "session", id="unknown_kind"),
    ],
)
def test_bad_rotations_change_nothing(
    db: Database, merchants: Merchants, acme: Tenant, name: str, kind: str
) -> None:
    before = dump_tables(db)
    with pytest.raises(Refused) as refused:
        merchants.rotate_keys(name, kind)
    assert _code(refused) == "invalid_request"
    assert dump_tables(db) == before
    with pytest.raises(Refused):
        merchants.describe_tenant("nobody")


def _put(
    merchants: Merchants, key: str, sku: str = "bike-blue-52", **changes: object
) -> dict[str, Any]:
    access = merchants.authenticate(key, allow=SECRET_KEY)
    return merchants.put_policy(access, sku, PolicyRequest.model_validate(policy_body(**changes)))


def test_modes_are_separate(merchants: Merchants, acme: Tenant) -> None:
    _put(merchants, acme.sk_test)
    test = merchants.authenticate(acme.sk_test, allow=SECRET_KEY)
    live = merchants.authenticate(acme.sk_live, allow=SECRET_KEY)
    live_pk = merchants.authenticate(acme.pk_live, allow=ANY_KEY)
    assert [p["sku"] for p in merchants.list_policies(test)["policies"]] == ["bike-blue-52"]
    assert merchants.list_policies(live) == {"policies": []}
    assert merchants.catalogue(live_pk) == {"items": []}
    assert merchants.get_policy(acme.tenant_id, "live", "bike-blue-52") is None
    assert merchants.get_policy(acme.tenant_id, "test", "bike-blue-52") is not None


def test_tenants_are_separate(merchants: Merchants, acme: Tenant, globex: Tenant) -> None:
    _put(merchants, acme.sk_live)
    theirs = merchants.authenticate(globex.sk_live, allow=SECRET_KEY)
    assert merchants.list_policies(theirs) == {"policies": []}
    assert merchants.catalogue(theirs) == {"items": []}
    assert merchants.get_policy(globex.tenant_id, "live", "bike-blue-52") is None
    _put(merchants, globex.sk_live, description="Globex's own bike")
    mine = merchants.get_policy(acme.tenant_id, "live", "bike-blue-52")
    assert mine is not None and mine.description == "Blue city bike, 52 cm frame"


def test_a_put_replaces_the_policy(merchants: Merchants, acme: Tenant) -> None:
    _put(merchants, acme.sk_test)
    stored = _put(merchants, acme.sk_test, floor_minor=40000, active=False)
    assert stored["floor_minor"] == 40000
    policy = merchants.get_policy(acme.tenant_id, "test", "bike-blue-52")
    assert policy is not None and policy.floor_minor == 40000 and not policy.active
    access = merchants.authenticate(acme.sk_test, allow=SECRET_KEY)
    assert len(merchants.list_policies(access)["policies"]) == 1
    assert merchants.catalogue(access) == {"items": []}


def test_the_service_refuses_policies_to_a_publishable_key(
    db: Database, merchants: Merchants, acme: Tenant
) -> None:
    """Even when an adapter forgot to ask for a secret key."""
    access = merchants.authenticate(acme.pk_test, allow=ANY_KEY)
    before = dump_tables(db)
    body = PolicyRequest.model_validate(policy_body())
    with pytest.raises(Refused) as refused:
        merchants.put_policy(access, "bike-blue-52", body)
    assert _code(refused) == "forbidden"
    with pytest.raises(Refused) as refused:
        merchants.list_policies(access)
    assert _code(refused) == "forbidden"
    assert dump_tables(db) == before

"""Merchants as a service (spec/arbitrated-rest.md, Tenants and keys; Policy): tenants and their
keys for the CLI, and what a merchant key may read and write over the API.

A tenant has four keys, publishable and secret in test and live mode, stored only as hashes.
A key's mode is the mode of everything it reads and writes; another tenant's data, or the
other mode's, is invisible. Rotating a kind retires both of its keys at once.
"""

from collections.abc import Callable, Sequence
from datetime import datetime
from functools import partial
from typing import Any, Final, TypeVar

from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError

from accord.app.identity import (
    KEY_KINDS,
    MERCHANT_KEY_PREFIX,
    MODES,
    CredentialCache,
    KeyKind,
    MerchantCaller,
    Mode,
    resolve,
)
from accord.app.names import check_name
from accord.app.settings import Settings
from accord.app.tokens import hash_token, new_id, new_token
from accord.core.jsonio import canonical, parse_canonical
from accord.core.refusals import RefusalCode, Refused, refuse
from accord.core.times import format_time
from accord.protocols.arbitrated.policy import Policy, PolicyRequest, policy_for_path
from accord.store import merchants as rows
from accord.store.database import Database

ANY_KEY: Final = frozenset(KEY_KINDS)
SECRET_KEY: Final = frozenset({"secret"})

JSONBody = dict[str, Any]
T = TypeVar("T")


class Merchants:
    def __init__(self, db: Database, settings: Settings, *, clock: Callable[[], datetime]) -> None:
        self._db = db
        self._settings = settings
        self._clock = clock
        self._credentials = CredentialCache()

    # -- keys ----------------------------------------------------------------------------

    def authenticate(self, token: str | None, *, allow: frozenset[str]) -> MerchantCaller:
        """unauthenticated (no key, an unknown one, a retired one) → forbidden (another kind of
        credential, or a key kind that may not do this), as for every credential. Keys are not
        cached: a rotation takes effect on the next request in every process."""
        if not token:
            raise refuse(
                RefusalCode.UNAUTHENTICATED, "Send your merchant key as a Bearer credential."
            )
        found = self._db.read(partial(resolve, token=token, cache=self._credentials))
        if found is None:
            raise refuse(
                RefusalCode.UNAUTHENTICATED,
                "This key opens nothing: it is unknown or was rotated. Use a current key.",
            )
        if not isinstance(found, MerchantCaller):
            raise refuse(
                RefusalCode.FORBIDDEN,
                "This credential is not a merchant key; use your publishable or secret key.",
            )
        if found.key_kind not in allow:
            raise refuse(
                RefusalCode.FORBIDDEN,
                f"A {found.key_kind} key may not do this; use your secret key.",
                allowed=sorted(allow),
            )
        return found

    def create_tenant(self, name: str) -> JSONBody:
        """A new tenant with its four keys, which are shown only now."""
        check_name(name, noun="tenant")
        tenant_id = new_id("ten")
        keys = {f"{kind}_{mode}": _new_key(kind, mode) for kind in KEY_KINDS for mode in MODES}

        def txn(conn: Connection) -> None:
            if rows.find_tenant(conn, name) is not None:
                raise _name_taken(name)
            now = format_time(self._clock())
            rows.insert_tenant(conn, tenant_id, name, now)
            for kind in KEY_KINDS:
                for mode in MODES:
                    key = keys[f"{kind}_{mode}"]
                    rows.insert_key(conn, hash_token(key), tenant_id, kind=kind, mode=mode, now=now)

        try:
            self._db.write(txn)
        except IntegrityError:  # the same name, created at the same moment elsewhere
            raise _name_taken(name) from None
        return {"tenant_id": tenant_id, "keys": keys}

    def rotate_keys(self, name: str, kind: str) -> JSONBody:
        """New keys of one kind for both modes, shown only now; the old ones are retired at
        once and authenticate nothing from then on."""
        chosen = _kind(kind)
        keys = {f"{chosen}_{mode}": _new_key(chosen, mode) for mode in MODES}

        def txn(conn: Connection) -> str:
            tenant = self._tenant(conn, name)
            now = format_time(self._clock())
            rows.retire_keys(conn, tenant.id, chosen, now)
            for mode in MODES:
                key_hash = hash_token(keys[f"{chosen}_{mode}"])
                rows.insert_key(conn, key_hash, tenant.id, kind=chosen, mode=mode, now=now)
            return tenant.id

        return {"tenant_id": self._db.write(txn), "keys": keys}

    def list_tenants(self) -> list[JSONBody]:
        """Every tenant with its keys' metadata (never a key, nor its hash)."""

        def read(conn: Connection) -> list[JSONBody]:
            tenants = rows.all_tenants(conn)
            return _describe(tenants, rows.keys_of(conn, [t.id for t in tenants]))

        return self._db.read(read)

    def describe_tenant(self, name: str) -> JSONBody:
        """One tenant as `list_tenants` shows it."""

        def read(conn: Connection) -> list[JSONBody]:
            tenant = self._tenant(conn, name)
            return _describe([tenant], rows.keys_of(conn, [tenant.id]))

        return self._db.read(read)[0]

    # -- the API -------------------------------------------------------------------------

    def me(self, access: MerchantCaller) -> JSONBody:
        return {"tenant_id": access.tenant_id, "mode": access.mode, "key_kind": access.key_kind}

    def put_policy(self, access: MerchantCaller, sku: str, body: PolicyRequest) -> JSONBody:
        """Store the policy for `sku` in the key's mode, replacing any; returns it as stored
        (the floor included: this is the merchant reading its own data)."""
        _require_secret(access)
        decided = policy_for_path(body, sku)
        if not isinstance(decided, Policy):
            raise Refused(decided)
        stored = _policy_json(decided)

        def txn(conn: Connection) -> None:
            now = format_time(self._clock())
            text = canonical(stored).decode()
            rows.save_policy(conn, access.tenant_id, access.mode, sku, body=text, now=now)

        self._db.write(txn)
        return stored

    def get_policy(self, tenant_id: str, mode: str, sku: str) -> Policy | None:
        """The stored policy, active or not (the caller decides), for the session engine."""
        row = self._db.read(partial(rows.find_policy, tenant_id=tenant_id, mode=mode, sku=sku))
        return _load_policy(row.body) if row is not None else None

    def list_policies(self, access: MerchantCaller) -> JSONBody:
        _require_secret(access)
        found = self._db.read(
            partial(rows.policies_of, tenant_id=access.tenant_id, mode=access.mode)
        )
        return {"policies": [_policy_json(_load_policy(row.body)) for row in found]}

    def catalogue(self, access: MerchantCaller) -> JSONBody:
        """The active policies of the key's tenant and mode, with nothing private in them."""
        found = self._db.read(
            partial(rows.policies_of, tenant_id=access.tenant_id, mode=access.mode)
        )
        items = []
        for row in found:
            policy = _load_policy(row.body)
            if not policy.active:
                continue
            items.append(
                {
                    "sku": policy.sku,
                    "description": policy.description,
                    "list_price_minor": policy.list_price_minor,
                    "currency": policy.currency,
                    "inclusions": [inclusion.kind for inclusion in policy.inclusions],
                }
            )
        return {"items": items}

    def _tenant(self, conn: Connection, name: str) -> rows.TenantRow:
        tenant = rows.find_tenant(conn, name)
        if tenant is None:
            raise refuse(
                RefusalCode.INVALID_REQUEST,
                f"No tenant is named {name!r}; `accord merchants list` shows them.",
                fields={"name": "the name of an existing tenant"},
            )
        return tenant


def _new_key(kind: KeyKind, mode: Mode) -> str:
    return new_token(f"{MERCHANT_KEY_PREFIX[kind]}_{mode}")


def _kind(value: str) -> KeyKind:
    for kind in KEY_KINDS:
        if value == kind:
            return kind
    raise refuse(
        RefusalCode.INVALID_REQUEST,
        "A key kind is publishable or secret.",
        fields={"kind": "publishable or secret"},
        allowed=list(KEY_KINDS),
    )


def _name_taken(name: str) -> Refused:
    return refuse(
        RefusalCode.INVALID_REQUEST,
        f"A tenant named {name!r} exists; choose another name, or rotate its keys with "
        "`accord merchants keys NAME --rotate KIND`.",
        fields={"name": "a name no tenant has"},
    )


def _require_secret(access: MerchantCaller) -> None:
    """Policies hold the floor: only a secret key reads or writes them, whatever the
    adapter checked before."""
    if access.key_kind != "secret":
        raise refuse(
            RefusalCode.FORBIDDEN, "Policies need your secret key.", allowed=sorted(SECRET_KEY)
        )


def _describe(tenants: Sequence[rows.TenantRow], keys: Sequence[rows.KeyRow]) -> list[JSONBody]:
    by_tenant: dict[str, list[JSONBody]] = {t.id: [] for t in tenants}
    for key in keys:
        by_tenant[key.tenant_id].append(
            {
                "kind": key.kind,
                "mode": key.mode,
                "created_at": key.created_at,
                "retired_at": key.retired_at,
            }
        )
    return [
        {
            "tenant_id": t.id,
            "name": t.name,
            "created_at": t.created_at,
            "keys": by_tenant[t.id],
        }
        for t in tenants
    ]


def _policy_json(policy: Policy) -> JSONBody:
    body: JSONBody = policy.model_dump(mode="json")
    return {"sku": body.pop("sku"), **body}


def _load_policy(text: str) -> Policy:
    return Policy.model_validate(parse_canonical(text.encode()))

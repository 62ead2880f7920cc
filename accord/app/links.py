"""Link codes (interfaces A4): a person's credential (a room's owner token, a principal's owner
key, a buyer's session token) handed on once, to a browser or a Telegram chat, without the
credential ever travelling in a URL Accord serves.

The code is 32 base64url characters (192 random bits) and travels in a URL fragment or in
Telegram's `start` parameter. The store keeps its hash and the credential sealed (AES-GCM)
under a key derived from the code itself: what the store holds opens nothing without the code,
and the credential is never written in the clear. A used, expired or unknown code is one
refusal, `link_invalid`, so a guess learns nothing."""

import base64
import hashlib
import os
import secrets
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final, Literal

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from sqlalchemy import Connection

from accord.app.identity import (
    Caller,
    CredentialCache,
    CredentialKind,
    PrincipalCaller,
    SeatCaller,
    SessionCaller,
    resolve,
)
from accord.app.settings import Settings
from accord.app.tokens import hash_token
from accord.core.refusals import RefusalCode, Refused, refuse
from accord.core.times import format_time, parse_time
from accord.store import links as rows
from accord.store.database import Database

LINK_TTL: Final = timedelta(hours=1)
OWNER_LINK_TTL: Final = timedelta(hours=72)
CODE_BYTES: Final = 24  # 32 base64url characters
Channel = Literal["web", "telegram"]

JSONBody = dict[str, Any]


@dataclass(frozen=True)
class Redeemed:
    """What a code handed on: the credential itself and whom it stands for."""

    token: str
    caller: Caller


def sealing_key(purpose: bytes, secret: str) -> bytes:
    """An AES-256 key for one purpose, derived from a secret the store does not hold."""
    return hashlib.sha256(b"accord " + purpose + b" v1\x00" + secret.encode()).digest()


def seal_with(key: bytes, token: str, bound_to: str) -> str:
    """`token` sealed (AES-GCM) under `key`, opening only alongside `bound_to`."""
    nonce = os.urandom(12)
    sealed = AESGCM(key).encrypt(nonce, token.encode(), bound_to.encode())
    return base64.urlsafe_b64encode(nonce + sealed).decode()


def unseal_with(key: bytes, sealed: str, bound_to: str) -> str | None:
    """The sealed token, or None when the key or `bound_to` is not the one it was sealed with."""
    raw = base64.urlsafe_b64decode(sealed)
    try:
        opened = AESGCM(key).decrypt(raw[:12], raw[12:], bound_to.encode())
    except InvalidTag:
        return None
    return opened.decode()


def seal(code: str, token: str) -> str:
    return seal_with(sealing_key(b"link", code), token, hash_token(code))


def unseal(code: str, sealed: str) -> str | None:
    return unseal_with(sealing_key(b"link", code), sealed, hash_token(code))


def handed_on(caller: Caller | None) -> Caller:
    """The credentials a person may hand on with a link: a room's owner token, a principal's
    owner key, a buyer's session token."""
    if caller is None:
        raise refuse(RefusalCode.UNAUTHENTICATED, "This credential opens nothing; check it.")
    match caller:
        case SeatCaller(is_owner=True) | PrincipalCaller(level="owner") | SessionCaller():
            return caller
    raise refuse(
        RefusalCode.FORBIDDEN,
        "Only a person's own credential makes a link: a room's owner token, a principal's "
        "owner key or a buyer's session token.",
    )


class Links:
    def __init__(self, db: Database, settings: Settings, *, clock: Callable[[], datetime]) -> None:
        self._db = db
        self._settings = settings
        self._clock = clock
        self._credentials = CredentialCache()
        self.telegram_bot: str | None = settings.telegram_bot
        """The bot's username once the Telegram door knows it: codes then come with a
        `telegram_url` too."""

    def check(self, token: str | None) -> str:
        """The credential, once it is one a person may hand on."""
        if not token:
            raise refuse(RefusalCode.UNAUTHENTICATED, "Send your credential as a Bearer token.")
        handed_on(self._db.read(lambda conn: resolve(conn, token, self._credentials)))
        return token

    def mint(self, token: str) -> JSONBody:
        """`POST /v1/links`: a code for the credential that asks, valid for an hour."""

        def txn(conn: Connection) -> JSONBody:
            caller = handed_on(resolve(conn, token, self._credentials))
            return self.mint_in(conn, token, caller, ttl=LINK_TTL)

        return self._db.write(txn)

    def mint_in(self, conn: Connection, token: str, caller: Caller, *, ttl: timedelta) -> JSONBody:
        """A code for `token` in the caller's transaction (an owner link made as a room is
        opened or joined)."""
        code = secrets.token_urlsafe(CODE_BYTES)
        now = self._clock()
        expires_at = format_time(now + ttl)
        rows.insert_link(
            conn,
            rows.LinkRow(
                code_hash=hash_token(code),
                kind=str(caller.kind),
                negotiation_id=getattr(caller, "negotiation_id", None),
                party=getattr(caller, "party", None),
                principal_id=getattr(caller, "principal_id", None),
                sealed=seal(code, token),
                created_at=format_time(now),
                expires_at=expires_at,
                used_at=None,
                used_by=None,
            ),
        )
        return {"code": code, **self.urls(code), "expires_at": expires_at}

    def urls(self, code: str) -> JSONBody:
        """Where a person redeems a code: the claim page, the code in the fragment; and the
        bot's deep link, the code as its `start` parameter, when Telegram is on."""
        urls = {"web_url": f"{self._settings.base_url}/claim#{code}"}
        if self.telegram_bot:
            urls["telegram_url"] = f"https://t.me/{self.telegram_bot}?start={code}"
        return urls

    def redeem(
        self, code: str, channel: Channel, *, kinds: Collection[CredentialKind] | None = None
    ) -> Redeemed:
        """The credential the code hands on, once; `link_invalid` for a used, expired or
        unknown code (and for a credential that no longer opens anything). A door that serves
        only some `kinds` leaves a code for another kind unused (`not_found`)."""
        result = self._db.write(lambda conn: self.redeem_in(conn, code, channel, kinds=kinds))
        if isinstance(result, Refused):
            raise result
        return result

    def redeem_in(
        self,
        conn: Connection,
        code: str,
        channel: Channel,
        *,
        kinds: Collection[CredentialKind] | None = None,
    ) -> Redeemed | Refused:
        """`redeem` in the caller's transaction (a chat bound as the code is used)."""
        invalid = refuse(
            RefusalCode.LINK_INVALID,
            "This link cannot be used: it was used, has expired or is unknown. Make a new one.",
        )
        code_hash = hash_token(code)
        found = rows.find_link(conn, code_hash)
        now = self._clock()
        if found is None or found.used_at is not None or parse_time(found.expires_at) <= now:
            return invalid
        if kinds is not None and found.kind not in kinds:
            return refuse(
                RefusalCode.NOT_FOUND,
                "This link opens something these pages do not show; it is still valid, "
                "so use it where it was meant for.",
            )
        token = unseal(code, found.sealed)
        caller = resolve(conn, token, self._credentials) if token else None
        if token is None or caller is None:
            return invalid
        if not rows.use_link(conn, code_hash, at=format_time(now), by=channel):
            return invalid
        return Redeemed(token, caller)

    def redemptions(self, negotiation_id: str) -> list[JSONBody]:
        """When and where each link made for a negotiation was redeemed (the room's page)."""
        found = self._db.read(lambda conn: rows.negotiation_links(conn, negotiation_id))
        return [
            {"party": r.party, "created_at": r.created_at, "used_at": r.used_at, "via": r.used_by}
            for r in found
        ]

"""Signing keys: Ed25519, a test key and a live key for receipts and one key for webhook
signatures (`use: webhook`, so that no receipt verifier trusts what it signs), kept in a keyring
file outside the database with owner-only permissions; rotation keeps retired public keys
published."""

import contextlib
import fcntl
import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Final, Literal

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from accord.core.times import format_time, parse_time
from accord.trust.encoding import b64url, b64url_decode

Mode = Literal["test", "live"]
Use = Literal["receipt", "webhook"]
MODES: Final[tuple[Mode, ...]] = ("test", "live")
KEYRING_NAME: Final = "keyring.json"
WEBHOOK_MODE: Final[Mode] = "live"  # one webhook key signs for both modes
WEBHOOK_OVERLAP_SECONDS: Final = 86_400


def kid_for(public: bytes) -> str:
    """receipts.md, Keys: "ed25519-" + the first 16 hex digits of SHA-256(raw public key)."""
    return "ed25519-" + hashlib.sha256(public).hexdigest()[:16]


def public_bytes(key: Ed25519PrivateKey) -> bytes:
    return key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


@dataclass(frozen=True)
class SigningKey:
    kid: str
    mode: Mode
    status: Literal["active", "retired"]
    created_at: str
    private: Ed25519PrivateKey
    use: Use = "receipt"

    @property
    def public(self) -> bytes:
        return public_bytes(self.private)

    def public_jwk(self) -> dict[str, str]:
        return {
            "kty": "OKP",
            "crv": "Ed25519",
            "x": b64url(self.public),
            "kid": self.kid,
            "alg": "EdDSA",
            "use": "sig",
            "mode": self.mode,
        }

    @classmethod
    def generate(cls, mode: Mode, created_at: str, use: Use = "receipt") -> "SigningKey":
        private = Ed25519PrivateKey.generate()
        return cls(kid_for(public_bytes(private)), mode, "active", created_at, private, use)


@dataclass(frozen=True)
class Keyring:
    path: Path
    keys: tuple[SigningKey, ...]

    def active(self, mode: Mode, use: Use = "receipt") -> SigningKey:
        for key in reversed(self.keys):
            if key.mode == mode and key.use == use and key.status == "active":
                return key
        raise LookupError(f"no active {use} {mode} key in {self.path}")

    def jwks(self) -> dict[str, list[dict[str, str]]]:
        """Every key whose receipts must still verify: the active ones and the retired ones."""
        return {"keys": [key.public_jwk() for key in self.keys if key.use == "receipt"]}

    def webhook_keys(self) -> tuple[SigningKey, ...]:
        """The webhook keys, oldest first."""
        return tuple(key for key in self.keys if key.use == "webhook")

    def webhook_signers(self, now: datetime) -> tuple[SigningKey, ...]:
        """The keys that sign a webhook now: the active one, and for a day after a rotation
        the one it replaced, so that receivers can move to the new key without a gap."""
        keys = self.webhook_keys()
        if not keys:
            return ()
        newest = keys[-1]
        since = (now - parse_time(newest.created_at)).total_seconds()
        if len(keys) > 1 and since < WEBHOOK_OVERLAP_SECONDS:
            return (newest, keys[-2])
        return (newest,)


def keyring_path(key_file: Path | None, data_dir: Path) -> Path:
    if key_file is None:
        return data_dir / "keys" / KEYRING_NAME
    if key_file.is_dir() or str(key_file).endswith(os.sep):
        return key_file / KEYRING_NAME
    return key_file


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """Processes that start together create or rotate the keyring one after the other."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _read(path: Path) -> tuple[SigningKey, ...]:
    if not path.exists():
        return ()
    data = json.loads(path.read_text())
    keys = []
    for item in data["keys"]:
        private = Ed25519PrivateKey.from_private_bytes(b64url_decode(item["d"]))
        key = SigningKey(
            item["kid"],
            item["mode"],
            item["status"],
            item["created_at"],
            private,
            item.get("use", "receipt"),  # keyrings from before webhook keys hold receipt keys
        )
        if kid_for(key.public) != key.kid:
            raise ValueError(f"{path}: key {item['kid']} does not match its private half")
        keys.append(key)
    return tuple(keys)


def _write(path: Path, keys: tuple[SigningKey, ...]) -> None:
    items: list[dict[str, Any]] = [
        {
            "kid": key.kid,
            "mode": key.mode,
            "status": key.status,
            "created_at": key.created_at,
            "use": key.use,
            "d": b64url(key.private.private_bytes_raw()),
            "x": b64url(key.public),
        }
        for key in keys
    ]
    temporary = path.with_name(path.name + ".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        json.dump({"keys": items}, handle, indent=2)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)


def load_keyring(path: Path, *, now: datetime) -> Keyring:
    """The keyring at `path`, creating a test and a live receipt key and a webhook key when
    one is missing."""
    with _locked(path):
        keys = _read(path)
        wanted: list[tuple[Mode, Use]] = [(m, "receipt") for m in MODES]
        missing = [
            (mode, use)
            for mode, use in (*wanted, (WEBHOOK_MODE, "webhook"))
            if not any(k.mode == mode and k.use == use and k.status == "active" for k in keys)
        ]
        if missing:
            created = format_time(now)
            keys += tuple(SigningKey.generate(mode, created, use) for mode, use in missing)
            _write(path, keys)
        if path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)
        return Keyring(path, keys)


def rotate(path: Path, mode: Mode, *, now: datetime, use: Use = "receipt") -> Keyring:
    """A new active key for `mode` (or the webhook key); the old one is retired and stays
    published."""
    load_keyring(path, now=now)
    if use == "webhook":
        mode = WEBHOOK_MODE
    with _locked(path):
        keys = tuple(
            replace(k, status="retired")
            if k.mode == mode and k.use == use and k.status == "active"
            else k
            for k in _read(path)
        )
        keys += (SigningKey.generate(mode, format_time(now), use),)
        _write(path, keys)
        return Keyring(path, keys)


class Keys:
    """The keyring as this process sees it, read again whenever the file changes (a rotation
    by `accord keys rotate` reaches a running server without a restart)."""

    def __init__(self, path: Path, *, now: datetime) -> None:
        self.path = path
        self._keyring = load_keyring(path, now=now)
        self._stamp = self._stat()

    def _stat(self) -> tuple[int, int]:
        stat = self.path.stat()
        return stat.st_mtime_ns, stat.st_ino

    def current(self) -> Keyring:
        stamp = self._stat()
        if stamp != self._stamp:
            with _locked(self.path):
                self._keyring = Keyring(self.path, _read(self.path))
            self._stamp = stamp
        return self._keyring

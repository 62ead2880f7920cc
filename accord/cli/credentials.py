"""The CLI's credentials file: the room tokens that `accord rooms open` and `join` receive,
keyed by room id, readable only by their owner (mode 0600) and replaced atomically.

Shape on disk: `{room_id: {seat, seat_token, owner_token, name, server}}`.
"""

import contextlib
import json
import os
import stat
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Final

DEFAULT_PATH: Final = Path("~/.config/accord/credentials.json")
_MEMBERS: Final = ("seat", "seat_token", "owner_token", "name", "server")


class TokenKind(StrEnum):
    """Which of a seat's two tokens a command uses: the owner's (the person) or the agent's."""

    OWNER = "owner"
    AGENT = "agent"


class CredentialsError(Exception):
    """The credentials file cannot be read or written; the message says what to do."""


@dataclass(frozen=True)
class Credential:
    """One seat's tokens for one room; the tokens stay out of `repr`, so out of tracebacks."""

    seat: str
    seat_token: str = field(repr=False)
    owner_token: str = field(repr=False)
    name: str
    server: str

    def token(self, kind: TokenKind) -> str:
        return self.owner_token if kind is TokenKind.OWNER else self.seat_token


def load(path: Path) -> dict[str, Credential]:
    """The stored credentials; an absent file holds none."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise CredentialsError(f"cannot read the credentials file {path}: {exc.strerror}") from None
    try:
        raw = json.loads(text)
    except ValueError:
        raise CredentialsError(
            f"the credentials file {path} is not JSON; fix it or pass another --credentials"
        ) from None
    if not isinstance(raw, dict):
        raise CredentialsError(f"the credentials file {path} must hold a JSON object")
    found = {}
    for room_id, entry in raw.items():
        if not (
            isinstance(entry, dict)
            and entry.keys() >= set(_MEMBERS)
            and all(isinstance(entry[m], str) for m in _MEMBERS)
        ):
            raise CredentialsError(
                f"the credentials file {path} has a bad entry for {room_id}: "
                f"each room needs the strings {list(_MEMBERS)}"
            )
        found[room_id] = Credential(**{m: entry[m] for m in _MEMBERS})
    return found


def is_private(path: Path) -> bool:
    """Whether only the file's owner may read or write it (true for an absent file)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        return True
    return not mode & (stat.S_IRWXG | stat.S_IRWXO)


def save(path: Path, credentials: Mapping[str, Credential]) -> None:
    """Write the whole file: a private temporary file in the same folder, then a rename, so a
    reader sees the old file or the new one and never a half-written or readable one."""
    text = json.dumps({room_id: asdict(c) for room_id, c in sorted(credentials.items())}, indent=2)
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise CredentialsError(f"cannot write next to {path}: {exc.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            os.fchmod(file.fileno(), 0o600)  # mkstemp makes it 0600; say so whatever the umask
            file.write(text + "\n")
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise CredentialsError(
            f"cannot write the credentials file {path}: {exc.strerror}"
        ) from None


def remember(path: Path, room_id: str, credential: Credential) -> None:
    """Add one room's tokens, keeping every other room's."""
    stored = load(path)
    stored[room_id] = credential
    save(path, stored)

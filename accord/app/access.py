"""Who is asking: a bearer credential resolved to a negotiation, a party and a kind."""

import threading
from dataclasses import dataclass
from typing import Final

from sqlalchemy import Connection

from accord.app.tokens import hash_token
from accord.core.refusals import RefusalCode, refuse
from accord.store import records

SEAT_KINDS: Final = frozenset({"seat", "owner"})


@dataclass(frozen=True)
class Access:
    negotiation_id: str
    party: str
    kind: str

    @property
    def is_owner(self) -> bool:
        return self.kind == "owner"


class CredentialCache:
    """Credentials are never changed or deleted once issued, so a process may remember the
    ones it has seen; a token it has not seen is always looked up."""

    def __init__(self, size: int = 65_536) -> None:
        self._size = size
        self._known: dict[str, records.Credential] = {}
        self._lock = threading.Lock()

    def known(self, token_hash: str) -> records.Credential | None:
        with self._lock:
            return self._known.get(token_hash)

    def find(self, conn: Connection, token_hash: str) -> records.Credential | None:
        with self._lock:
            found = self._known.get(token_hash)
        if found is not None:
            return found
        found = records.find_credentials(conn, [token_hash]).get(token_hash)
        if found is not None:
            with self._lock:
                if len(self._known) >= self._size:
                    self._known.pop(next(iter(self._known)))
                self._known[token_hash] = found
        return found


def authorize(
    conn: Connection, token: str | None, negotiation_id: str, cache: CredentialCache
) -> Access:
    """unauthenticated → forbidden: a seat or owner credential of this negotiation."""
    if not token:
        raise refuse(
            RefusalCode.UNAUTHENTICATED, "Send your seat or owner token as a Bearer credential."
        )
    found = cache.find(conn, hash_token(token))
    if found is None:
        raise refuse(RefusalCode.UNAUTHENTICATED, "This credential opens nothing; check the token.")
    if found.negotiation_id != negotiation_id or found.kind not in SEAT_KINDS:
        raise refuse(RefusalCode.FORBIDDEN, "This credential belongs to another room.")
    return Access(found.negotiation_id, found.party, found.kind)

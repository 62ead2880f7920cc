"""Who is asking: a bearer credential resolved to a negotiation, a party and a kind.

`accord.app.identity` resolves every credential; this module keeps the rooms' own check."""

from dataclasses import dataclass
from typing import Final

from sqlalchemy import Connection

from accord.app.identity import CredentialCache
from accord.app.tokens import hash_token
from accord.core.refusals import RefusalCode, refuse

__all__ = ["SEAT_KINDS", "Access", "CredentialCache", "authorize"]

SEAT_KINDS: Final = frozenset({"seat", "owner"})


@dataclass(frozen=True)
class Access:
    negotiation_id: str
    party: str
    kind: str

    @property
    def is_owner(self) -> bool:
        return self.kind == "owner"


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

"""Who is asking: a bearer credential resolved to a negotiation, a party and a kind."""

from dataclasses import dataclass

from sqlalchemy import Connection

from accord.app.tokens import hash_token
from accord.core.refusals import RefusalCode, refuse
from accord.store import records


@dataclass(frozen=True)
class Access:
    negotiation_id: str
    party: str
    kind: str

    @property
    def is_owner(self) -> bool:
        return self.kind == "owner"


def authorize(conn: Connection, token: str | None, negotiation_id: str) -> Access:
    """unauthenticated → forbidden: a seat or owner credential of this negotiation."""
    if not token:
        raise refuse(
            RefusalCode.UNAUTHENTICATED, "Send your seat or owner token as a Bearer credential."
        )
    found = records.find_credentials(conn, [hash_token(token)]).get(hash_token(token))
    if found is None:
        raise refuse(RefusalCode.UNAUTHENTICATED, "This credential opens nothing; check the token.")
    if found.negotiation_id != negotiation_id or found.kind not in ("seat", "owner"):
        raise refuse(RefusalCode.FORBIDDEN, "This credential belongs to another room.")
    return Access(found.negotiation_id, found.party, found.kind)

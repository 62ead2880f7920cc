"""What a door that receives a bare credential needs of it (interfaces A2, A3): who it is, and
whether it may pass the agent door.

The agent door (MCP) acts for an agent. It never takes a person's credential (a room's owner
token, a principal's owner key) or a merchant's secret key, so that an agent's client can never
act as the person it works for: those are `forbidden` with `reason: "agent_door"`."""

from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection

from accord.app.identity import (
    Caller,
    CredentialCache,
    MerchantCaller,
    PrincipalCaller,
    SeatCaller,
    describe,
    resolve,
)
from accord.core.refusals import RefusalCode, refuse

AGENT_DOOR = "agent_door"


def through_agent_door(caller: Caller) -> Caller:
    """The caller, unless it is a person's or a merchant's secret credential."""
    personal = (
        (isinstance(caller, SeatCaller) and caller.is_owner)
        or (isinstance(caller, PrincipalCaller) and caller.level == "owner")
        or (isinstance(caller, MerchantCaller) and caller.key_kind == "secret")
    )
    if personal:
        raise refuse(
            RefusalCode.FORBIDDEN,
            "This door acts for an agent: use the seat token, a publishable key or an agent "
            "key. A person's credential (an owner token or key) or a secret key never passes "
            "it; the person confirms on their own page instead.",
            reason=AGENT_DOOR,
        )
    return caller


class Doors:
    def __init__(self, read: Callable[[Callable[[Connection], Any]], Any]) -> None:
        self._read = read
        self._credentials = CredentialCache()

    def identify(self, token: str) -> Caller:
        """The caller a credential stands for; `unauthenticated` when it opens nothing."""
        caller: Caller | None = self._read(lambda conn: resolve(conn, token, self._credentials))
        if caller is None:
            raise refuse(RefusalCode.UNAUTHENTICATED, "This credential opens nothing; check it.")
        return caller

    def agent(self, token: str | None) -> Caller | None:
        """The caller at the agent door (None without a credential)."""
        return None if not token else through_agent_door(self.identify(token))

    def describe(self, token: str) -> dict[str, Any]:
        """`{kind, negotiation_id?, party?, principal_id?, tenant_id?, mode?}` (A2)."""
        return describe(self.identify(token))

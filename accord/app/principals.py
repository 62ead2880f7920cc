"""Principals as a service (spec/intro-api.md, Principals and keys): a person or an organisation,
made on the store itself, with an owner key (the person) and agent keys (agents acting for the
person), of which only the selected agent's negotiates.

Keys are stored only as hashes and shown once, when made. A new key for an agent id retires the
id's old key at once; `accord`, the built-in agent, has no key and may be selected all the same.
"""

import re
from collections.abc import Callable
from datetime import datetime
from enum import StrEnum
from typing import Any, Final

from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError

from accord.app.identity import PRINCIPAL_KEY_PREFIX, CredentialCache, PrincipalCaller, resolve
from accord.app.names import check_name
from accord.app.tokens import hash_token, new_id, new_token
from accord.core.refusals import Refusal, RefusalCode, Refused, refuse
from accord.core.times import format_time
from accord.store import principals as rows
from accord.store.database import Database

JSONBody = dict[str, Any]

BUILT_IN_AGENT: Final = "accord"
DEFAULT_AGENT: Final = "default"
AGENT_ID: Final = re.compile(r"[a-z0-9_-]{1,64}")


class Action(StrEnum):
    """What a principal's key asks to do, by the rows of intro-api.md's table."""

    READ = "read"
    """The principal's own intents, chat, opportunities, negotiations, questions, logs, receipts
    and events; discovering, opening opportunities, writing in an intent's chat."""
    WRITE = "write"
    """Intents and networks, decisions on opportunities, answers to questions, selecting the
    agent: the person's own acts."""
    TAKE_TURNS = "take_turns"
    """Turns and questions to the owner: the selected agent's work."""
    RESUME = "resume"
    """Opening a negotiation's next round."""


def may(caller: PrincipalCaller, action: Action, *, selected_agent_id: str) -> Refusal | None:
    """None when the key may do `action`, else why not: `forbidden` for what this level of key
    never does, `executor_changed` for an agent that is not the selected one."""
    if caller.level == "owner":
        if action is Action.TAKE_TURNS:
            return Refusal(
                RefusalCode.FORBIDDEN,
                "Turns and questions are the selected agent's; use its agent key.",
            )
        return None
    if action is Action.READ:
        return None
    if action is Action.WRITE:
        return Refusal(RefusalCode.FORBIDDEN, "Only the owner key may do this; an agent may not.")
    if caller.agent_id != selected_agent_id:
        return Refusal(
            RefusalCode.EXECUTOR_CHANGED,
            "Another agent negotiates for this principal now; its owner selects the agent "
            "(PUT /api/me/agent).",
        )
    return None


class Principals:
    def __init__(self, db: Database, *, clock: Callable[[], datetime]) -> None:
        self._db = db
        self._clock = clock
        self._credentials = CredentialCache()
        self.selected: Callable[[str], None] = _nobody
        """Called with the principal once a selection is durable (the built-in agent, set by
        the composition root), so `accord` takes up a turn already waiting for it."""

    # -- on the store (the CLI) --------------------------------------------------------------

    def create(self, name: str) -> JSONBody:
        """A new principal with its owner key and the key of its `default` agent, which is
        selected; the keys are shown only now."""
        check_name(name, noun="principal")
        principal_id = new_id("pri")
        owner_key, agent_key = (
            new_token(PRINCIPAL_KEY_PREFIX["owner"]),
            new_token(PRINCIPAL_KEY_PREFIX["agent"]),
        )

        def txn(conn: Connection) -> None:
            if rows.find_principal(conn, name) is not None:
                raise _name_taken(name)
            now = format_time(self._clock())
            rows.insert_principal(conn, principal_id, name, now)
            rows.insert_key(conn, hash_token(owner_key), principal_id, agent_id=None, now=now)
            rows.insert_key(
                conn, hash_token(agent_key), principal_id, agent_id=DEFAULT_AGENT, now=now
            )
            rows.insert_selection(conn, principal_id, DEFAULT_AGENT, now)

        try:
            self._db.write(txn)
        except IntegrityError:  # the same name, created at the same moment elsewhere
            raise _name_taken(name) from None
        return {
            "principal_id": principal_id,
            "name": name,
            "owner_key": owner_key,
            "agent_key": agent_key,
            "agent_id": DEFAULT_AGENT,
        }

    def agent_key(self, name: str, agent_id: str) -> JSONBody:
        """A new key for the agent `agent_id` of the principal `name`, shown only now; the id's
        old key, if any, opens nothing from then on."""
        if not AGENT_ID.fullmatch(agent_id) or agent_id == BUILT_IN_AGENT:
            raise refuse(
                RefusalCode.INVALID_REQUEST,
                f"An agent id is 1 to 64 of [a-z0-9_-], and not {BUILT_IN_AGENT!r} (the "
                "built-in agent, which has no key).",
                fields={"agent_id": f"1 to 64 of [a-z0-9_-], not {BUILT_IN_AGENT!r}"},
            )
        agent_key = new_token(PRINCIPAL_KEY_PREFIX["agent"])

        def txn(conn: Connection) -> str:
            principal = rows.find_principal(conn, name, lock=True)
            if principal is None:
                raise refuse(
                    RefusalCode.INVALID_REQUEST,
                    f"No principal is named {name!r}; `accord principals create {name}` makes one.",
                    fields={"name": "the name of an existing principal"},
                )
            now = format_time(self._clock())
            rows.retire_agent_key(conn, principal.id, agent_id, now)
            rows.insert_key(conn, hash_token(agent_key), principal.id, agent_id=agent_id, now=now)
            return principal.id

        principal_id = self._db.write(txn)
        return {"principal_id": principal_id, "agent_id": agent_id, "agent_key": agent_key}

    # -- the API ---------------------------------------------------------------------------

    def authorize(self, token: str | None, action: Action) -> PrincipalCaller:
        """unauthenticated (no key, or one that opens nothing) → forbidden (a credential that
        is not a principal's key, or a key that may not do this) → executor_changed. Keys are
        looked up on every request, so a replaced key stops at once in every process."""

        def read(conn: Connection) -> PrincipalCaller:
            caller = resolve(conn, token, self._credentials)
            if caller is None:
                raise refuse(
                    RefusalCode.UNAUTHENTICATED,
                    "Send a current owner or agent key, as a Bearer credential or in x-api-key.",
                )
            if not isinstance(caller, PrincipalCaller):
                raise refuse(
                    RefusalCode.FORBIDDEN,
                    "This credential is not a principal's key; use your owner or agent key.",
                )
            self._check(conn, caller, action)
            return caller

        return self._db.read(read)

    def me(self, caller: PrincipalCaller) -> JSONBody:
        def read(conn: Connection) -> JSONBody:
            principal = rows.read_principal(conn, caller.principal_id)
            return {
                "principal_id": principal.id,
                "name": principal.name,
                "key": caller.level,
                "agent_id": caller.agent_id,
                "selected_agent_id": rows.selected_agent(conn, principal.id),
            }

        return self._db.read(read)

    def select_agent(self, caller: PrincipalCaller, agent_id: str) -> JSONBody:
        """The owner chooses which agent negotiates: `accord`, or an id that has a current key.
        Selecting the selected agent again records nothing."""

        def txn(conn: Connection) -> JSONBody:
            self._check(conn, caller, Action.WRITE)
            known = agent_id == BUILT_IN_AGENT or (
                AGENT_ID.fullmatch(agent_id) is not None
                and rows.has_agent_key(conn, caller.principal_id, agent_id)
            )
            if not known:
                raise refuse(
                    RefusalCode.INVALID_REQUEST,
                    f"No agent of yours has that id; select {BUILT_IN_AGENT!r} or an id made "
                    "with `accord principals agent-key`.",
                    fields={"agent_id": f"{BUILT_IN_AGENT!r} or the id of one of your agent keys"},
                )
            if rows.selected_agent(conn, caller.principal_id) != agent_id:
                now = format_time(self._clock())
                rows.insert_selection(conn, caller.principal_id, agent_id, now)
            return {"principal_id": caller.principal_id, "selected_agent_id": agent_id}

        selected = self._db.write(txn)
        self.selected(caller.principal_id)
        return selected

    def _check(self, conn: Connection, caller: PrincipalCaller, action: Action) -> None:
        selected = rows.selected_agent(conn, caller.principal_id)
        refusal = may(caller, action, selected_agent_id=selected)
        if refusal is not None:
            raise Refused(refusal)


def _nobody(_: str) -> None:
    """No agent follows selections."""


def _name_taken(name: str) -> Refused:
    return refuse(
        RefusalCode.INVALID_REQUEST,
        f"A principal named {name!r} exists; choose another name, or make a new agent key with "
        f"`accord principals agent-key {name} --agent-id ID`.",
        fields={"name": "a name no principal has"},
    )

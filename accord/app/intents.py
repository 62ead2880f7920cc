"""Intents, their chat and networks as a service (spec/intro-api.md, Endpoints and Intents).

The owner key writes intents and networks; any key of the principal reads them and writes in an
intent's chat. Another principal's intent is `not_found`, exactly like an unknown id. Each call
checks in the spec's order: the intent (`not_found`), the key (`forbidden`), the values
(`invalid_request`), then `intent_inactive` for an archived intent; a refused call writes
nothing. The rules are in `accord.protocols.intro.intents`; this is their I/O.
"""

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError

from accord.app.identity import PrincipalCaller
from accord.app.index import IntentIndex
from accord.app.principals import Action, may
from accord.app.tokens import hash_token, new_id, new_token
from accord.core.refusals import RefusalCode, Refused, refuse
from accord.core.times import format_time
from accord.protocols.intro import intents as rules
from accord.protocols.intro.intents import (
    ChatInput,
    IntentInput,
    IntentPatch,
    JoinInput,
    NetworkInput,
)
from accord.protocols.intro.opportunities import (
    DEFAULT_LIMIT,
    DiscoverInput,
    discover_problems,
    may_discover,
)
from accord.store import intents as rows
from accord.store import principals as principal_rows
from accord.store.database import Database

JSONBody = dict[str, Any]
INVITE_PREFIX = "acc_ni"

NOT_FOUND = "No intent of yours has this id; GET /api/intents lists yours."
"""One message for an unknown id and another principal's intent: they must not differ."""


def _ignore_edit(conn: Connection, row: rows.IntentRow, changed: Sequence[str]) -> None:
    """Nothing follows this intent."""


def _ignore_message(conn: Connection, intent_id: str, message_id: str, message: str) -> None:
    """Nothing follows this intent."""


def _nobody(_: str) -> None:
    """No agent follows intents."""


@dataclass(frozen=True)
class IntentHooks:
    """What follows an intent (its opportunities' negotiations), called inside the transaction
    that recorded the change, so that what they write commits with it."""

    edited: Callable[[Connection, rows.IntentRow, Sequence[str]], None] = _ignore_edit
    """(the intent as the PATCH left it, the members it changed, `status` among them if it
    did)."""
    owner_wrote: Callable[[Connection, str, str, str], None] = _ignore_message
    """(intent_id, message_id, the message): only the owner's messages; an agent's are not new
    context."""


class Intents:
    def __init__(
        self,
        db: Database,
        *,
        clock: Callable[[], datetime],
        index: IntentIndex,
        hooks: IntentHooks = IntentHooks(),
        write: Callable[[Callable[[Connection], Any]], Any] | None = None,
    ) -> None:
        self._db = db
        self._clock = clock
        self.index = index
        self.hooks = hooks
        self.committed: Callable[[str], None] = _nobody
        """Called with the intent once its owner's edit or chat message is durable (the
        built-in agent, set by the composition root): new context for its negotiations."""
        self._write_txn = db.write if write is None else write
        """The kernel's write where hooks append to negotiations: it wakes their streams."""

    def _write(self, txn: Callable[[Connection], rows.IntentRow]) -> JSONBody:
        """The one way an intent is written: once the write is durable, discovery takes the
        intent as it now is."""
        row: rows.IntentRow = self._write_txn(txn)
        self.index.update(row)
        return {"intent": _view(row)}

    # -- intents ---------------------------------------------------------------------------

    def create(self, caller: PrincipalCaller, body: IntentInput) -> JSONBody:
        def txn(conn: Connection) -> rows.IntentRow:
            check_may(conn, caller, Action.WRITE)
            invalid_unless(not (problems := rules.intent_problems(body)), problems)
            _check_networks(conn, caller, body.networks)
            intent_id, now = new_id("int"), format_time(self._clock())
            rows.insert_intent(conn, intent_id, caller.principal_id, rules.stored(body), now)
            return _found(rows.find_intent(conn, intent_id))

        return self._write(txn)

    def list_own(self, caller: PrincipalCaller) -> JSONBody:
        def read(conn: Connection) -> JSONBody:
            check_may(conn, caller, Action.READ)
            return {"intents": [_view(row) for row in rows.own_intents(conn, caller.principal_id)]}

        return self._db.read(read)

    def find(self, caller: PrincipalCaller, intent_id: str, action: Action) -> None:
        """not_found → forbidden, before a body is read."""
        self._db.read(lambda conn: own_intent(conn, caller, intent_id, action))

    def get(self, caller: PrincipalCaller, intent_id: str) -> JSONBody:
        def read(conn: Connection) -> JSONBody:
            return {"intent": _view(own_intent(conn, caller, intent_id, Action.READ))}

        return self._db.read(read)

    def patch(self, caller: PrincipalCaller, intent_id: str, patch: IntentPatch) -> JSONBody:
        def txn(conn: Connection) -> rows.IntentRow:
            row = own_intent(conn, caller, intent_id, Action.WRITE, lock=True)
            current = IntentInput.model_validate(row.members)
            merged = rules.patched(current, patch)
            problems = rules.patch_problems(patch) or rules.intent_problems(merged)
            invalid_unless(not problems, problems)
            if patch.networks is not None:
                _check_networks(conn, caller, merged.networks)
            if (refusal := rules.editable(row.status)) is not None:
                raise Refused(refusal)
            status = patch.status or row.status
            changed = rules.changed(current, merged) + (("status",) if status != row.status else ())
            if not changed:
                return row
            now = format_time(self._clock())
            members = rules.stored(merged)
            rows.revise_intent(conn, intent_id, members, status, changed, now)
            revised = _found(rows.find_intent(conn, intent_id))
            self.hooks.edited(conn, revised, changed)
            return revised

        written = self._write(txn)
        self.committed(intent_id)
        return written

    # -- discovery ---------------------------------------------------------------------------

    def discover(self, caller: PrincipalCaller, intent_id: str, body: DiscoverInput) -> JSONBody:
        """The candidates of an active, non-private intent of the caller's (spec, Discovery)."""

        def read(conn: Connection) -> JSONBody:
            row = own_intent(conn, caller, intent_id, Action.READ)
            invalid_unless(not (problems := discover_problems(body)), problems)
            if (refusal := may_discover(row.members["visibility"], row.status)) is not None:
                raise Refused(refusal)
            limit = DEFAULT_LIMIT if body.limit is None else body.limit
            return {"candidates": self.index.candidates(conn, intent_id, body.query, limit)}

        return self._db.read(read)

    # -- chat ------------------------------------------------------------------------------

    def post_message(self, caller: PrincipalCaller, intent_id: str, body: ChatInput) -> JSONBody:
        def txn(conn: Connection) -> JSONBody:
            row = own_intent(conn, caller, intent_id, Action.READ, lock=True)
            problem = rules.text_problem(body.message, rules.MESSAGE_LIMIT)
            invalid_unless(problem is None, {"message": problem})
            if (refusal := rules.editable(row.status)) is not None:
                raise Refused(refusal)
            message_id, now = new_id("msg"), format_time(self._clock())
            author = "owner" if caller.level == "owner" else "agent"
            serial = rows.insert_message(
                conn,
                message_id,
                intent_id,
                author=author,
                agent_id=caller.agent_id,
                message=body.message,
                now=now,
            )
            if author == "owner":
                self.hooks.owner_wrote(conn, intent_id, message_id, body.message)
            message = rows.MessageRow(
                serial, message_id, author, caller.agent_id, body.message, now
            )
            return {"message": _message(message)}

        posted: JSONBody = self._write_txn(txn)
        if caller.level == "owner":
            self.committed(intent_id)
        return posted

    def messages(self, caller: PrincipalCaller, intent_id: str, after: str | None) -> JSONBody:
        def read(conn: Connection) -> JSONBody:
            own_intent(conn, caller, intent_id, Action.READ)
            serial = 0
            if after is not None:
                found = rows.message_serial(conn, intent_id, after)
                invalid_unless(found is not None, {"after": "a message_id of this intent's chat"})
                serial = found or 0
            return {"messages": [_message(m) for m in rows.messages_after(conn, intent_id, serial)]}

        return self._db.read(read)

    # -- networks --------------------------------------------------------------------------

    def create_network(self, caller: PrincipalCaller, body: NetworkInput) -> JSONBody:
        invite_code = new_token(INVITE_PREFIX)

        def txn(conn: Connection) -> JSONBody:
            check_may(conn, caller, Action.WRITE)
            problem = rules.text_problem(body.name, rules.NETWORK_NAME_LIMIT)
            invalid_unless(problem is None, {"name": problem})
            network_id, now = new_id("net"), format_time(self._clock())
            creator = caller.principal_id
            rows.insert_network(conn, network_id, body.name, hash_token(invite_code), creator, now)
            rows.insert_member(conn, network_id, creator, now)
            return {"network_id": network_id, "name": body.name, "invite_code": invite_code}

        return self._db.write(txn)

    def list_networks(self, caller: PrincipalCaller) -> JSONBody:
        def read(conn: Connection) -> JSONBody:
            check_may(conn, caller, Action.READ)
            own = rows.own_networks(conn, caller.principal_id)
            return {"networks": [{"network_id": i, "name": name} for i, name in own]}

        return self._db.read(read)

    def join_network(self, caller: PrincipalCaller, body: JoinInput) -> JSONBody:
        """Joining again changes nothing, also when two joins race on PostgreSQL."""

        def txn(conn: Connection) -> JSONBody:
            check_may(conn, caller, Action.WRITE)
            network = rows.network_by_invite(conn, hash_token(body.invite_code))
            if network is None:
                raise refuse(
                    RefusalCode.NOT_FOUND,
                    "No network has this invite code; ask its creator for the code.",
                )
            network_id, name = network
            if not rows.member_of(conn, caller.principal_id, [network_id]):
                now = format_time(self._clock())
                rows.insert_member(conn, network_id, caller.principal_id, now)
            return {"network_id": network_id, "name": name}

        try:
            return self._db.write(txn)
        except IntegrityError:  # the same principal joined at the same moment elsewhere
            return self._db.write(txn)


def check_may(conn: Connection, caller: PrincipalCaller, action: Action) -> None:
    selected = principal_rows.selected_agent(conn, caller.principal_id)
    if (refusal := may(caller, action, selected_agent_id=selected)) is not None:
        raise Refused(refusal)


def _found(row: rows.IntentRow | None) -> rows.IntentRow:
    if row is None:
        raise refuse(RefusalCode.NOT_FOUND, NOT_FOUND)
    return row


def own_intent(
    conn: Connection, caller: PrincipalCaller, intent_id: str, action: Action, *, lock: bool = False
) -> rows.IntentRow:
    row = rows.find_intent(conn, intent_id, lock=lock)
    if row is None or row.principal_id != caller.principal_id:
        raise refuse(RefusalCode.NOT_FOUND, NOT_FOUND)
    check_may(conn, caller, action)
    return row


def invalid_unless(ok: bool, fields: Mapping[str, str | None]) -> None:
    if not ok:
        named = {name: problem for name, problem in fields.items() if problem is not None}
        raise refuse(
            RefusalCode.INVALID_REQUEST,
            "Fix the request: see fields for what is wrong.",
            fields=named,
        )


def _check_networks(conn: Connection, caller: PrincipalCaller, network_ids: Sequence[str]) -> None:
    missing = set(network_ids) - rows.member_of(conn, caller.principal_id, network_ids)
    invalid_unless(
        not missing, {"networks": "networks you belong to (POST /api/networks/join joins one)"}
    )


def _view(row: rows.IntentRow) -> JSONBody:
    return {
        "intent_id": row.id,
        **row.members,
        "status": row.status,
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }


def _message(row: rows.MessageRow) -> JSONBody:
    return {
        "message_id": row.message_id,
        "author": row.author,
        "agent_id": row.agent_id,
        "message": row.message,
        "created_at": row.created_at,
    }

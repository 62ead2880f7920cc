"""Channel bindings (interfaces A4): a chat that redeemed a link code holds that person's
credential, as a browser holding a cookie does, until it is unlinked or the chat blocks the bot.

The binding is the `channel` credential `(channel, chat_id)`: the chat acts with the credential
it was handed and nothing else, and every right is still checked by the service the chat
calls. The store keeps the credential sealed (AES-GCM) under a key derived from the channel's
own secret (the bot's token), which the store never holds: a copy of the store opens nothing.
A binding is never changed; an unlink record ends it."""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Literal

from sqlalchemy import Connection

from accord.app.events import Audience, Level, events, own_audience
from accord.app.identity import Caller, MerchantCaller, PrincipalCaller, SeatCaller, SessionCaller
from accord.app.links import Links, seal_with, sealing_key, unseal_with
from accord.app.tokens import new_id
from accord.core.refusals import RefusalCode, Refused, refuse
from accord.core.times import format_time
from accord.store import channels as rows
from accord.store.database import Database
from accord.store.events import EventRow, last_event_id
from accord.store.notifications import publish

ChannelName = Literal["telegram"]
EndReason = Literal["unlinked", "blocked", "replaced", "unreadable"]
HELD_PER_CHAT: Final = 32
BOUND: Final = "channels:bound"
"""The key a new binding announces: the process that notifies reads the bindings again, and
listens on the new one's audience."""


@dataclass(frozen=True)
class Binding:
    """A chat's hold on one credential: whom it stands for and the credential itself."""

    id: str
    chat_id: str
    token: str
    caller: Caller
    created_at: str

    @property
    def audience(self) -> Audience:
        """The owner-level audience the chat is told of."""
        return audience_of(self.caller)


def audience_of(caller: Caller) -> Audience:
    """A chat's audience: its person's credential, at owner level."""
    found = None if isinstance(caller, MerchantCaller) else own_audience(caller, Level.OWNER)
    if found is None:
        raise ValueError(f"a chat never holds a {caller.kind} credential")
    return found


def _caller(row: rows.BindingRow) -> Caller:
    match row.kind:
        case "owner":
            assert row.negotiation_id is not None and row.party is not None
            return SeatCaller(row.negotiation_id, row.party, is_owner=True)
        case "session":
            assert row.negotiation_id is not None
            return SessionCaller(row.negotiation_id)
        case "principal_owner":
            assert row.principal_id is not None
            return PrincipalCaller(row.principal_id, "owner", None)
    raise ValueError(f"a binding of kind {row.kind!r} is not made")


def _same(a: rows.BindingRow, caller: Caller) -> bool:
    return (a.kind, a.negotiation_id, a.party, a.principal_id) == (
        str(caller.kind),
        getattr(caller, "negotiation_id", None),
        getattr(caller, "party", None),
        getattr(caller, "principal_id", None),
    )


class Channels:
    def __init__(
        self,
        db: Database,
        links: Links,
        channel: ChannelName,
        secret: str,
        *,
        clock: Callable[[], datetime],
    ) -> None:
        self._db = db
        self._links = links
        self._channel = channel
        self._key = sealing_key(b"channel " + channel.encode(), secret)
        self._clock = clock

    def bind(self, chat_id: str, code: str) -> Binding:
        """Redeem `code` for the chat, in one transaction: the code is used exactly when the
        chat holds its credential. The chat's earlier binding to the same seat or principal
        ends (`replaced`); `link_invalid` for a used, expired or unknown code."""

        def txn(conn: Connection) -> Binding | Refused:
            redeemed = self._links.redeem_in(conn, code, self._channel)
            if isinstance(redeemed, Refused):
                return redeemed
            caller = redeemed.caller
            audience_of(caller)  # only a person's credential is handed on by a link
            now = format_time(self._clock())
            held = rows.active_bindings(conn, self._channel, chat_id)
            for old in held:
                if _same(old, caller):
                    rows.end_binding(conn, old.id, at=now, reason="replaced")
            if len(held) >= HELD_PER_CHAT:
                return refuse(
                    RefusalCode.INVALID_REQUEST,
                    f"This chat holds {HELD_PER_CHAT} links already; unlink one first.",
                )
            binding_id = new_id("bnd")
            rows.insert_binding(
                conn,
                rows.BindingRow(
                    id=binding_id,
                    channel=self._channel,
                    chat_id=chat_id,
                    kind=str(caller.kind),
                    negotiation_id=getattr(caller, "negotiation_id", None),
                    party=getattr(caller, "party", None),
                    principal_id=getattr(caller, "principal_id", None),
                    sealed=seal_with(self._key, redeemed.token, binding_id),
                    created_at=now,
                    after=last_event_id(conn),
                ),
            )
            publish(conn, {BOUND})
            return Binding(binding_id, chat_id, redeemed.token, caller, now)

        result = self._db.write(txn)
        if isinstance(result, Refused):
            raise result
        return result

    def held(self, chat_id: str) -> list[Binding]:
        """The chat's bindings, oldest first."""
        found = self._db.read(lambda conn: rows.active_bindings(conn, self._channel, chat_id))
        return self._opened(found)

    def binding(self, chat_id: str, binding_id: str) -> Binding:
        """One of the chat's bindings; `not_found` for another chat's or an ended one."""
        for binding in self.held(chat_id):
            if binding.id == binding_id:
                return binding
        raise refuse(RefusalCode.NOT_FOUND, "This chat holds no such link; it may be unlinked.")

    def holding(self, chat_id: str, negotiation_id: str) -> Binding:
        """The chat's binding to a negotiation's seat (a room's, a session's)."""
        for binding in self.held(chat_id):
            if getattr(binding.caller, "negotiation_id", None) == negotiation_id:
                return binding
        raise refuse(RefusalCode.NOT_FOUND, "This chat is not linked to that; it may be unlinked.")

    def holding_principal(self, chat_id: str) -> Binding:
        for binding in self.held(chat_id):
            if isinstance(binding.caller, PrincipalCaller):
                return binding
        raise refuse(RefusalCode.NOT_FOUND, "This chat is not linked to a principal.")

    def end(self, binding_id: str, reason: EndReason) -> bool:
        """Record the binding's end, once (False when it had ended already)."""
        at = format_time(self._clock())
        return bool(
            self._db.write(lambda conn: rows.end_binding(conn, binding_id, at=at, reason=reason))
        )

    def unlink(self, chat_id: str, binding_id: str) -> Binding:
        """The person ends one of their chat's bindings."""
        binding = self.binding(chat_id, binding_id)
        self.end(binding_id, "unlinked")
        return binding

    # -- notifications --------------------------------------------------------------------

    def every(self) -> list[Binding]:
        """Every chat's bindings (the notifier's round)."""
        return self._opened(self._db.read(lambda conn: rows.active_bindings(conn, self._channel)))

    def undelivered(self, binding: Binding, limit: int) -> list[EventRow]:
        """The binding's events not yet delivered to it, oldest first."""

        def read(conn: Connection) -> list[EventRow]:
            row = rows.find_active(conn, binding.id)
            if row is None:
                return []
            return events(conn, binding.audience, after=rows.cursor(conn, row), limit=limit)

        return self._db.read(read)

    def delivered(self, binding_id: str, event_ids: Sequence[int]) -> None:
        at = format_time(self._clock())
        self._db.write(lambda conn: rows.record_deliveries(conn, binding_id, event_ids, at=at))

    # -- replies --------------------------------------------------------------------------

    def record_question(
        self, chat_id: str, message_id: int, binding_id: str, opportunity_id: str, question_id: str
    ) -> None:
        """The message the channel answered a send with shows this question of the binding's
        agent: a reply to it answers that question (the channel says which message a reply
        is to; the text the person types names nothing)."""
        row = rows.QuestionMessageRow(
            channel=self._channel,
            chat_id=chat_id,
            message_id=message_id,
            binding_id=binding_id,
            opportunity_id=opportunity_id,
            question_id=question_id,
            sent_at=format_time(self._clock()),
        )
        self._db.write(lambda conn: rows.record_question_message(conn, row))

    def question_message(self, chat_id: str, message_id: int) -> rows.QuestionMessageRow | None:
        """The question a message of this chat shows; None for any other message."""
        return self._db.read(
            lambda conn: rows.find_question_message(conn, self._channel, chat_id, message_id)
        )

    def _opened(self, found: Sequence[rows.BindingRow]) -> list[Binding]:
        """The bindings with their credentials; one sealed under another secret (the bot's
        token was changed) ends as `unreadable`, and the person links again."""
        opened = []
        for row in found:
            token = unseal_with(self._key, row.sealed, row.id)
            if token is None:
                self.end(row.id, "unreadable")
                continue
            opened.append(Binding(row.id, row.chat_id, token, _caller(row), row.created_at))
        return opened

"""Arbitrated sessions as a service (spec/arbitrated-rest.md): a buyer opens with a merchant's
publishable or secret key, moves with its session token; the arbiter and the hosted merchant
answer in the same transaction. The merchant's secret key reads its own sessions."""

import json
import secrets
from collections.abc import Callable
from functools import partial
from typing import Any, Final

from sqlalchemy import Connection

from accord.app.identity import Caller, CredentialCache, MerchantCaller, SessionCaller, resolve
from accord.app.merchants import SECRET_KEY, Merchants
from accord.app.negotiations import Answer, Loaded, Move, Negotiations, encode, request_hash
from accord.app.settings import Settings
from accord.app.tokens import hash_token, new_id, new_nonce
from accord.core.envelope import Envelope
from accord.core.refusals import Refusal, RefusalCode, Refused, refuse
from accord.core.times import format_time
from accord.protocols.arbitrated import decide, handoff
from accord.protocols.arbitrated.moves import (
    BuyerMove,
    HandoffRequest,
    OpenSessionRequest,
    RevealMove,
    RevealRequest,
)
from accord.protocols.arbitrated.receipt import reveals_of
from accord.protocols.arbitrated.state import BUYER, SessionState
from accord.protocols.arbitrated.table import ArbitratedTable
from accord.protocols.arbitrated.views import session_summary, session_view
from accord.store import records
from accord.store import sessions as rows

JSONBody = dict[str, Any]
OPENERS: Final = frozenset({"publishable", "secret"})


class Sessions:
    def __init__(
        self,
        kernel: Negotiations,
        table: ArbitratedTable,
        settings: Settings,
        *,
        merchants: Merchants,
    ) -> None:
        self._kernel = kernel
        self._table = table
        self._settings = settings
        self._merchants = merchants
        self._credentials = CredentialCache()

    # -- opening and moving ----------------------------------------------------------------

    def open(self, token: str | None, request: OpenSessionRequest) -> JSONBody:
        access = self.opener(token, allow=OPENERS)
        policy = self._merchants.get_policy(access.tenant_id, access.mode, request.sku)
        if policy is None or not policy.active:
            raise refuse(RefusalCode.SKU_NOT_FOUND, f"No active policy for {request.sku!r}.")
        session_id = new_id("ses")
        session_token = f"acc_st_{access.mode}_{secrets.token_urlsafe(32)}"
        nonce = new_nonce()

        def txn(conn: Connection) -> JSONBody:
            now = self._kernel.clock()
            decision = decide.open_session(
                request,
                policy,
                session_id=session_id,
                tenant_id=access.tenant_id,
                mode=access.mode,
                nonce=nonce,
                now=now,
            )
            if isinstance(decision, Refusal):
                raise Refused(decision)
            loaded = self._kernel.create(conn, self._table, session_id, decision, now)
            ts = format_time(now)
            rows.insert_session(
                conn, session_id, tenant_id=access.tenant_id, mode=access.mode, sku=request.sku,
                now=ts,
            )  # fmt: skip
            records.insert_credential(
                conn, hash_token(session_token), session_id, BUYER, "session", ts
            )
            view = self._view(loaded.state, events=loaded.public)
            return view | {"session_token": session_token}

        return self._kernel.write(txn)

    async def move_async(self, token: str | None, session_id: str, move: BuyerMove) -> Answer:
        return await self._kernel.write_async(self._move_txn(token, session_id, move))

    def move(self, token: str | None, session_id: str, move: BuyerMove) -> JSONBody:
        answer = self._kernel.write(self._move_txn(token, session_id, move))
        body: JSONBody = json.loads(answer.body)
        return body

    def _move_txn(
        self, token: str | None, session_id: str, move: BuyerMove
    ) -> Callable[[Connection], Answer | Refused]:
        message_id = None if isinstance(move, RevealMove) else move.message_id
        step: Move[SessionState, None] = Move(
            authorize=partial(self._buyer, token=token, session_id=session_id),
            party=lambda _: BUYER,
            actor=lambda _: BUYER,
            move=move,
            answer=lambda loaded, decision, _: Answer(
                200, encode(self._view(loaded.state, events=loaded.public))
            ),
            message_id=message_id,
            request_hash=(
                request_hash(move.model_dump(mode="json", exclude_none=True)) if message_id else ""
            ),
            repeat=lambda _conn, seen: Answer(
                seen.status, encode(json.loads(seen.response) | {"duplicate": True})
            ),
        )
        return self._kernel.move(self._table, session_id, step)

    # -- reading -------------------------------------------------------------------------

    def show(self, token: str | None, session_id: str) -> JSONBody:
        state = self._read_current(token, session_id)
        log = self._kernel.read(lambda conn: records.read_log(conn, session_id))
        return self._view(state, log=log)

    def log(self, token: str | None, session_id: str) -> JSONBody:
        self._read_current(token, session_id)
        return {"envelopes": self._kernel.log(session_id)}

    def receipt(self, token: str | None, session_id: str) -> JSONBody:
        state = self._read_current(token, session_id)
        if not state.is_final:
            raise refuse(RefusalCode.SESSION_OPEN, "The session has not ended; no receipt yet.")
        return self._kernel.receipt(self._table, session_id, state)

    def list_sessions(self, token: str | None, limit: int) -> JSONBody:
        access = self.opener(token, allow=SECRET_KEY)
        states = self._kernel.read(
            lambda conn: rows.recent_states(conn, access.tenant_id, access.mode, limit)
        )
        return {"sessions": [session_summary(SessionState.model_validate_json(s)) for s in states]}

    # -- after the end -------------------------------------------------------------------

    def claim_handoff(self, token: str | None, session_id: str) -> JSONBody:
        claimed = handoff.claim(self._read_current(token, session_id, buyer_only=True))
        if isinstance(claimed, Refusal):
            raise Refused(claimed)
        return dict(claimed)

    def publish_handoff(
        self, token: str | None, session_id: str, request: HandoffRequest
    ) -> JSONBody:
        self._merchant_action(token, session_id, request)
        return request.model_dump()

    def merchant_reveal(self, token: str | None, session_id: str) -> JSONBody:
        loaded = self._merchant_action(token, session_id, RevealRequest())
        return {"reveals": reveals_of(loaded.state)}

    def _merchant_action(
        self, token: str | None, session_id: str, action: HandoffRequest | RevealRequest
    ) -> Loaded[SessionState]:
        def txn(conn: Connection) -> Loaded[SessionState] | Refused:
            self._merchant(conn, token, session_id)
            loaded = self._kernel.lock(conn, self._table, session_id)
            decided = self._kernel.decide(conn, self._table, loaded, action, "merchant")
            return decided if isinstance(decided, Refused) else loaded

        return self._kernel.write(txn)

    def check_access(self, token: str | None, session_id: str, *, buyer_only: bool) -> None:
        """The credential, before the body is read: the session's token, or (to read) the
        secret key of the session's tenant and mode."""
        self._kernel.read(lambda conn: self._reader(conn, token, session_id, buyer_only))

    # -- who asks ------------------------------------------------------------------------

    def _identify(self, conn: Connection, token: str | None) -> Caller:
        """Any credential; `unauthenticated` only when it opens nothing, so that a real
        credential of the wrong kind is told `forbidden`."""
        caller = resolve(conn, token, self._credentials)
        if caller is None:
            raise refuse(
                RefusalCode.UNAUTHENTICATED,
                "Send the session token, or a current merchant key, as a Bearer credential.",
            )
        return caller

    def _buyer(self, conn: Connection, token: str | None, session_id: str) -> None:
        """This session's token: a merchant key may read a session, never move in it."""
        who = self._identify(conn, token)
        if not isinstance(who, SessionCaller) or who.negotiation_id != session_id:
            raise refuse(RefusalCode.FORBIDDEN, "Only this session's token may do that.")

    def _merchant(self, conn: Connection, token: str | None, session_id: str) -> MerchantCaller:
        """The secret key of the session's tenant and mode; another's session is not found."""
        who = self._identify(conn, token)
        if not isinstance(who, MerchantCaller) or who.key_kind != "secret":
            raise refuse(
                RefusalCode.FORBIDDEN, "Only the merchant's secret key may do that.",
                allowed=["secret"],
            )  # fmt: skip
        row = rows.find_session(conn, session_id)
        if row is None or (row.tenant_id, row.mode) != (who.tenant_id, who.mode):
            raise Refused(self._table.not_found)
        return who

    def _reader(
        self, conn: Connection, token: str | None, session_id: str, buyer_only: bool
    ) -> None:
        who = self._identify(conn, token)
        if isinstance(who, MerchantCaller) and not buyer_only:
            self._merchant(conn, token, session_id)
        else:
            self._buyer(conn, token, session_id)

    def opener(self, token: str | None, *, allow: frozenset[str]) -> MerchantCaller:
        """A merchant key of an allowed kind; any other credential is `forbidden`."""

        def read(conn: Connection) -> MerchantCaller:
            who = self._identify(conn, token)
            if not isinstance(who, MerchantCaller) or who.key_kind not in allow:
                raise refuse(
                    RefusalCode.FORBIDDEN,
                    "This credential may not do that; use a merchant key.",
                    allowed=sorted(allow),
                )
            return who

        return self._kernel.read(read)

    def check_merchant(self, token: str | None, session_id: str) -> None:
        self._kernel.read(lambda conn: self._merchant(conn, token, session_id))

    def handoff_published(self, token: str | None, session_id: str) -> bool:
        """Whether the session's hand-off is out, for the merchant's own page: that it is,
        never its value (only the buyer's claim shows that)."""
        self.check_merchant(token, session_id)
        return self._read_current(token, session_id).handoff is not None

    def _read_current(
        self, token: str | None, session_id: str, *, buyer_only: bool = False
    ) -> SessionState:
        authorize = partial(self._reader, token=token, session_id=session_id, buyer_only=buyer_only)
        return self._kernel.current(self._table, session_id, authorize)[1]

    def _view(
        self,
        state: SessionState,
        *,
        events: list[Envelope] | tuple[Envelope, ...] = (),
        log: list[Envelope] | None = None,
    ) -> JSONBody:
        return session_view(state, events=events, base_url=self._settings.base_url, log=log)

"""Arbitrated sessions as a service (spec/arbitrated-rest.md): a buyer opens with a merchant's
publishable or secret key, moves with its session token; the arbiter and the hosted merchant
answer in the same transaction. The merchant's secret key reads its own sessions."""

import asyncio
import base64
import json
import secrets
from collections.abc import Callable
from datetime import datetime
from typing import Any, Final, TypeVar

from sqlalchemy import Connection

from accord.app.access import CredentialCache
from accord.app.engine import Answer, Engine, Loaded, encode
from accord.app.merchants import SECRET_KEY, MerchantAccess, Merchants
from accord.app.notifier import Notifier
from accord.app.settings import Settings
from accord.app.tokens import hash_token, new_id, new_nonce
from accord.core.commit import commit
from accord.core.envelope import Envelope
from accord.core.jsonio import canonical
from accord.core.protocol import Decision
from accord.core.refusals import Refusal, RefusalCode, Refused, refuse
from accord.core.times import format_time
from accord.protocols.arbitrated import decide
from accord.protocols.arbitrated.apply import apply, apply_private
from accord.protocols.arbitrated.moves import (
    AcceptMove,
    OfferMove,
    OpenSessionRequest,
    RejectMove,
    RevealMove,
)
from accord.protocols.arbitrated.receipt import build_receipt, invariants, reveals_of
from accord.protocols.arbitrated.state import (
    BUYER,
    PROTOCOL,
    Phase,
    SessionState,
    timeout_at,
)
from accord.protocols.arbitrated.views import session_summary, session_view
from accord.store import records
from accord.store import sessions as rows
from accord.store.database import Database
from accord.store.records import Credential
from accord.trust.keys import Keyring, Keys, keyring_path
from accord.trust.receipts import signed_receipt, unsigned_receipt

JSONBody = dict[str, Any]
BuyerMove = OfferMove | AcceptMove | RejectMove | RevealMove
T = TypeVar("T")
HANDOFF_RETRY_SECONDS: Final = 5
OPENERS: Final = frozenset({"publishable", "secret"})


SERVER_KEPT: Final = (
    "I1_bounded_rounds",
    "I2_same_public_information",
    "I4_monotonic_concession",
    "I5_verdict_for_every_offer",
    "I7_hash_chain",
)


class InvariantBroken(AssertionError):
    """A move would break one of I1 to I7: a fault of the server's, never recorded."""


class _SessionKind:
    name = PROTOCOL
    state_type = SessionState

    def not_found(self) -> Refused:
        return refuse(RefusalCode.SESSION_NOT_FOUND, "No such session for this key.")

    def apply(self, state: SessionState | None, envelope: Envelope) -> SessionState:
        return apply(state, envelope)

    def apply_private(self, state: SessionState, party: str, record: Envelope) -> SessionState:
        return apply_private(state, party, record)

    def is_final(self, state: SessionState) -> bool:
        return state.is_final

    def expires_at(self, state: SessionState) -> str | None:
        return timeout_at(state)

    def notice_fields(
        self, negotiation_id: str, state: SessionState | None, decision: Decision
    ) -> dict[str, Any]:
        return {"session_id": negotiation_id}


def discount_code() -> str:
    """At least 80 random bits, grouped for people: ACC-7F3K-9QXM-2WPD-H4TA."""
    letters = base64.b32encode(secrets.token_bytes(10)).decode()
    return "ACC-" + "-".join(letters[i : i + 4] for i in range(0, 16, 4))


class Sessions:
    def __init__(
        self,
        db: Database,
        settings: Settings,
        *,
        clock: Callable[[], datetime],
        merchants: Merchants,
        keys: Keys | None = None,
        notifier: Notifier | None = None,
    ) -> None:
        self._db = db
        self._settings = settings
        self._clock = clock
        self._merchants = merchants
        self._keys = keys
        self._notifier = notifier or Notifier()
        self._credentials = CredentialCache()
        self._engine: Engine[SessionState] = Engine(_SessionKind(), after_append=self._on_append)

    # -- opening and moving ----------------------------------------------------------------

    def open(self, token: str | None, request: OpenSessionRequest) -> JSONBody:
        access = self.opener(token, allow=OPENERS)
        policy = self._merchants.get_policy(access.tenant_id, access.mode, request.sku)
        if policy is None or not policy.active:
            raise refuse(RefusalCode.SKU_NOT_FOUND, f"No active policy for {request.sku!r}.")
        session_id = new_id("ses")
        session_token = f"acc_st_{access.mode}_{secrets.token_urlsafe(32)}"
        nonce = new_nonce()
        stored = policy.model_dump(mode="json")

        def txn(conn: Connection) -> JSONBody:
            now = self._clock()
            decision = decide.open_session(
                request,
                stored,
                session_id=session_id,
                tenant_id=access.tenant_id,
                mode=access.mode,
                nonce=nonce,
                now=now,
            )
            if isinstance(decision, Refusal):
                raise Refused(decision)
            loaded = self._engine.create(conn, session_id, decision, now)
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

        return self._write(txn)

    async def move_async(self, token: str | None, session_id: str, move: BuyerMove) -> Answer:
        future = self._db.submit(self._move_txn(token, session_id, move))
        result = await asyncio.wrap_future(future)
        self._notifier.notify()
        if isinstance(result, Refused):
            raise result
        return result

    def move(self, token: str | None, session_id: str, move: BuyerMove) -> JSONBody:
        answer: Answer = self._write(self._move_txn(token, session_id, move))
        body: JSONBody = json.loads(answer.text)
        return body

    def _move_txn(
        self, token: str | None, session_id: str, move: BuyerMove
    ) -> Callable[[Connection], Answer | Refused]:
        message_id = None if isinstance(move, RevealMove) else move.message_id
        request_hash = commit(move.model_dump(mode="json", exclude_none=True)) if message_id else ""

        def txn(conn: Connection) -> Answer | Refused:
            self._buyer(conn, token, session_id)
            loaded = self._engine.lock(conn, session_id)
            if message_id is not None:
                seen = records.find_remembered(conn, session_id, BUYER, message_id)
                if seen is not None:
                    if seen.request_hash != request_hash:
                        return refuse(
                            RefusalCode.MESSAGE_ID_REUSED,
                            "This message_id was used with a different move; use a new one.",
                        )
                    return Answer(
                        seen.status, encode(json.loads(seen.response) | {"duplicate": True})
                    )
            now = self._clock()
            self._close_if_timed_out(conn, loaded, now)
            decision = decide.decide_move(loaded.state, move, now=now, handoff_code=discount_code())
            if isinstance(decision, Refusal):
                return Refused(decision)
            self._engine.append(conn, loaded, decision, now, message_id=message_id)
            answer = Answer(200, encode(self._view(loaded.state, events=loaded.public)))
            if message_id is not None:
                records.remember(
                    conn,
                    session_id,
                    BUYER,
                    message_id,
                    request_hash=request_hash,
                    status=answer.status,
                    response=answer.text,
                )
            return answer

        return txn

    # -- reading -------------------------------------------------------------------------

    def show(self, token: str | None, session_id: str) -> JSONBody:
        state = self._read_current(token, session_id)
        log = self._db.read(lambda conn: records.read_log(conn, session_id))
        return self._view(state, log=log)

    def log(self, token: str | None, session_id: str) -> JSONBody:
        self._read_current(token, session_id)
        bodies = self._db.read(lambda conn: records.read_log_bodies(conn, session_id))
        return {"envelopes": [json.loads(body) for body in bodies]}

    def receipt(self, token: str | None, session_id: str) -> JSONBody:
        state = self._read_current(token, session_id)
        if not state.is_final:
            raise refuse(RefusalCode.SESSION_OPEN, "The session has not ended; no receipt yet.")
        reveals = reveals_of(state)
        if state.phase is Phase.AGREED:
            stored = self._db.read(lambda conn: records.read_receipt(conn, session_id))
            assert stored is not None, "an agreed session's receipt is stored when agreed"
            body: JSONBody = json.loads(stored)
            # Reveals come after the signature; I3 (a reveal must open its commitment) is
            # judged on them, outside the signed payload.
            held = all(r["matches"] for r in reveals)
            invariants = body["invariants"] | {"I3_commitments_unchanged": held}
            return body | {"reveals": reveals, "invariants": invariants}
        log = self._db.read(lambda conn: records.read_log(conn, session_id))
        members = self._receipt_members(state, log)
        return unsigned_receipt(members)

    def list_sessions(self, token: str | None, limit: int) -> JSONBody:
        access = self.opener(token, allow=SECRET_KEY)
        states = self._db.read(
            lambda conn: rows.recent_states(conn, access.tenant_id, access.mode, limit)
        )
        return {"sessions": [session_summary(SessionState.model_validate_json(s)) for s in states]}

    # -- after the end -------------------------------------------------------------------

    def claim_handoff(self, token: str | None, session_id: str) -> JSONBody:
        state = self._read_current(token, session_id, buyer_only=True)
        if state.phase is not Phase.AGREED:
            raise refuse(RefusalCode.NOT_AGREED, "Only an agreed session has a hand-off.")
        if state.handoff is None:
            raise refuse(
                RefusalCode.HANDOFF_PENDING,
                "The merchant has not published the hand-off yet; ask again shortly.",
                retry_after=HANDOFF_RETRY_SECONDS,
            )
        return dict(state.handoff)

    def publish_handoff(self, token: str | None, session_id: str, body: JSONBody) -> JSONBody:
        def txn(conn: Connection) -> JSONBody | Refused:
            self._merchant(conn, token, session_id)
            loaded = self._engine.lock(conn, session_id)
            decision = decide.publish_handoff(loaded.state, body)
            if isinstance(decision, Refusal):
                return Refused(decision)
            self._engine.append(conn, loaded, decision, self._clock())
            return dict(body)

        return self._write(txn)

    def merchant_reveal(self, token: str | None, session_id: str) -> JSONBody:
        def txn(conn: Connection) -> JSONBody | Refused:
            self._merchant(conn, token, session_id)
            loaded = self._engine.lock(conn, session_id)
            decision = decide.merchant_reveal(loaded.state)
            if isinstance(decision, Refusal):
                return Refused(decision)
            self._engine.append(conn, loaded, decision, self._clock())
            return {"reveals": reveals_of(loaded.state)}

        return self._write(txn)

    def sweep(self) -> list[str]:
        """Close every session whose buyer was silent past its round timeout."""
        now = self._clock()
        due = self._db.read(lambda conn: records.due_negotiations(conn, PROTOCOL, format_time(now)))
        closed = []
        for session_id in due:

            def txn(conn: Connection, session_id: str = session_id) -> bool:
                return self._close_if_timed_out(conn, self._engine.lock(conn, session_id), now)

            if self._db.write(txn):
                closed.append(session_id)
        return closed

    def jwks(self) -> JSONBody:
        return dict(self._current_keys().jwks())

    def check_access(self, token: str | None, session_id: str, *, buyer_only: bool) -> None:
        """The credential, before the body is read: the session's token, or (to read) the
        secret key of the session's tenant and mode."""
        self._db.read(lambda conn: self._reader(conn, token, session_id, buyer_only))

    # -- the machinery -------------------------------------------------------------------

    def _write(self, txn: Callable[[Connection], T | Refused]) -> T:
        result = self._db.write(txn)
        self._notifier.notify()
        if isinstance(result, Refused):
            raise result
        return result

    def _identify(self, conn: Connection, token: str | None) -> Credential | MerchantAccess:
        """A session token or a merchant key; `unauthenticated` only when it is neither, so
        that a real credential of the wrong kind is told `forbidden`."""
        if token:
            found = self._credentials.find(conn, hash_token(token))
            if found is not None and found.kind == "session":
                return found
            access = self._merchants.identify(conn, token)
            if access is not None:
                return access
        raise refuse(
            RefusalCode.UNAUTHENTICATED,
            "Send the session token, or a current merchant key, as a Bearer credential.",
        )

    def _buyer(self, conn: Connection, token: str | None, session_id: str) -> None:
        """This session's token: a merchant key may read a session, never move in it."""
        who = self._identify(conn, token)
        if not isinstance(who, Credential) or who.negotiation_id != session_id:
            raise refuse(RefusalCode.FORBIDDEN, "Only this session's token may do that.")

    def _merchant(self, conn: Connection, token: str | None, session_id: str) -> MerchantAccess:
        """The secret key of the session's tenant and mode; another's session is not found."""
        who = self._identify(conn, token)
        if not isinstance(who, MerchantAccess) or who.key_kind != "secret":
            raise refuse(
                RefusalCode.FORBIDDEN, "Only the merchant's secret key may do that.",
                allowed=["secret"],
            )  # fmt: skip
        row = rows.find_session(conn, session_id)
        if row is None or (row.tenant_id, row.mode) != (who.tenant_id, who.mode):
            raise refuse(RefusalCode.SESSION_NOT_FOUND, "No such session for this key.")
        return who

    def _reader(
        self, conn: Connection, token: str | None, session_id: str, buyer_only: bool
    ) -> None:
        who = self._identify(conn, token)
        if isinstance(who, MerchantAccess) and not buyer_only:
            self._merchant(conn, token, session_id)
        else:
            self._buyer(conn, token, session_id)

    def opener(self, token: str | None, *, allow: frozenset[str]) -> MerchantAccess:
        """A merchant key of an allowed kind; a session token is `forbidden`, not unknown."""

        def read(conn: Connection) -> MerchantAccess:
            who = self._identify(conn, token)
            if not isinstance(who, MerchantAccess) or who.key_kind not in allow:
                raise refuse(
                    RefusalCode.FORBIDDEN,
                    "This credential may not do that; use a merchant key.",
                    allowed=sorted(allow),
                )
            return who

        return self._db.read(read)

    def check_merchant(self, token: str | None, session_id: str) -> None:
        self._db.read(lambda conn: self._merchant(conn, token, session_id))

    def _read_current(
        self, token: str | None, session_id: str, *, buyer_only: bool = False
    ) -> SessionState:
        def read(conn: Connection) -> SessionState:
            self._reader(conn, token, session_id, buyer_only)
            return self._engine.load(conn, session_id)

        state = self._db.read(read)
        if decide.expire(state, now=self._clock()) is not None:

            def txn(conn: Connection) -> SessionState:
                loaded = self._engine.lock(conn, session_id)
                self._close_if_timed_out(conn, loaded, self._clock())
                return loaded.state

            state = self._db.write(txn)
            self._notifier.notify()
        return state

    def _close_if_timed_out(
        self, conn: Connection, loaded: Loaded[SessionState], now: datetime
    ) -> bool:
        decision = decide.expire(loaded.state, now=now)
        if decision is None:
            return False
        self._engine.append(conn, loaded, decision, now)
        return True

    def _on_append(
        self,
        conn: Connection,
        loaded: Loaded[SessionState],
        before: SessionState | None,
        ts: str,
    ) -> None:
        """The invariants the server keeps are checked on every move: a move that would break
        one is not recorded (the transaction rolls back). I3 is the revealing party's to keep
        and I6 is kept right here, so a mismatched reveal is recorded and reported instead.
        An agreement is signed at once, with the key of the session's mode, and stored."""
        state = loaded.state
        log = records.read_log(conn, loaded.id)
        kept = invariants(state, log)
        broken = sorted(n for n in SERVER_KEPT if not kept[n])
        if broken:
            raise InvariantBroken(f"session {loaded.id} would break {broken}")
        if state.phase is not Phase.AGREED or (before is not None and before.is_final):
            return
        body = build_receipt(
            state,
            log,
            arbiter_id=self._settings.arbiter,
            retention_days=self._settings.retention_days,
        )
        assert body.signed_payload is not None
        members = body.members
        key = self._current_keys().active("test" if state.mode == "test" else "live")
        members["invariants"]["I6_signed_artifact"] = True
        receipt = signed_receipt(members, body.signed_payload, key)
        records.insert_receipt(conn, loaded.id, canonical(receipt), ts)

    def _receipt_members(self, state: SessionState, log: list[Envelope]) -> JSONBody:
        return build_receipt(
            state,
            log,
            arbiter_id=self._settings.arbiter,
            retention_days=self._settings.retention_days,
        ).members

    def _current_keys(self) -> Keyring:
        if self._keys is None:
            path = keyring_path(self._settings.key_file, self._settings.data_dir)
            self._keys = Keys(path, now=self._clock())
        return self._keys.current()

    def _view(
        self,
        state: SessionState,
        *,
        events: list[Envelope] | tuple[Envelope, ...] = (),
        log: list[Envelope] | None = None,
    ) -> JSONBody:
        return session_view(state, events=events, base_url=self._settings.base_url, log=log)

"""A third table, written here in a few lines and registered in one: the kernel gives it
idempotent moves, expiry on access, the sweep, `accord check` and a signed receipt, with no
change to accord/app, accord/store or accord/http."""

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from pydantic import BaseModel, ConfigDict
from sqlalchemy import Connection

from accord.app.check import check
from accord.app.negotiations import Answer, Loaded, Move, encode, request_hash
from accord.app.root import Accord
from accord.app.settings import Settings
from accord.core.commit import commit
from accord.core.envelope import Draft, Envelope
from accord.core.protocol import Context, Decision, Mode, Seen
from accord.core.refusals import Refusal, RefusalCode, Refused
from accord.core.step import after_expiry
from accord.core.times import format_time
from accord.protocols.registry import REGISTRY
from accord.store import records
from accord.store.database import Database
from accord.trust.encoding import b64url_decode
from accord.trust.jws import signing_input
from tests.conftest import FakeClock

SERVER = {"role": "server"}


class Tally(BaseModel):
    """Two parties add to a count until one of them settles it."""

    model_config = ConfigDict(frozen=True, strict=True)
    id: str
    count: int = 0
    deadline: str
    status: str = "open"
    seq: int = 0


@dataclass(frozen=True)
class Add:
    n: int


@dataclass(frozen=True)
class Settle:
    pass


class TallyTable:
    name = "tally"
    state_type = Tally
    tail_size = 0
    not_found = Refusal(RefusalCode.NOT_FOUND, "No such tally.")

    def decide(self, state: Tally, move: Any, actor: Any, context: Context) -> Decision | Refusal:
        def rule(s: Tally) -> Decision | Refusal:
            if s.status != "open":
                return Refusal(RefusalCode.ROOM_FINAL, f"The tally is {s.status}.")
            if isinstance(move, Settle):
                return Decision(public=[Draft("tally.settled", {"role": actor})])
            return Decision(public=[Draft("tally.add", {"role": actor}, {"n": move.n})])

        due = self.expire(state, context.now)
        return rule(state) if due is None else after_expiry(self, state, due, context, rule)

    def apply(self, state: Tally | None, envelope: Envelope, seen: Seen) -> Tally:
        p, seq = envelope.payload, envelope.seq
        match envelope.type:
            case "tally.opened":
                return Tally(id=p["id"], deadline=p["deadline"], seq=seq)
            case "tally.add":
                assert state is not None
                return state.model_copy(update={"count": state.count + p["n"], "seq": seq})
        assert state is not None
        status = "settled" if envelope.type == "tally.settled" else "expired"
        return state.model_copy(update={"status": status, "seq": seq})

    def seen_key(self, envelope: Envelope) -> str | None:
        return None

    def restore(self, stored: str, tail: Sequence[Envelope]) -> Tally:
        return Tally.model_validate_json(stored)

    def dump(self, state: Tally) -> str:
        return state.model_dump_json()

    def apply_private(self, state: Tally, party: str, record: Envelope) -> Tally:
        return state

    def expire(self, state: Tally, now: datetime) -> Decision | None:
        if state.status != "open" or format_time(now) < state.deadline:
            return None
        return Decision(public=[Draft("tally.expired", SERVER)])

    def is_final(self, state: Tally) -> bool:
        return state.status != "open"

    def is_agreed(self, state: Tally) -> bool:
        return state.status == "settled"

    def expires_at(self, state: Tally) -> str | None:
        return None if self.is_final(state) else state.deadline

    def view(self, state: Tally, party: str) -> dict[str, Any]:
        return state.model_dump()

    def notice_fields(self, negotiation_id: str, state: Tally) -> Mapping[str, Any]:
        return {"tally_id": negotiation_id}

    def scope(self, state: Tally) -> str | None:
        return None

    def broken_invariants(
        self, before: Tally | None, after: Tally, appended: Sequence[Envelope]
    ) -> Sequence[str]:
        return ["count_never_negative"] if after.count < 0 else []

    def receipt(
        self, state: Tally, log: Sequence[Envelope], *, arbiter_id: str, retention_days: int
    ) -> "Content":
        head = commit(log[-1].to_json())
        members = {"protocol": self.name, "state": state.status, "chain": {"head": head}}
        signed = {"final_terms": {"count": state.count}, "chain_head": head}
        return Content(members, signed if self.is_agreed(state) else None)

    def signing_mode(self, state: Tally) -> Mode:
        return "test"

    def served_receipt(self, state: Tally, receipt: dict[str, Any]) -> dict[str, Any]:
        return receipt


@dataclass(frozen=True)
class Content:
    members: dict[str, Any]
    signed_payload: dict[str, Any] | None


@pytest.fixture
def accord(db: Database, settings: Settings, clock: FakeClock) -> Accord:
    return Accord(
        settings, clock=clock, db=db, registry={**REGISTRY, "tally": lambda _: TallyTable()}
    )


def _open(accord: Accord, tally_id: str, *, hours: int = 1) -> None:
    kernel, table = accord.negotiations, accord.tables["tally"]
    deadline = format_time(kernel.clock() + timedelta(hours=hours))
    opened = Decision(
        public=[Draft("tally.opened", SERVER, {"id": tally_id, "deadline": deadline})]
    )
    kernel.write(lambda conn: kernel.create(conn, table, tally_id, opened, kernel.clock()))


def _move(accord: Accord, tally_id: str, move: Any, message_id: str | None = None) -> Answer:
    kernel, table = accord.negotiations, accord.tables["tally"]

    def answer(loaded: Loaded[Any], decision: Decision, who: str) -> Answer:
        return Answer(200, encode(table.view(loaded.state, who)))

    body = {"move": type(move).__name__, **vars(move)}
    step: Move[Any, str] = Move(
        authorize=lambda conn: "alice",
        party=lambda who: who,
        actor=lambda who: who,
        move=move,
        answer=answer,
        message_id=message_id,
        request_hash=request_hash(body),
    )
    return kernel.write(kernel.move(table, tally_id, step))


def _log(accord: Accord, tally_id: str) -> list[str]:
    return [e["type"] for e in accord.negotiations.log(tally_id)]


def test_a_registered_table_gets_idempotent_moves(accord: Accord) -> None:
    _open(accord, "tally_1")
    first = _move(accord, "tally_1", Add(2), message_id="m1")
    assert _move(accord, "tally_1", Add(2), message_id="m1") == first
    with pytest.raises(Refused) as reused:
        _move(accord, "tally_1", Add(3), message_id="m1")
    assert reused.value.refusal.code == RefusalCode.MESSAGE_ID_REUSED
    assert _log(accord, "tally_1") == ["tally.opened", "tally.add"]
    assert json.loads(first.body)["count"] == 2
    assert accord.negotiations.log("tally_1")[1]["message_id"] == "m1"


def test_a_registered_table_keeps_its_invariants(accord: Accord) -> None:
    _open(accord, "tally_1")
    with pytest.raises(AssertionError, match="count_never_negative"):
        _move(accord, "tally_1", Add(-1))
    assert _log(accord, "tally_1") == ["tally.opened"]


def test_a_registered_table_expires_on_access_and_refuses_after(
    accord: Accord, clock: FakeClock
) -> None:
    _open(accord, "tally_1")
    clock.advance(hours=2)
    table = accord.tables["tally"]
    _, state = accord.negotiations.current(table, "tally_1", lambda conn: None)
    assert state.status == "expired"
    assert _log(accord, "tally_1") == ["tally.opened", "tally.expired"]
    with pytest.raises(Refused) as refused:
        _move(accord, "tally_1", Add(1))
    assert refused.value.refusal.code == RefusalCode.ROOM_FINAL


def test_a_move_that_finds_the_expiry_due_records_it_then_is_refused(
    accord: Accord, clock: FakeClock
) -> None:
    _open(accord, "tally_1")
    clock.advance(hours=2)
    with pytest.raises(Refused) as refused:
        _move(accord, "tally_1", Add(1), message_id="late")
    assert refused.value.refusal.code == RefusalCode.ROOM_FINAL
    assert _log(accord, "tally_1") == ["tally.opened", "tally.expired"]


def test_a_registered_table_is_swept(accord: Accord, clock: FakeClock) -> None:
    _open(accord, "tally_1")
    _open(accord, "tally_2", hours=5)
    clock.advance(hours=2)
    ended = accord.negotiations.sweep()
    assert [(e.protocol, e.id, e.envelope.type) for e in ended] == [
        ("tally", "tally_1", "tally.expired")
    ]
    assert accord.negotiations.sweep() == []


def test_accord_check_reads_a_registered_table(accord: Accord, db: Database) -> None:
    _open(accord, "tally_1")
    _move(accord, "tally_1", Add(4))
    assert check(db, accord.tables).to_json()["ok"] is True

    def tamper(conn: Connection) -> None:
        stale = Tally(id="tally_1", count=99, deadline="2030-01-01T00:00:00Z", seq=1)
        records.save_projection(
            conn,
            "tally_1",
            head=records.read_negotiation(conn, "tally_1").head,  # type: ignore[union-attr]
            state=stale.model_dump_json(),
            version="tampered",
            is_final=False,
            expires_at=None,
            now="2026-11-30T12:00:00Z",
        )

    db.write(tamper)
    report = check(db, accord.tables, repair=True)
    assert [p["id"] for p in report.repaired] == ["tally_1"]
    assert "count" in report.repaired[0]["problem"]
    assert check(db, accord.tables).ok


def test_a_registered_table_gets_a_receipt_signed_once_at_agreement(
    accord: Accord, db: Database
) -> None:
    _open(accord, "tally_1")
    _move(accord, "tally_1", Add(7))
    _move(accord, "tally_1", Settle())
    table = accord.tables["tally"]
    _, state = accord.negotiations.current(table, "tally_1", lambda conn: None)
    receipt = accord.negotiations.receipt(table, "tally_1", state)
    assert receipt["signed_payload"]["final_terms"] == {"count": 7}
    (jwk,) = receipt["jwks"]["keys"]
    assert jwk in accord.keys.jwks()["keys"] and jwk["mode"] == "test"
    public = Ed25519PublicKey.from_public_bytes(b64url_decode(jwk["x"]))
    artifact = receipt["artifact"]
    message = signing_input(artifact["protected"], receipt["signed_payload"])
    public.verify(b64url_decode(artifact["signature"]), message)  # raises when it is not
    stored = db.read(lambda conn: records.read_receipt(conn, "tally_1"))
    assert stored is not None and json.loads(stored) == receipt  # signed once, then served

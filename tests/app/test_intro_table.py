"""The intro table through the kernel on the store (`accord/app/negotiations.py`): what every
table gets for free, shown for intro: idempotent turns by `message_id`, `accord check`, and a
receipt signed once at the accept that the offline verifier accepts with the log."""

import json
from typing import Any

import pytest

from accord.app.check import check
from accord.app.negotiations import Answer, Loaded, Move, encode, request_hash
from accord.app.root import Accord
from accord.core.protocol import Decision
from accord.core.refusals import RefusalCode, Refused
from accord.protocols.intro.decide import open_negotiation
from accord.protocols.intro.moves import Close, ResumeRequest, TurnRequest
from accord.protocols.intro.state import Actor, Checks, Key, Seat
from accord.store.database import Database
from accord.trust.verify import load_trusted, verify_receipt

NEGOTIATION = "neg_1"


def _open(accord: Accord) -> None:
    kernel, table = accord.negotiations, accord.tables["intro"]
    opened = open_negotiation(
        negotiation_id=NEGOTIATION,
        opportunity_id="opp_1",
        checks=Checks(mutual=True, constraint_fit=False),
    )
    kernel.write(lambda conn: kernel.create(conn, table, NEGOTIATION, opened, kernel.clock()))


def _move(accord: Accord, seat: Seat, move: Any, *, message_id: str | None = None) -> Answer:
    kernel, table = accord.negotiations, accord.tables["intro"]

    def answer(loaded: Loaded[Any], decision: Decision, who: Actor) -> Answer:
        return Answer(200, encode(table.view(loaded.state, who.seat)))

    step: Move[Any, Actor] = Move(
        authorize=lambda conn: Actor(seat, Key.SELECTED_AGENT),
        party=lambda who: str(who.seat),
        actor=lambda who: who,
        move=move,
        answer=answer,
        message_id=message_id,
        request_hash=request_hash(move.model_dump(exclude={"message_id"})),
    )
    return kernel.write(kernel.move(table, NEGOTIATION, step))


def _turn(action: str, message: str, count: int, message_id: str | None = None) -> TurnRequest:
    return TurnRequest(
        action=action, message=message, expected_turn_count=count, message_id=message_id
    )


def _types(accord: Accord) -> list[str]:
    return [e["type"] for e in accord.negotiations.log(NEGOTIATION)]


def test_a_turn_is_idempotent_by_message_id(accord: Accord) -> None:
    _open(accord)
    first = _move(accord, Seat.INITIATOR, _turn("propose", "Coffee?", 0, "m1"), message_id="m1")
    again = _move(accord, Seat.INITIATOR, _turn("propose", "Coffee?", 0, "m1"), message_id="m1")
    assert again == first and json.loads(first.body)["turn_count"] == 1
    with pytest.raises(Refused) as reused:
        _move(accord, Seat.INITIATOR, _turn("propose", "Tea?", 0, "m1"), message_id="m1")
    assert reused.value.refusal.code == RefusalCode.MESSAGE_ID_REUSED
    assert _types(accord) == ["negotiation.opened", "checks", "turn.propose"]
    assert accord.negotiations.log(NEGOTIATION)[2]["message_id"] == "m1"


def test_accord_check_is_clean_with_private_records(accord: Accord, db: Database) -> None:
    _open(accord)
    _move(accord, Seat.INITIATOR, _turn("decline", "Not now.", 0))
    with pytest.raises(Refused) as refused:
        _move(accord, Seat.INITIATOR, ResumeRequest(brief="Nothing new."))
    assert refused.value.refusal.code == RefusalCode.NO_NEW_CONTEXT
    report = check(db, accord.tables).to_json()
    assert report["ok"] is True and report["negotiations"] == 1


def test_an_accept_is_signed_once_and_verifies_with_its_log(accord: Accord) -> None:
    _open(accord)
    _move(accord, Seat.INITIATOR, _turn("propose", "Meet for coffee in Berlin.", 0))
    _move(accord, Seat.RESPONDER, _turn("accept", "Gladly.", 1))
    table = accord.tables["intro"]
    _, state = accord.negotiations.current(table, NEGOTIATION, lambda conn: None)
    receipt = accord.negotiations.receipt(table, NEGOTIATION, state)
    assert receipt["protocol"] == "intro" and receipt["enforcement"] == "bilateral"
    assert receipt["invariants"] == {"bounded_rounds": True, "grammar": True, "hash_chain": True}
    session = receipt["signed_payload"]["session"]
    assert {k: session[k] for k in ("opportunity_id", "negotiation_id", "rounds_completed")} == {
        "opportunity_id": "opp_1",
        "negotiation_id": NEGOTIATION,
        "rounds_completed": 1,
    }
    assert session["seats"] == ["initiator", "responder"]
    assert receipt["final_terms"] == {
        "turn_index": 0,
        "proposal": "Meet for coffee in Berlin.",
        "proposed_by": "initiator",
    }
    log = accord.negotiations.log(NEGOTIATION)
    verification = verify_receipt(receipt, trusted=load_trusted(accord.keys.jwks()), log=log)
    assert verification.ok, verification.to_json()
    tampered = [*log[:-2], {**log[-2], "payload": {**log[-2]["payload"], "message": "Tea."}}]
    assert not verify_receipt(receipt, trusted=load_trusted(accord.keys.jwks()), log=tampered).ok
    assert check(accord.db, accord.tables).ok


def test_a_closed_negotiation_has_an_unsigned_receipt(accord: Accord) -> None:
    _open(accord)
    kernel, table = accord.negotiations, accord.tables["intro"]

    def close(conn: Any) -> None:
        loaded = kernel.lock(conn, table, NEGOTIATION)
        decided = kernel.decide(conn, table, loaded, Close("decided"), None)
        assert not isinstance(decided, Refused)

    kernel.write(close)
    _, state = kernel.current(table, NEGOTIATION, lambda conn: None)
    receipt = kernel.receipt(table, NEGOTIATION, state)
    assert (receipt["state"], receipt["artifact"], receipt["jwks"]) == (
        "closed",
        None,
        {"keys": []},
    )
    verification = verify_receipt(receipt, log=kernel.log(NEGOTIATION))
    assert verification.status == "unsigned"
    assert next(c for c in verification.checks if c.id == "chain").ok

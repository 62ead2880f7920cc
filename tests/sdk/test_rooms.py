"""A room through the SDK against a real server on 127.0.0.1: open to a verified receipt, the
owner's confirmation of an agent's approve, finding a seat by its token, and refusals as
AccordError with the server's code, status and details."""

from datetime import UTC, datetime, timedelta

import pytest

from accord.sdk import Accord, AccordError, Applied, AwaitingOwner, Room
from tests.conftest import LiveServer
from tests.sdk.conftest import SCHEMA, terms

LIMIT = {"price": {"max": {"amount_minor": 9500, "currency": "EUR"}}}


def test_a_room_from_open_to_a_verified_receipt(accord: Accord) -> None:
    opened = accord.rooms.open(SCHEMA, subject=terms(10000), title="A desk")
    assert opened.room.state == "draft" and opened.room.title == "A desk"
    assert opened.seat.room_id == opened.owner.room_id == opened.room.room_id
    assert opened.to_json()["owner_token"] == opened.owner.token
    joined = accord.rooms.join(opened.invite.url, limits=LIMIT)  # the URL works as the token
    assert joined.room.seat == "joiner" and joined.limits_opening.limits == LIMIT

    countered = joined.seat.counter(terms(9000), message="90, and it's yours")
    assert isinstance(countered, Applied)
    assert countered.move.type == "move.counter"
    table = countered.room.table
    assert table is not None and table.terms == terms(9000)

    approved = opened.owner.approve(table.subject_hash, expected_seq=countered.room.seq)
    assert isinstance(approved, Applied) and approved.room.state == "awaiting"
    agreed = joined.owner.approve(table.subject_hash)
    assert isinstance(agreed, Applied) and agreed.room.state == "agreed"
    assert agreed.room.is_final

    receipt = opened.seat.receipt()
    assert receipt.is_signed and receipt.final_terms == terms(9000)
    log = joined.seat.log()
    assert [e.seq for e in log.envelopes] == list(range(len(log.envelopes)))
    verification = accord.receipts.verify(receipt, jwks=accord.receipts.jwks(), log=log)
    assert verification.ok, verification.to_json()
    verification.raise_for_failure()


def test_a_tampered_receipt_fails_offline(accord: Accord) -> None:
    opened = accord.rooms.open(SCHEMA, subject=terms(10000))
    joined = accord.rooms.join(opened.invite.token)
    subject_hash = opened.room.table.subject_hash if opened.room.table else ""
    joined.owner.approve(subject_hash)
    opened.owner.approve(subject_hash)
    body = opened.owner.receipt().to_json()
    body["final_terms"] = terms(1)
    result = accord.receipts.verify(body, jwks=accord.receipts.jwks())
    assert not result.ok
    assert [c.id for c in result.checks if not c.ok and not c.skipped] == ["terms"]


def test_an_agents_approve_waits_for_its_owner(accord: Accord) -> None:
    opened = accord.rooms.open(SCHEMA, subject=terms(10000))
    joined = accord.rooms.join(opened.invite.token)
    table = joined.room.table
    assert table is not None
    asked = joined.seat.approve(table.subject_hash)
    assert isinstance(asked, AwaitingOwner)
    assert asked.room.pending_confirmation is not None
    (waiting,) = joined.owner.confirmations()
    assert waiting.id == asked.confirmation.id and waiting.terms == terms(10000)

    declined = joined.owner.decline(waiting.id)
    assert declined.room.pending_confirmation is None and declined.room.approvals == []
    asked = joined.seat.approve(table.subject_hash)
    assert isinstance(asked, AwaitingOwner)
    confirmed = joined.owner.confirm(asked.confirmation.id)
    assert [a.seat for a in confirmed.room.approvals] == ["joiner"]
    assert joined.owner.confirmations() == []


def test_a_seat_found_by_its_token_alone(accord: Accord) -> None:
    opened = accord.rooms.open(SCHEMA)
    seat = accord.rooms.seat(opened.seat.token)
    assert seat.room_id == opened.room.room_id
    assert isinstance(seat.view(), Room)
    listed = accord.rooms.list([opened.owner.token, "owner_unknown"])
    assert [(r.room_id, r.seat, r.state) for r in listed.rooms] == [
        (opened.room.room_id, "opener", "draft")
    ]
    with pytest.raises(AccordError) as caught:
        accord.rooms.seat("seat_nobody")
    assert caught.value.code == "unauthenticated"


def test_an_ask_and_a_deadline(accord: Accord, server: LiveServer) -> None:
    opened = accord.rooms.open(SCHEMA, subject=terms(10000))
    joined = accord.rooms.join(opened.invite.token)
    deadline = server.clock() + timedelta(days=2)
    asked = joined.seat.ask("Is the desk oak?", deadline=deadline)
    assert isinstance(asked, Applied)
    assert asked.room.deadline == deadline.replace(microsecond=0)
    assert asked.move.payload == {"message": "Is the desk oak?",
                                  "deadline": deadline.strftime("%Y-%m-%dT%H:%M:%SZ")}  # fmt: skip
    assert opened.owner.view().your_turn


def test_a_repeated_message_id_gets_the_first_answer(accord: Accord) -> None:
    opened = accord.rooms.open(SCHEMA, subject=terms(10000))
    joined = accord.rooms.join(opened.invite.token)
    first = joined.seat.counter(terms(9000), message_id="counter-1")
    again = joined.seat.counter(terms(9000), message_id="counter-1")
    assert again.to_json() == first.to_json()
    assert len(joined.seat.log().envelopes) == len(first.room.moves) + 2  # opened, joined


def test_every_model_keeps_the_json_it_was_read_from(accord: Accord) -> None:
    """Each nested model holds its own JSON, exactly as sent, shared with no other model."""
    opened = accord.rooms.open(SCHEMA, subject=terms(10000))
    joined = accord.rooms.join(opened.invite.token)
    countered = joined.seat.counter(terms(9000), message="90?")
    sent = countered.to_json()["room"]
    moves = countered.room.moves
    assert [m.to_json() for m in moves] == sent["moves"] and len(moves) == 2
    assert countered.room.table is not None
    assert countered.room.table.to_json() == sent["table"]
    changed = moves[0].to_json()
    changed["seq"] = -1
    assert moves[0].to_json() == sent["moves"][0] != changed
    assert moves[1].to_json()["message"] == "90?" and "message" not in moves[0].to_json()


@pytest.mark.parametrize(
    ("act", "code", "status", "detail"),
    [
        pytest.param(lambda o, j: o.owner.counter(terms(9000)), "not_your_turn", 409, None,
                     id="not_your_turn"),
        pytest.param(lambda o, j: j.seat.offer(terms(9000)), "move_not_allowed", 409, "allowed",
                     id="move_not_allowed"),
        pytest.param(lambda o, j: j.seat.counter({"price": 5}), "invalid_terms", 422, "fields",
                     id="invalid_terms"),
        pytest.param(lambda o, j: (j.seat.counter(terms(9000)), o.seat.counter(terms(9000))),
                     "no_change", 422, None, id="no_change"),
        pytest.param(lambda o, j: j.seat.counter(terms(9900)), "outside_own_limits", 422,
                     "fields", id="outside_own_limits"),
        pytest.param(lambda o, j: j.seat.approve("sha256:" + "0" * 64), "stale_terms", 409,
                     None, id="stale_terms"),
        pytest.param(lambda o, j: j.seat.counter(terms(9000), expected_seq=0), "raced", 409,
                     None, id="raced"),
        pytest.param(lambda o, j: j.seat.confirm("cnf_none"), "forbidden", 403, None,
                     id="only_the_owner_confirms"),
        pytest.param(lambda o, j: j.owner.confirm("cnf_none"), "confirmation_not_found", 404,
                     None, id="confirmation_not_found"),
        pytest.param(lambda o, j: o.owner.receipt(), "room_open", 409, None, id="room_open"),
        pytest.param(lambda o, j: j.seat.counter(terms(9000), deadline="tomorrow"),
                     "invalid_deadline", 422, None, id="invalid_deadline"),
    ],
)  # fmt: skip
def test_refusals_keep_code_status_and_details(
    accord: Accord, act, code: str, status: int, detail: str | None
) -> None:
    opened = accord.rooms.open(SCHEMA, subject=terms(10000))
    joined = accord.rooms.join(opened.invite.token, limits=LIMIT)
    with pytest.raises(AccordError) as caught:
        act(opened, joined)
    error = caught.value
    assert (error.code, error.status) == (code, status)
    assert error.message and str(error) == f"{error.message} ({code})"
    if detail is not None:
        assert detail in error.details


def test_an_unknown_room_and_token(accord: Accord) -> None:
    opened = accord.rooms.open(SCHEMA)
    stranger = accord.rooms.seat("owner_nobody", room_id=opened.room.room_id)
    with pytest.raises(AccordError) as caught:
        stranger.view()
    assert (caught.value.code, caught.value.status) == ("unauthenticated", 401)
    with pytest.raises(AccordError) as caught:
        accord.rooms.join("invite_used_or_unknown")
    assert (caught.value.code, caught.value.status) == ("invite_invalid", 410)


def test_open_refused_by_the_server(accord: Accord) -> None:
    with pytest.raises(AccordError) as caught:
        accord.rooms.open({"price": {"type": "money", "currency": "XYZ"}})
    assert (caught.value.code, caught.value.status) == ("invalid_request", 400)


def test_times_are_aware_datetimes(accord: Accord) -> None:
    room = accord.rooms.open(SCHEMA).room
    assert room.created_at.tzinfo is not None
    assert room.created_at.astimezone(UTC) == datetime(2026, 11, 30, 12, tzinfo=UTC)

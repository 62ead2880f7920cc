"""`AsyncAccord` against a real server on 127.0.0.1: the same room and session as the sync
tests, refusals, and a seat's events on an event loop."""

from collections.abc import AsyncIterator

import pytest

from accord.sdk import AccordError, Applied, AsyncAccord, AwaitingOwner
from tests.conftest import LiveServer
from tests.sdk.conftest import SCHEMA, SKU, terms
from tests.sessions.conftest import Shop
from tests.sessions.support import OPENING

pytestmark = pytest.mark.anyio


@pytest.fixture
async def accord(server: LiveServer) -> AsyncIterator[AsyncAccord]:
    async with AsyncAccord(server.url) as client:
        yield client


async def test_a_room_from_open_to_a_verified_receipt(accord: AsyncAccord) -> None:
    opened = await accord.rooms.open(SCHEMA, subject=terms(10000))
    joined = await accord.rooms.join(opened.invite.token)
    countered = await joined.owner.counter(terms(9000))
    assert isinstance(countered, Applied) and countered.room.table is not None
    subject_hash = countered.room.table.subject_hash

    asked = await opened.seat.approve(subject_hash)
    assert isinstance(asked, AwaitingOwner)
    (waiting,) = await opened.owner.confirmations()
    confirmed = await opened.owner.confirm(waiting.id)
    assert [a.seat for a in confirmed.room.approvals] == ["opener"]
    agreed = await joined.owner.approve(subject_hash)
    assert isinstance(agreed, Applied) and agreed.room.state == "agreed"

    receipt = await joined.seat.receipt()
    log = await opened.seat.log()
    checked = accord.receipts.verify(receipt, jwks=await accord.receipts.jwks(), log=log)
    assert checked.ok, checked.to_json()
    seat = await accord.rooms.seat(joined.seat.token)
    assert (await seat.view()).state == "agreed"


async def test_a_session_from_open_to_a_verified_receipt(accord: AsyncAccord, shop: Shop) -> None:
    buyer = await accord.sessions.open(shop.keys["publishable_test"], SKU, agent_id="buyer-a")
    view = await buyer.offer(OPENING)
    assert view.state == "agreed"
    receipt = await buyer.receipt()
    jwks = await accord.receipts.jwks()
    checked = accord.receipts.verify(receipt, jwks=jwks, log=await buyer.log(), allow_test=True)
    assert checked.ok, checked.to_json()
    assert (await buyer.claim_handoff()).kind == "discount_code"
    merchant = accord.merchant(shop.keys["secret_test"])
    listed = await merchant.sessions()
    assert [s.session_id for s in listed.sessions] == [buyer.session_id]
    assert (await merchant.receipt(buyer.session_id)).to_json() == receipt.to_json()


async def test_refusals_are_accord_errors(accord: AsyncAccord, shop: Shop) -> None:
    opened = await accord.rooms.open(SCHEMA, subject=terms(10000))
    joined = await accord.rooms.join(opened.invite.token)
    with pytest.raises(AccordError) as caught:
        await joined.owner.offer(terms(9000))
    assert (caught.value.code, caught.value.status) == ("move_not_allowed", 409)
    assert "allowed" in caught.value.details
    buyer = await accord.sessions.open(shop.keys["publishable_test"], SKU, agent_id="buyer-b")
    with pytest.raises(AccordError) as caught:
        await buyer.receipt()
    assert (caught.value.code, caught.value.status) == ("session_open", 409)


async def test_a_seat_reads_its_events(accord: AsyncAccord) -> None:
    opened = await accord.rooms.open(SCHEMA, subject=terms(10000))
    joined = await accord.rooms.join(opened.invite.token)
    seen = []
    async for event in joined.seat.events():
        seen.append(event.type)
        if event.type == "your_turn":
            break
    assert seen == ["room.opened", "move.offer", "room.joined", "your_turn"]
    await joined.owner.counter(terms(9000))
    moved = await joined.seat.next_event(timeout=10)
    assert moved is not None and moved.type == "move.counter"
    assert joined.seat.last_event_id == moved.id
    assert await opened.seat.next_event(timeout=0) is None

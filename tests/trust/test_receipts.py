"""Every Accord receipt verifies: signed agreements by our verifier and by an independent JWS
implementation (joserfc), unsigned ones for closes and expiries, stored once and unchanged by a
key rotation (receipts.md, Receipt and Keys)."""

from typing import Any, Literal, cast

import pytest
from joserfc import jws
from joserfc.errors import BadSignatureError, SecurityWarning
from joserfc.jwk import KeySet, KeySetSerialization, OKPKey

from accord.app.rooms import Rooms
from accord.app.root import Accord
from accord.app.settings import Settings
from accord.core.commit import commit
from accord.core.jsonio import canonical
from accord.core.refusals import RefusalCode, Refused
from accord.protocols.rooms.moves import MoveRequest
from accord.protocols.rooms.receipt import build_receipt
from accord.protocols.rooms.state import MoveType
from accord.store import records
from accord.store.database import Database
from accord.trust.keys import keyring_path, rotate
from accord.trust.verify import Verification, load_trusted, verify_receipt
from tests.conftest import FakeClock
from tests.trust.conftest import COUNTER, agree, open_and_join


def _statuses(verification: Verification) -> dict[str, str]:
    return {
        c.id: "skipped" if c.skipped else "ok" if c.ok else "failed" for c in verification.checks
    }


def _joserfc_verify(receipt: dict[str, Any], jwks: dict[str, Any], payload: bytes) -> Any:
    artifact = receipt["artifact"]
    compact = f"{artifact['protected']}..{artifact['signature']}"
    # joserfc warns that the alg name EdDSA is deprecated by RFC 9864 (Ed25519 replaces it).
    with pytest.warns(SecurityWarning, match="RFC 9864"):
        return jws.deserialize_compact(
            compact,
            KeySet.import_key_set(cast(KeySetSerialization, jwks)),
            algorithms=["EdDSA"],
            payload=payload,
        )


def test_agreed_receipt_verifies_with_the_service_jwks_and_the_log(
    accord: Accord, rooms: Rooms
) -> None:
    agreement = agree(accord)
    receipt = agreement.receipt
    assert receipt["state"] == "agreed" and receipt["mode"] == "live"
    assert receipt["final_terms"] == COUNTER == receipt["signed_payload"]["final_terms"]
    verification = verify_receipt(
        receipt, trusted=load_trusted(accord.keys.jwks()), log=agreement.log
    )
    assert (verification.status, verification.ok, verification.signer) == ("valid", True, "pinned")
    assert set(_statuses(verification).values()) == {"ok"}
    verification.raise_for_failure()
    live = [k for k in accord.keys.jwks()["keys"] if k["mode"] == "live"]
    assert verification.kid == live[0]["kid"] == receipt["jwks"]["keys"][0]["kid"]
    assert receipt["signature"]["status"] == "valid"


def test_agreed_receipt_verifies_with_joserfc_over_the_same_detached_payload(
    accord: Accord,
    rooms: Rooms,
) -> None:
    agreement = agree(accord)
    receipt = agreement.receipt
    payload = canonical(receipt["signed_payload"])
    kid = receipt["jwks"]["keys"][0]["kid"]
    obj = _joserfc_verify(receipt, agreement.jwks, payload)
    assert obj.headers() == {
        "alg": "EdDSA",
        "b64": False,
        "crit": ["b64"],
        "kid": kid,
        "typ": "oanp-agreement+jws",
    }
    assert obj.payload == payload
    # With the one JWK of the JWKS alone, and refusing a payload that differs by one byte.
    (jwk,) = [k for k in agreement.jwks["keys"] if k["kid"] == kid]
    key = OKPKey.import_key({name: value for name, value in jwk.items() if name != "mode"})
    compact = f"{receipt['artifact']['protected']}..{receipt['artifact']['signature']}"
    with pytest.warns(SecurityWarning):
        jws.deserialize_compact(compact, key, algorithms=["EdDSA"], payload=payload)
    with pytest.warns(SecurityWarning), pytest.raises(BadSignatureError):
        jws.deserialize_compact(
            compact, key, algorithms=["EdDSA"], payload=payload.replace(b"119900", b"119901")
        )


def _close(rooms: Rooms, kind: MoveType) -> tuple[str, str]:
    room = open_and_join(rooms)
    status, _ = rooms.move(room.joiner_owner, room.room_id, MoveRequest(type=kind))
    assert status == 200
    return room.room_id, room.opener_seat


def _expire(rooms: Rooms, clock: FakeClock) -> tuple[str, str]:
    room = open_and_join(rooms)
    clock.advance(days=8)  # past the idle limit of a week
    return room.room_id, room.opener_seat


@pytest.mark.parametrize(
    ("how", "state"),
    [
        pytest.param("reject", "closed", id="rejected"),
        pytest.param("cancel", "closed", id="cancelled"),
        pytest.param("expire", "expired", id="expired"),
    ],
)
def test_closed_and_expired_rooms_get_unsigned_receipts_whose_chain_verifies(
    accord: Accord,
    rooms: Rooms,
    clock: FakeClock,
    how: Literal["reject", "cancel", "expire"],
    state: str,
) -> None:
    room_id, token = _expire(rooms, clock) if how == "expire" else _close(rooms, how)
    receipt = rooms.receipt(token, room_id)
    log = rooms.log(token, room_id)["envelopes"]
    assert receipt["state"] == state
    assert receipt["artifact"] is None and receipt["signed_payload"] is None
    assert receipt["jwks"] == {"keys": []}
    assert receipt["signature"]["status"] == "unsigned"
    assert receipt["chain"]["length"] == len(log) and receipt["chain"]["head"] == commit(log[-1])
    verification = verify_receipt(receipt, trusted=load_trusted(accord.keys.jwks()), log=log)
    assert (verification.status, verification.ok) == ("unsigned", False)
    statuses = _statuses(verification)
    assert statuses.pop("chain") == "ok"
    assert set(statuses.values()) == {"skipped"}
    # A log that does not match is still caught on an unsigned receipt.
    broken = verify_receipt(receipt, log=log[:-1])
    assert broken.status == "invalid" and _statuses(broken)["chain"] == "failed"


def test_no_receipt_before_the_room_is_final(rooms: Rooms) -> None:
    room = open_and_join(rooms)
    with pytest.raises(Refused) as refused:
        rooms.receipt(room.opener_seat, room.room_id)
    assert refused.value.refusal.code == RefusalCode.ROOM_OPEN


def test_receipt_is_stored_and_a_key_rotation_does_not_change_it(
    accord: Accord, rooms: Rooms, settings: Settings, clock: FakeClock, db: Database
) -> None:
    agreement = agree(accord)
    room = agreement.room
    stored = db.read(lambda conn: records.read_receipt(conn, room.room_id))
    assert stored is not None and stored == canonical(agreement.receipt)
    old_kid = agreement.receipt["jwks"]["keys"][0]["kid"]
    clock.advance(days=1)
    rotate(keyring_path(settings.key_file, settings.data_dir), "live", now=clock())
    assert rooms.receipt(room.opener_seat, room.room_id) == agreement.receipt
    jwks = accord.keys.jwks()
    live = [k for k in jwks["keys"] if k["mode"] == "live"]
    assert len(live) == 2 and live[0]["kid"] == old_kid and live[1]["kid"] != old_kid
    assert [k["mode"] for k in jwks["keys"]].count("test") == 1
    verification = verify_receipt(agreement.receipt, trusted=load_trusted(jwks), log=agreement.log)
    assert verification.ok and verification.status == "valid"
    # The next agreement is signed with the new live key, and verifies against the same JWKS.
    fresh = agree(accord)
    assert fresh.receipt["jwks"]["keys"][0]["kid"] == live[1]["kid"]
    assert verify_receipt(fresh.receipt, trusted=load_trusted(jwks), log=fresh.log).ok


def test_the_same_log_always_yields_the_same_signed_payload(
    accord: Accord, rooms: Rooms, settings: Settings, db: Database
) -> None:
    agreement = agree(accord)
    log = db.read(lambda conn: records.read_log(conn, agreement.room.room_id))
    first = build_receipt(log, arbiter_id=settings.arbiter, retention_days=settings.retention_days)
    second = build_receipt(
        list(log), arbiter_id=settings.arbiter, retention_days=settings.retention_days
    )
    assert first.signed_payload is not None
    assert canonical(first.signed_payload) == canonical(second.signed_payload)
    assert canonical(first.members) == canonical(second.members)
    assert first.signed_payload == agreement.receipt["signed_payload"]
    session = first.signed_payload["session"]
    assert session["chain_head"] == commit(agreement.log[-2])
    assert sorted(a["seat"] for a in session["approvals"]) == ["joiner", "opener"]

"""Receipts verified per second by `accord.trust.verify.verify_receipt`, beside raw Ed25519
verifications per second with the same library (cryptography), in the same run.

    .venv/bin/python benchmarks/receipts.py [--seconds 3] [--json]

The receipt is a real one: a room opened, joined and agreed on a temporary store. Raw
verification reuses one public key object and one message, the best case for the library, so
the ratio says what the eight checks cost on top of the signature itself (aim: above 0.7).
"""

import argparse
import json
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from accord.app.root import Accord
from accord.app.settings import Settings
from accord.protocols.rooms.moves import JoinRequest, MoveRequest, OpenRequest
from accord.store.database import Database
from accord.trust.encoding import b64url_decode
from accord.trust.jws import signing_input
from accord.trust.verify import load_trusted, verify_receipt


def agreed_receipt(folder: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    settings = Settings(data_dir=folder)
    db = Database(settings.database)
    accord = Accord(settings, clock=lambda: datetime.now(UTC), db=db)
    rooms = accord.rooms
    schema = {
        "price": {"type": "money", "currency": "EUR"},
        "pickup": {"type": "date"},
        "note": {"type": "string"},
    }
    terms = {"price": {"amount_minor": 42000, "currency": "EUR"}, "pickup": "2026-12-12",
             "note": "blue bicycle, with lights"}  # fmt: skip
    opened = rooms.open(OpenRequest(subject_schema=schema, subject=terms))
    joined = rooms.join(JoinRequest(invite_token=opened["invite"]["token"]))
    room_id, subject_hash = opened["room"]["room_id"], opened["room"]["table"]["subject_hash"]
    for token in (joined["owner_token"], opened["owner_token"]):
        rooms.move(token, room_id, MoveRequest(type="approve", subject_hash=subject_hash))
    receipt, jwks = rooms.receipt(opened["owner_token"], room_id), accord.keys.jwks()
    db.close()
    return receipt, jwks


def rates(first: Any, second: Any, seconds: float) -> tuple[float, float]:
    """Both rates, measured in alternating bursts so that any load on the machine weighs on
    both alike."""
    spent = [0.0, 0.0]
    count = 0
    deadline = time.perf_counter() + 2 * seconds
    while time.perf_counter() < deadline:
        for index, fn in enumerate((first, second)):
            start = time.perf_counter()
            for _ in range(200):
                fn()
            spent[index] += time.perf_counter() - start
        count += 200
    return count / spent[0], count / spent[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        receipt, jwks = agreed_receipt(Path(folder))
    trusted = load_trusted(jwks)
    assert verify_receipt(receipt, trusted=trusted).ok

    artifact = receipt["artifact"]
    kid = receipt["jwks"]["keys"][0]["kid"]
    key = Ed25519PublicKey.from_public_bytes(next(k.x for k in trusted if k.kid == kid))
    signature = b64url_decode(artifact["signature"])
    message = signing_input(artifact["protected"], receipt["signed_payload"])
    key.verify(signature, message)

    raw, receipts = rates(
        lambda: key.verify(signature, message),
        lambda: verify_receipt(receipt, trusted=trusted),
        args.seconds,
    )
    result = {
        "raw_ed25519_verifications_per_second": round(raw),
        "receipts_verified_per_second": round(receipts),
        "ratio": round(receipts / raw, 3),
    }
    if args.json:
        print(json.dumps(result))
        return
    print(f"raw Ed25519 verify (cryptography): {raw:10.0f} /s")
    print(f"receipts verified (8 checks):      {receipts:10.0f} /s")
    print(f"ratio receipts / raw:              {receipts / raw:10.3f}  (aim: above 0.7)")


if __name__ == "__main__":
    main()

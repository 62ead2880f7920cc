"""`/verify` (interfaces.md, Web pages): a receipt pasted or uploaded, with its log and keys or
this server's; each check in words; a tampered receipt is not valid; what is not JSON, or too
large, is refused; nothing is stored."""

import json
from typing import Any

import httpx

from tests.conftest import LiveServer
from tests.http.support import auth, open_room


def _agreed(server: LiveServer) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with server.client() as api:
        room = open_room(api)
        table = api.get(f"/v1/rooms/{room.room_id}", headers=auth(room.joiner_owner)).json()
        subject_hash = table["table"]["subject_hash"]
        for owner in (room.joiner_owner, room.opener_owner):
            approved = api.post(
                room.moves,
                json={"type": "approve", "subject_hash": subject_hash},
                headers=auth(owner),
            )
            assert approved.status_code == 200, approved.text
        receipt = api.get(f"/v1/rooms/{room.room_id}/receipt", headers=auth(room.opener_owner))
        log = api.get(f"/v1/rooms/{room.room_id}/log", headers=auth(room.opener_owner))
    return receipt.json(), log.json()["envelopes"]


def test_a_receipt_is_checked_in_words(server: LiveServer) -> None:
    receipt, log = _agreed(server)
    with httpx.Client(base_url=server.url, headers={"Origin": server.url}, timeout=30) as page:
        form = page.get("/verify")
        assert form.status_code == 200 and 'for="field-receipt"' in form.text
        pasted = page.post("/verify", data={"receipt": json.dumps(receipt), "log": json.dumps(log)})
        assert pasted.status_code == 200
        assert "Valid: valid" in pasted.text and "✓ ok" in pasted.text
        assert "this server&#39;s key as it answers now" in pasted.text
        uploaded = page.post(
            "/verify",
            files={
                "receipt_file": ("receipt.json", json.dumps(receipt).encode(), "application/json")
            },
        )
        assert "Valid: valid" in uploaded.text
        forged = json.loads(json.dumps(receipt))
        forged["payload"] = {**forged.get("payload", {}), "forged": True}
        tampered = page.post("/verify", data={"receipt": json.dumps(forged)})
        assert "Not valid" in tampered.text and "✗ failed" in tampered.text
        broken = page.post("/verify", data={"receipt": "{not json"})
        assert broken.status_code == 400 and "invalid_request" in broken.text
        huge = page.post("/verify", data={"receipt": " " * ((1 << 20) + 1)})
        assert huge.status_code == 413
    with httpx.Client(base_url=server.url, timeout=30) as elsewhere:
        cross = elsewhere.post(
            "/verify", data={"receipt": "{}"}, headers={"Origin": "https://attacker.example"}
        )
        assert cross.status_code == 403

"""One introduction from start to end over HTTP, as two people and their agents live it: two
intents, discovery, an opportunity, a round that ends in a decline, the owner's chat message,
a resume, an agreement, both people accept, identity opens, and `accord verify` accepts the
receipt with the whole log; then a new server on the same store shows all of it unchanged."""

import json
from pathlib import Path
from typing import Any

import httpx
from typer.testing import CliRunner

from accord.cli.main import app
from tests.conftest import FakeClock, LiveServer, serve_in_thread
from tests.intro.conftest import JSONBody, key, post_intent
from tests.principals.conftest import Principal

ADA_WANTS = "A cellist for a string quartet in Lyon, Saturday mornings"
BOB_WANTS = "Cellist in Lyon looking for a string quartet on Saturday mornings"


def call(client: httpx.Client, method: str, path: str, token: str, **body: Any) -> JSONBody:
    answer = client.request(
        method, path, json=None if method == "GET" else body, headers=key(token)
    )
    assert answer.status_code in (200, 201), answer.text
    got: JSONBody = answer.json()
    return got


def test_two_intents_to_a_verified_introduction(
    server: LiveServer, clock: FakeClock, ada: Principal, bob: Principal, tmp_path: Path
) -> None:
    with server.client() as client:
        mine = post_intent(
            client, ada, ADA_WANTS,
            constraints=[{"key": "city", "op": "eq", "value": "Lyon"}],
            identity={"display_name": "Ada", "contact": "ada@example.org"},
        )["intent_id"]  # fmt: skip
        theirs = post_intent(
            client, bob, BOB_WANTS,
            constraints=[{"key": "city", "op": "in", "value": ["Lyon", "Paris"]}],
            identity={"display_name": "Bob"},
        )["intent_id"]  # fmt: skip
        found = call(client, "POST", f"/api/intents/{mine}/discover", ada.agent_key)
        assert found["candidates"][0] | {"score": 0} == {
            "intent_id": theirs, "score": 0, "mutual": True, "constraint_fit": True,
            "statement": BOB_WANTS,
        }  # fmt: skip
        opened = call(
            client, "POST", f"/api/intents/{mine}/opportunities", ada.agent_key,
            candidates=[theirs], context="Ask whether they have a rehearsal room",
        )["opportunities"][0]  # fmt: skip
        opportunity = opened["opportunity_id"]
        base = f"/api/opportunities/{opportunity}"

        def turn(who: Principal, action: str, message: str, count: int) -> JSONBody:
            return call(
                client, "POST", f"{base}/negotiation/turns", who.agent_key,
                action=action, message=message, expected_turn_count=count,
            )  # fmt: skip

        turn(ada, "propose", "Would you join us on Saturday mornings?", 0)
        turn(bob, "counter", "Is there a fee?", 1)
        over = turn(ada, "decline", "I must ask Ada about a fee.", 2)["negotiation"]
        assert over["protocol"]["blocked_reason"] == "round_over"
        call(
            client, "POST", f"/api/intents/{mine}/chat", ada.owner_key,
            message="We can pay 80 EUR a session.",
        )  # fmt: skip
        resumed = call(
            client, "POST", f"{base}/negotiation/resume", ada.agent_key,
            brief="Ada offers 80 EUR a session",
        )["negotiation"]  # fmt: skip
        assert (resumed["round"], resumed["awaiting"]) == (2, "initiator")
        turn(ada, "propose", "Saturday mornings, 80 EUR a session?", 3)
        agreed = turn(bob, "accept", "Yes, gladly.", 4)
        assert agreed["negotiation"]["outcome"] == "agreed"
        assert agreed["counterparty"]["layers"] == {
            "statement": "open", "constraints": "open", "identity": "closed",
        }  # fmt: skip
        for who, status in ((ada, "pending"), (bob, "accepted")):
            decided = call(client, "PATCH", f"{base}/status", who.owner_key, status="accepted")
            assert decided["opportunity"]["status"] == status
        bobs_view = call(client, "GET", base, bob.agent_key)
        assert bobs_view["counterparty"]["identity"] == {
            "display_name": "Ada", "contact": "ada@example.org",
        }  # fmt: skip
        assert "rehearsal room" not in json.dumps(bobs_view)  # Ada's context is hers
        receipt = call(client, "GET", f"{base}/negotiation/receipt", bob.owner_key)
        log = call(client, "GET", f"{base}/negotiation/log", ada.owner_key)
        shown = {who: call(client, "GET", base, who.owner_key) for who in (ada, bob)}
    assert receipt["final_terms"] == {
        "turn_index": 3, "proposal": "Saturday mornings, 80 EUR a session?",
        "proposed_by": "initiator",
    }  # fmt: skip
    assert receipt["signed_payload"]["session"]["rounds_completed"] == 2
    text = json.dumps(log)
    for private in ('80 EUR a session"', "Ada offers", "rehearsal room", ada.principal_id):
        assert private not in text
    (tmp_path / "receipt.json").write_text(json.dumps(receipt))
    (tmp_path / "log.json").write_text(json.dumps(log))
    verified = CliRunner().invoke(
        app,
        [
            "verify", str(tmp_path / "receipt.json"), "--log", str(tmp_path / "log.json"),
            "--trust-url", f"{server.url}/.well-known/jwks.json", "--json",
        ],
    )  # fmt: skip
    assert verified.exit_code == 0, verified.stdout
    assert json.loads(verified.stdout)["status"] == "valid"
    # a restart loses nothing: a new server on the same store shows the same
    with serve_in_thread(server.settings, clock) as second, second.client() as client:
        for who in (ada, bob):
            assert call(client, "GET", base, who.owner_key) == shown[who]
        assert call(client, "GET", f"{base}/negotiation/receipt", ada.agent_key) == receipt

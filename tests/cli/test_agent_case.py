"""`accord agent run --case` against a real server: the agent for a seat a case follows takes
its limits from the case (aiming at the targets, stopping at the minimums or the BATNA) and
asks no approve of terms the case's review says reject, until the person overrides it."""

import json
from pathlib import Path
from typing import Any

import httpx
from typer.testing import CliRunner

from accord.app.principals import Principals
from accord.cli import credentials as store
from accord.cli.main import app
from accord.store.database import Database
from tests.cli.conftest import Person
from tests.conftest import FakeClock
from tests.intro.conftest import key
from tests.principals.conftest import Principal, make_principal
from tests.sessions.conftest import POLICY, Shop, shop

__all__ = ["shop"]  # fixtures

CASES = "/v1/adviser/cases"
TOPICS: list[dict[str, Any]] = [
    {
        "topic_id": "salary",
        "topic": "Base salary",
        "priority": "critical",
        "best_target": {"value": "USD 150,000"},
        "minimum_acceptable": {"value": "USD 135,000"},
        "x_accord": {"term": "salary"},
    },
    {
        "topic_id": "start",
        "topic": "Start date",
        "priority": "low",
        "best_target": {"value": "2027-02-01"},
        "minimum_acceptable": {"value": "2027-04-01"},
        "x_accord": {"kind": "date", "direction": "lower_is_better", "term": "start"},
    },
]


def patch(path: str, value: Any, patch_id: str, operation: str = "ADD") -> dict[str, Any]:
    return {
        "patch_id": patch_id,
        "operation": operation,
        "path": path,
        "proposed_value": value,
        "basis": "the candidate's own",
    }


def linked_case(client: httpx.Client, kim: Principal, room_id: str, seat_token: str) -> str:
    """Kim's case: two topics mapped to the room, the BATNA below the minimum, and a
    pre-commitment stricter than the minimum on one term (no start after March)."""
    made = client.post(CASES, json={"title": "Northwind"}, headers=key(kim.owner_key))
    case_id: str = made.json()["case_id"]
    patches = [
        *(patch("/topics_targets_tradeoffs/topics/-", t, str(t["topic_id"])) for t in TOPICS),
        patch("/alternatives/user/batna/value", "USD 125,000", "batna"),
        patch("/precommitment/created", True, "commit", "UPDATE_WITH_EVIDENCE"),
        patch("/precommitment/disqualifiers/-", "start > 2027-03-01", "late"),
    ]
    sent = client.post(
        f"{CASES}/{case_id}/patches",
        json={"based_on_state_version": 1, "patches": patches},
        headers=key(kim.owner_key),
    )
    assert not sent.json()["refused"], sent.text
    linked = client.post(
        f"{CASES}/{case_id}/links",
        json={"protocol": "rooms", "negotiation_id": room_id, "credential": seat_token},
        headers=key(kim.owner_key),
    )
    assert linked.status_code == 201, linked.text
    return case_id


def agent_run(person: Person, room_id: str, *more: str) -> dict[str, Any]:
    result = person.runner.invoke(
        app,
        ["agent", "run", room_id, "--server", person.server.url, "--credentials",
         str(person.credentials), "--wait", "1", "--json", *more],
    )  # fmt: skip
    assert result.exit_code == 0, (result.stdout, result.stderr)
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_the_agent_keeps_to_the_case(
    alice: Person, bob: Person, db: Database, clock: FakeClock
) -> None:
    kim = make_principal(Principals(db, clock=clock), "kim")
    opened = alice(
        "open", "--schema", "salary:money:USD,start:date",
        "--subject", "salary=120000,start=2027-02-01", "--json",
    )  # fmt: skip
    assert opened.exit_code == 0, opened.stderr
    room_id = json.loads(opened.stdout)["room"]["room_id"]
    assert bob("join", json.loads(opened.stdout)["invite"]["token"]).exit_code == 0
    seat = store.load(bob.credentials)[room_id]
    with alice.server.client() as client:
        case_id = linked_case(client, kim, room_id, seat.seat_token)
        case = ("--case", case_id, "--case-key", kim.agent_key)

        # it opens at the critical topic's target, in the room's own units, and trades a
        # little of the low one: never past its minimum
        first = agent_run(bob, room_id, *case)
        assert first["stopped"] == "timeout"
        terms = first["steps"][0]["terms"]
        assert terms["salary"] == {"amount_minor": 15_000_000, "currency": "USD"}
        assert "2027-02-01" <= terms["start"] <= "2027-04-01"

        # Northwind meets the salary but starts on March 2: within the agent's range, and
        # disqualified by Kim's pre-commitment, so the case's review says reject
        moved = alice("move", room_id, "counter", "--terms",
                      '{"salary": {"amount_minor": 15000000, "currency": "USD"}, '
                      '"start": "2027-03-02"}')  # fmt: skip
        assert moved.exit_code == 0, moved.stderr
        last = (*case, "--rounds", "2")  # its last offer: anything within its limits will do
        stopped = agent_run(bob, room_id, *last)
        assert stopped["stopped"] == "vetoed" and stopped["steps"] == [], stopped
        review = client.get(f"{CASES}/{case_id}", headers=key(kim.agent_key)).json()
        assert review["state"]["deal_review"]["recommendation"] == "reject"

        # Kim overrides the review, on the record: the agent asks to approve, for her to confirm
        overridden = client.post(
            f"{CASES}/{case_id}/deal-review/override",
            json={"decision": "accept", "reason": "They will pay a signing bonus for March"},
            headers=key(kim.owner_key),
        )
        assert overridden.status_code == 200, overridden.text
        approved = agent_run(bob, room_id, *last)
        assert approved["stopped"] == "needs_owner"
        assert [s["kind"] for s in approved["steps"]] == ["approve"]


def test_an_agent_without_a_case_key_or_mapping_says_so(
    alice: Person, bob: Person, tmp_path: Path, db: Database, clock: FakeClock
) -> None:
    opened = json.loads(
        alice("open", "--schema", "price:money:EUR", "--subject", "price=10", "--json").stdout
    )
    room_id = opened["room"]["room_id"]
    bob("join", opened["invite"]["token"])
    base = ["agent", "run", room_id, "--server", bob.server.url, "--credentials",
            str(bob.credentials)]  # fmt: skip
    no_brief = bob.runner.invoke(app, base)
    assert no_brief.exit_code == 2 and "--brief FILE, or --case" in no_brief.stderr
    no_key = bob.runner.invoke(app, [*base, "--case", "case_x"])
    assert no_key.exit_code == 2 and "with --case-key" in no_key.stderr
    kim = make_principal(Principals(db, clock=clock), "kim")
    with alice.server.client() as client:
        made = client.post(CASES, json={"title": "Bike"}, headers=key(kim.owner_key)).json()
    unmapped = bob.runner.invoke(
        app, [*base, "--case", made["case_id"], "--case-key", kim.agent_key]
    )
    assert unmapped.exit_code == 2 and "maps no topic to a field of this room" in unmapped.stderr


def test_a_buyer_agent_takes_its_ceiling_from_the_case_and_accepts_nothing_it_rejects(
    shop: Shop, runner: CliRunner, db: Database, clock: FakeClock
) -> None:
    """The ceiling is the case's minimum (the most Kim pays); her pre-commitment (nothing above
    USD 390) is stricter than any fair price, so the review of every offer says reject and the
    agent stops before accepting, with the session linked to the case."""
    kim = make_principal(Principals(db, clock=clock), "kim")
    price = {
        "topic_id": "price",
        "topic": "Monitor price",
        "priority": "critical",
        "best_target": {"value": "USD 380.00"},
        "minimum_acceptable": {"value": "USD 425.00"},
        "x_accord": {"kind": "money", "currency": "USD", "direction": "lower_is_better",
                     "term": "price"},
    }  # fmt: skip
    with shop.server.client() as client:
        made = client.post(CASES, json={"title": "Monitor"}, headers=key(kim.owner_key))
        case_id = made.json()["case_id"]
        patches = [
            patch("/topics_targets_tradeoffs/topics/-", price, "price"),
            patch("/precommitment/created", True, "commit", "UPDATE_WITH_EVIDENCE"),
            patch("/precommitment/acceptance_criteria/-", {"criterion_id": "cap",
                  "criterion": "At most USD 390", "importance": "critical",
                  "threshold": "price <= USD 390.00", "evidence_basis": None}, "cap"),
        ]  # fmt: skip
        sent = client.post(
            f"{CASES}/{case_id}/patches",
            json={"based_on_state_version": 1, "patches": patches},
            headers=key(kim.owner_key),
        )
        assert not sent.json()["refused"], sent.text
        result = runner.invoke(
            app,
            ["agent", "run", POLICY["sku"], "--table", "sessions", "--key",
             shop.keys["publishable_test"], "--case", case_id, "--case-key", kim.owner_key,
             "--server", shop.server.url, "--rounds", "5", "--json"],
        )  # fmt: skip
        assert result.exit_code == 0, (result.stdout, result.stderr)
        bought = json.loads(result.stdout)
        assert bought["session"]["state"] == "negotiating", bought
        assert bought["steps"][-1]["kind"] == "vetoed"
        assert bought["steps"][-1]["reason"].startswith("The case's deal review says reject")
        offers = [s["net_minor"] for s in bought["steps"] if s["kind"] == "offer"]
        assert offers and all(n <= 42_500 for n in offers)  # never past the case's minimum
        case = client.get(f"{CASES}/{case_id}", headers=key(kim.agent_key)).json()
        assert case["links"][0]["negotiation_id"] == bought["session"]["id"]
        assert case["links"][0]["seat"] == "buyer"
        assert case["state"]["deal_review"]["recommendation"] == "reject"

"""Two people at their terminals, from intents to an introduction, with nothing but `accord
intro`: each posts an intent, Ada's agent discovers Bea's and opens an opportunity, the agents
negotiate to an agreement, both people accept, each now sees the other's identity, and the
receipt they keep checks with `accord verify`."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from accord.app.principals import Principals
from accord.cli.main import app
from accord.store.database import Database
from tests.cli.intro_support import CELLIST, QUARTET, Someone, ok, said
from tests.conftest import FakeClock, LiveServer
from tests.principals.conftest import make_principal


@pytest.fixture
def people(
    runner: CliRunner, server: LiveServer, db: Database, clock: FakeClock
) -> tuple[Someone, Someone]:
    principals = Principals(db, clock=clock)
    return (
        Someone(runner, server, make_principal(principals, "ada")),
        Someone(runner, server, make_principal(principals, "bea")),
    )


def test_from_two_intents_to_an_introduction(
    people: tuple[Someone, Someone], tmp_path: Path
) -> None:
    ada, bea = people
    mine = ok(ada.owner("intents", "create", CELLIST, "--visibility", "public",
                        "-c", "city eq Lyon", "--identity", "display_name=Ada",
                        "--identity", "contact=ada@example.org", "--json"))  # fmt: skip
    theirs = ok(bea.owner("intents", "create", QUARTET, "--visibility", "public",
                          "-c", "city eq Lyon", "--identity", "display_name=Bea Quartet",
                          "--json"))  # fmt: skip
    mine_id, theirs_id = mine["intent"]["intent_id"], theirs["intent"]["intent_id"]

    (candidate,) = ok(ada.agent("discover", mine_id, "--json"))["candidates"]
    assert (candidate["intent_id"], candidate["mutual"], candidate["constraint_fit"]) == (
        theirs_id,
        True,
        True,
    )
    (opportunity,) = ok(ada.agent("open", mine_id, theirs_id, "--json"))["opportunities"]
    opportunity_id = opportunity["opportunity_id"]

    before = said(bea.agent("opportunities", "show", opportunity_id))
    assert "  identity: closed" in before and "  constraints: city eq Lyon" in before
    assert "Ada" not in before  # identity opens only once both people accept

    said(ada.agent("negotiation", "turn", opportunity_id, "propose", "Saturday mornings?"))
    said(bea.agent("negotiation", "turn", opportunity_id, "counter", "Sunday too?"))
    said(ada.agent("negotiation", "turn", opportunity_id, "propose", "Saturdays, and Sundays "
                   "twice a month"))  # fmt: skip
    agreed = said(bea.agent("negotiation", "turn", opportunity_id, "accept", "Agreed"))
    assert "settled: agreed" in agreed

    assert (
        ok(ada.owner("decide", opportunity_id, "accept", "--json"))["opportunity"]["status"]
        == "pending"
    )
    decided = said(bea.owner("decide", opportunity_id, "accept"))
    assert decided.splitlines() == [
        f"opportunity {opportunity_id}  accepted",
        "decisions: yours accepted, theirs accepted",
    ]

    seen_by_ada = said(ada.agent("opportunities", "show", opportunity_id))
    assert "  identity: display_name=Bea Quartet" in seen_by_ada
    seen_by_bea = ok(bea.agent("negotiation", "show", opportunity_id, "--json"))
    assert seen_by_bea["counterparty"]["identity"] == {
        "display_name": "Ada",
        "contact": "ada@example.org",
    }
    turns = seen_by_bea["negotiation"]["turns"]
    assert [(t["seat"], t["action"]) for t in turns] == [
        ("initiator", "propose"),
        ("responder", "counter"),
        ("initiator", "propose"),
        ("responder", "accept"),
    ]

    receipt = tmp_path / "receipt.json"
    said(bea.agent("negotiation", "receipt", opportunity_id, "-o", str(receipt)))
    checked = bea.runner.invoke(app, [
        "verify", str(receipt), "--log", str(tmp_path / "receipt.log.json"),
        "--trust-url", f"{bea.server.url}/.well-known/jwks.json", "--json",
    ])  # fmt: skip
    assert checked.exit_code == 0, checked.stdout
    verdict = json.loads(checked.stdout)
    assert (verdict["ok"], verdict["status"]) == (True, "valid")
    final_terms = json.loads(receipt.read_text())["final_terms"]
    assert final_terms["proposal"] == "Saturdays, and Sundays twice a month"

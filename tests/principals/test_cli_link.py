"""`accord principals link` through the real entry point against a live server: the owner key
handed on once by a code that signs a browser (or a Telegram chat) in as the principal's owner;
an agent key or another principal's key refused, saying why."""

import json

import httpx
from typer.testing import CliRunner

from accord.app.identity import PrincipalCaller
from accord.app.links import Links
from accord.app.settings import Settings
from accord.cli.main import app
from accord.store.database import Database
from tests.conftest import FakeClock, LiveServer
from tests.principals.conftest import Principal


def test_the_owner_key_is_handed_on_once(
    server: LiveServer, ada: Principal, db: Database, settings: Settings, clock: FakeClock
) -> None:
    runner = CliRunner()
    args = ["principals", "link", "ada", "--key", ada.owner_key, "--server", server.url]
    made = runner.invoke(app, [*args, "--json"])
    assert made.exit_code == 0, made.output
    body = json.loads(made.stdout)
    assert set(body) == {"code", "web_url", "expires_at"}  # no bot: no telegram_url
    assert body["web_url"] == f"{server.url}/claim#{body['code']}"
    with httpx.Client(base_url=server.url, headers={"Origin": server.url}) as browser:
        claimed = browser.post("/claim", data={"code": body["code"]})
        assert (claimed.status_code, claimed.headers["location"]) == (303, "/opportunities")
        assert "Your introductions" in browser.get("/opportunities").text
        again = browser.post("/claim", data={"code": body["code"]})
        assert again.status_code == 410 and "cannot be used" in again.text  # once only

    other = json.loads(runner.invoke(app, [*args, "--json"]).stdout)["code"]
    redeemed = Links(db, settings, clock=clock).redeem(other, "telegram")
    assert redeemed.token == ada.owner_key
    assert redeemed.caller == PrincipalCaller(ada.principal_id, "owner", None)

    for_a_person = runner.invoke(app, args)
    assert for_a_person.exit_code == 0, for_a_person.output
    assert for_a_person.stdout.startswith(f"{server.url}/claim#")
    assert "Open it once" in for_a_person.stderr and ada.owner_key not in for_a_person.output


def test_a_key_that_is_not_the_persons_is_refused(server: LiveServer, ada: Principal) -> None:
    runner = CliRunner()

    def link(name: str, key: str) -> tuple[int, str]:
        ran = runner.invoke(app, ["principals", "link", name, "--key", key, "--server", server.url])
        assert ran.stdout == "" and "Traceback" not in ran.stderr
        return ran.exit_code, ran.stderr.splitlines()[0]

    assert link("bob", ada.owner_key) == (
        1,
        "error: this key is ada's, not bob's: pass bob's owner key",
    )
    code, said = link("ada", ada.agent_key)
    assert code == 1 and said.startswith("error: Only a person's own credential makes a link")
    assert said.endswith("(forbidden)")
    code, said = link("ada", "acc_ok_unknown")
    assert code == 1 and said.endswith("(unauthenticated)")

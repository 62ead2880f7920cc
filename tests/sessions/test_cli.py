"""`accord sessions list | show | receipt` through the real entry point, against the `shop`
fixture's live server with the merchant's secret key."""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from accord.cli.main import app
from tests.conftest import free_port
from tests.sessions.conftest import POLICY, Shop


@dataclass
class Merchant:
    """The merchant at a terminal: `accord sessions ...` with its secret test key."""

    runner: CliRunner
    shop: Shop

    def __call__(self, *args: str, key: str = "secret_test") -> Result:
        full = ["sessions", *args, "--server", self.shop.server.url, "--key", self.shop.keys[key]]
        return self.runner.invoke(app, full)

    def api(self, path: str, **params: Any) -> Any:
        with self.shop.client("secret_test") as client:
            answer = client.get(path, params=params)
        return answer.json()


@dataclass
class Sessions:
    agreed: str
    open: str


@pytest.fixture
def merchant(shop: Shop) -> Merchant:
    return Merchant(CliRunner(), shop)


@pytest.fixture
def sessions(shop: Shop) -> Sessions:
    """One session agreed (the buyer accepted the merchant's opening offer), one still open."""
    with shop.client("publishable_test") as buyer:
        ids = []
        for agent in ("quick", "slow"):
            opened = buyer.post(
                "/v1/sessions", json={"sku": POLICY["sku"], "buyer": {"agent_id": agent}}
            )
            assert opened.status_code == 201, opened.text
            ids.append((opened.json()["session_id"], opened.json()["session_token"]))
    (agreed, token), (still_open, _) = ids
    with shop.server.client(token) as quick:
        accepted = quick.post(f"/v1/sessions/{agreed}/messages", json={"type": "accept"})
        assert accepted.json()["state"] == "agreed", accepted.text
    return Sessions(agreed, still_open)


def test_list_shows_the_sessions(merchant: Merchant, sessions: Sessions) -> None:
    result = merchant("list")
    assert result.exit_code == 0, result.stderr
    assert sessions.agreed in result.stdout and sessions.open in result.stdout
    assert "agreed" in result.stdout and "negotiating" in result.stdout


def test_list_json_is_the_api_body(merchant: Merchant, sessions: Sessions) -> None:
    result = merchant("list", "--json", "--limit", "1")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == merchant.api("/v1/sessions", limit=1)
    assert len(json.loads(result.stdout)["sessions"]) == 1


def test_list_without_sessions_says_so_on_stderr(merchant: Merchant) -> None:
    result = merchant("list")
    assert result.exit_code == 0
    assert result.stdout == ""
    assert "no sessions" in result.stderr


def test_show(merchant: Merchant, sessions: Sessions) -> None:
    result = merchant("show", sessions.open)
    assert result.exit_code == 0, result.stderr
    assert sessions.open in result.stdout
    assert "negotiating" in result.stdout
    assert "offer.propose" in result.stdout and "arbitration.evaluate" in result.stdout


def test_show_json_is_the_api_body(merchant: Merchant, sessions: Sessions) -> None:
    result = merchant("show", sessions.agreed, "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == merchant.api(f"/v1/sessions/{sessions.agreed}")


def test_receipt(merchant: Merchant, sessions: Sessions) -> None:
    result = merchant("receipt", sessions.agreed)
    assert result.exit_code == 0, result.stderr
    assert f"receipt of {sessions.agreed}: agreed (test)" in result.stdout
    assert "signature: valid" in result.stdout


def test_receipt_json_is_the_api_body(merchant: Merchant, sessions: Sessions) -> None:
    result = merchant("receipt", sessions.agreed, "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == merchant.api(f"/v1/sessions/{sessions.agreed}/receipt")


def test_receipt_to_a_file_verifies_offline(
    merchant: Merchant, sessions: Sessions, tmp_path: Path
) -> None:
    target = tmp_path / "receipt.json"
    result = merchant("receipt", sessions.agreed, "-o", str(target))
    assert result.exit_code == 0, result.stderr
    log = tmp_path / "receipt.log.json"
    assert json.loads(target.read_text()) == merchant.api(f"/v1/sessions/{sessions.agreed}/receipt")
    assert json.loads(log.read_text()) == merchant.api(f"/v1/sessions/{sessions.agreed}/log")
    assert "accord verify" in result.stderr
    trust = f"{merchant.shop.server.url}/.well-known/jwks.json"
    verified = merchant.runner.invoke(
        app, ["verify", str(target), "--log", str(log), "--trust-url", trust, "--allow-test"]
    )
    assert verified.exit_code == 0, verified.stdout


def test_an_output_file_in_a_missing_folder(
    merchant: Merchant, sessions: Sessions, tmp_path: Path
) -> None:
    target = tmp_path / "missing-dir" / "r.json"
    result = merchant("receipt", sessions.agreed, "-o", str(target))
    assert result.exit_code == 1
    assert isinstance(result.exception, SystemExit)  # a message, not a traceback
    assert result.stderr == f"error: {target}: No such file or directory\n"


def test_a_refusal_exits_1_with_its_code(merchant: Merchant, sessions: Sessions) -> None:
    result = merchant("receipt", sessions.open)
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.startswith("error: ")
    assert result.stderr.rstrip().endswith("(session_open)")


def test_a_refusal_under_json_prints_the_api_error_body_on_stderr(
    merchant: Merchant, sessions: Sessions
) -> None:
    result = merchant("show", "ses_unknown", "--json")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert json.loads(result.stderr) == merchant.api("/v1/sessions/ses_unknown")
    assert json.loads(result.stderr)["error"]["code"] == "session_not_found"


def test_a_publishable_key_is_refused(merchant: Merchant, sessions: Sessions) -> None:
    result = merchant("list", key="publishable_test")
    assert result.exit_code == 1
    first, *details = result.stderr.splitlines()
    assert first.endswith("(forbidden)")
    assert details == ["  allowed: secret"]  # the error body's details, said too


def test_the_key_can_come_from_the_environment(merchant: Merchant, sessions: Sessions) -> None:
    env = {"ACCORD_KEY": merchant.shop.keys["secret_test"]}
    args = ["sessions", "list", "--json", "--server", merchant.shop.server.url]
    result = merchant.runner.invoke(app, args, env=env)
    assert result.exit_code == 0, result.stderr
    assert len(json.loads(result.stdout)["sessions"]) == 2


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(["list"], id="list"),
        pytest.param(["show", "ses_x"], id="show"),
        pytest.param(["receipt", "ses_x"], id="receipt"),
    ],
)
def test_a_missing_key_is_a_usage_error(
    args: list[str], shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ACCORD_KEY", raising=False)
    result = CliRunner().invoke(app, ["sessions", *args, "--server", shop.server.url])
    assert result.exit_code == 2
    assert "--key" in result.stderr


def test_an_unreachable_server_exits_1() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    result = CliRunner().invoke(app, ["sessions", "list", "--server", url, "--key", "acc_sk_x"])
    assert result.exit_code == 1
    assert "cannot reach" in result.stderr

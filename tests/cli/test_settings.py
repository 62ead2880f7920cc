"""Every setting of the Configuration table works as a flag and as a variable; flags win."""

from pathlib import Path
from typing import Any

import pytest
import typer
from pydantic import ValidationError
from typer.testing import CliRunner

from accord.app.settings import Settings
from accord.cli.options import with_settings
from accord.discovery import Ranking

ROWS = [
    ("--data-dir", "ACCORD_DATA_DIR", "/srv/a", "data_dir", Path("/srv/a")),
    ("--database-url", "ACCORD_DATABASE_URL", "postgresql+psycopg://x/y", "database_url",
     "postgresql+psycopg://x/y"),
    ("--host", "ACCORD_HOST", "0.0.0.0", "host", "0.0.0.0"),
    ("--port", "ACCORD_PORT", "9100", "port", 9100),
    ("--public-url", "ACCORD_PUBLIC_URL", "https://deals.example", "public_url",
     "https://deals.example"),
    ("--sweep-interval", "ACCORD_SWEEP_INTERVAL", "60", "sweep_interval", 60.0),
    ("--invite-ttl", "ACCORD_INVITE_TTL", "3600", "invite_ttl", 3600),
    ("--idle-ttl", "ACCORD_IDLE_TTL", "7200", "idle_ttl", 7200),
    ("--pending-ttl", "ACCORD_PENDING_TTL", "3600", "pending_ttl", 3600),
    ("--key-file", "ACCORD_KEY_FILE", "/run/keys.json", "key_file", Path("/run/keys.json")),
    ("--arbiter-id", "ACCORD_ARBITER_ID", "notary@deals.example", "arbiter_id",
     "notary@deals.example"),
    ("--retention-days", "ACCORD_RETENTION_DAYS", "30", "retention_days", 30),
    ("--ucp-namespace", "ACCORD_UCP_NAMESPACE", "example.deals", "ucp_namespace",
     "example.deals"),
    ("--rate-limit", "ACCORD_RATE_LIMIT", "120", "rate_limit", 120),
    ("--max-body-bytes", "ACCORD_MAX_BODY_BYTES", "65536", "max_body_bytes", 65536),
    ("--header-timeout", "ACCORD_HEADER_TIMEOUT", "2.5", "header_timeout", 2.5),
    ("--body-timeout", "ACCORD_BODY_TIMEOUT", "7.5", "body_timeout", 7.5),
    ("--keep-alive-timeout", "ACCORD_KEEP_ALIVE_TIMEOUT", "9", "keep_alive_timeout", 9),
    ("--ranking", "ACCORD_RANKING", "lexical", "ranking", Ranking.LEXICAL),
    ("--mutual-threshold", "ACCORD_MUTUAL_THRESHOLD", "0.5", "mutual_threshold", 0.5),
    ("--llm-base-url", "ACCORD_LLM_BASE_URL", "http://127.0.0.1:9/v1", "llm_base_url",
     "http://127.0.0.1:9/v1"),
    ("--llm-model", "ACCORD_LLM_MODEL", "small", "llm_model", "small"),
    ("--llm-api-key", "ACCORD_LLM_API_KEY", "sk-test", "llm_api_key", "sk-test"),
    ("--webhook-timeout", "ACCORD_WEBHOOK_TIMEOUT", "4.5", "webhook_timeout", 4.5),
    ("--telegram-token", "ACCORD_TELEGRAM_TOKEN", "42:T", "telegram_token", "42:T"),
    ("--telegram-mode", "ACCORD_TELEGRAM_MODE", "webhook", "telegram_mode", "webhook"),
    ("--telegram-bot", "ACCORD_TELEGRAM_BOT", "accord_bot", "telegram_bot", "accord_bot"),
]  # fmt: skip


def _capture() -> tuple[typer.Typer, list[Settings]]:
    seen: list[Settings] = []
    app = typer.Typer()

    @app.command()
    @with_settings
    def show(settings: Settings) -> None:
        seen.append(settings)

    return app, seen


@pytest.mark.parametrize(("flag", "variable", "raw", "attribute", "expected"), ROWS)
def test_each_setting_as_flag_and_as_variable(
    flag: str, variable: str, raw: str, attribute: str, expected: Any, monkeypatch
) -> None:
    for _, name, *_ in ROWS:
        monkeypatch.delenv(name, raising=False)
    app, seen = _capture()
    assert CliRunner().invoke(app, [flag, raw]).exit_code == 0
    assert CliRunner().invoke(app, [], env={variable: raw}).exit_code == 0
    assert getattr(seen[0], attribute) == expected
    assert getattr(seen[1], attribute) == expected


def test_private_webhook_addresses_are_a_switch_off_by_default(monkeypatch) -> None:
    monkeypatch.delenv("ACCORD_WEBHOOK_ALLOW_PRIVATE", raising=False)
    app, seen = _capture()
    assert CliRunner().invoke(app, []).exit_code == 0
    assert CliRunner().invoke(app, ["--webhook-allow-private"]).exit_code == 0
    assert CliRunner().invoke(app, [], env={"ACCORD_WEBHOOK_ALLOW_PRIVATE": "1"}).exit_code == 0
    assert [s.webhook_allow_private for s in seen] == [False, True, True]


def test_flags_win_over_variables() -> None:
    app, seen = _capture()
    result = CliRunner().invoke(app, ["--port", "9001"], env={"ACCORD_PORT": "9002"})
    assert result.exit_code == 0
    assert seen[0].port == 9001


def test_defaults_serve_one_person_on_one_machine(monkeypatch) -> None:
    for _, name, *_ in ROWS:
        monkeypatch.delenv(name, raising=False)
    app, seen = _capture()
    assert CliRunner().invoke(app, []).exit_code == 0
    settings = seen[0]
    assert settings.database == f"sqlite:///{Path('accord-data') / 'accord.db'}"
    assert (settings.host, settings.port) == ("127.0.0.1", 8000)
    assert settings.base_url == "http://127.0.0.1:8000"
    assert settings.arbiter == "accord@127.0.0.1"
    assert (settings.sweep_interval, settings.invite_ttl, settings.idle_ttl) == (
        3600,
        259200,
        604800,
    )
    assert (settings.retention_days, settings.rate_limit) == (90, 0)
    assert (settings.ranking, settings.mutual_threshold) == (Ranking.AUTO, None)


def test_settings_travel_to_worker_processes_unchanged(monkeypatch) -> None:
    settings = Settings(port=9100, public_url="https://x.example", key_file=Path("/k.json"))
    for name, value in settings.to_env().items():
        monkeypatch.setenv(name, value)
    assert Settings() == settings


def test_every_setting_has_a_row_and_an_option() -> None:
    switches = {"webhook_allow_private"}  # a flag without a value: its own test above
    assert {row[3] for row in ROWS} | switches == set(Settings.model_fields)


@pytest.mark.parametrize(
    ("variable", "raw"),
    [("ACCORD_PORT", "eighty"), ("ACCORD_SWEEP_INTERVAL", "soon"), ("ACCORD_RANKING", "semantic")],
)
def test_a_bad_variable_is_refused_by_name(variable: str, raw: str, monkeypatch) -> None:
    monkeypatch.setenv(variable, raw)
    with pytest.raises(ValidationError, match=variable.removeprefix("ACCORD_").lower()):
        Settings()


def test_an_unknown_setting_is_refused() -> None:
    with pytest.raises(ValidationError, match="prot"):
        Settings(prot=1)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("args", "env"),
    [
        pytest.param(["--ranking", "semantic"], {}, id="flag"),
        pytest.param([], {"ACCORD_RANKING": "semantic"}, id="variable"),
    ],
)
def test_a_bad_option_is_a_usage_error_naming_it(args: list[str], env: dict[str, str]) -> None:
    app, seen = _capture()
    result = CliRunner().invoke(app, args, env=env)
    assert (result.exit_code, seen) == (2, [])
    assert "--ranking" in result.output

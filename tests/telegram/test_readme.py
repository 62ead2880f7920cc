"""The README's Telegram walk-through as far as it runs without Telegram itself: `accord serve`
with a bot token serves the door, and `accord rooms link` prints the bot's deep link under the
browser's."""

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from accord.app.settings import Settings, TelegramMode
from accord.cli.main import app
from tests.conftest import FakeClock, serve_in_thread
from tests.telegram.conftest import TOKEN

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def test_rooms_link_prints_the_bots_deep_link(
    settings: Settings, clock: FakeClock, tmp_path: Path
) -> None:
    section = README.split("## Telegram", 1)[1].split("\n## ", 1)[0]
    assert "ACCORD_TELEGRAM_TOKEN=" in section and "accord rooms link ROOM_ID" in section
    on = settings.model_copy(
        update={
            "telegram_token": TOKEN,
            "telegram_bot": "your_bot",
            "telegram_mode": TelegramMode.WEBHOOK,  # nothing asks Telegram for updates here
        }
    )
    runner = CliRunner()
    with serve_in_thread(on, clock) as live:
        where = ["--server", live.url, "--credentials", str(tmp_path / "c.json")]
        opened = runner.invoke(
            app, ["rooms", "open", "--schema", "price:money:EUR", "--json", *where]
        )
        assert opened.exit_code == 0, opened.stderr
        room_id = json.loads(opened.stdout)["room"]["room_id"]
        linked = runner.invoke(app, ["rooms", "link", room_id, *where])
        assert linked.exit_code == 0, linked.stderr
        browser, telegram = linked.stdout.split()
        assert browser.startswith(f"{live.url}/claim#")
        assert re.fullmatch(r"https://t\.me/your_bot\?start=[A-Za-z0-9_-]{32}", telegram)
        assert telegram.rsplit("=", 1)[1] == browser.rsplit("#", 1)[1]  # one code, two doors
        assert "Or link Telegram with it" in linked.stderr

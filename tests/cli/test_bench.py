"""`accord bench tournament` through its real entry point."""

import json
from pathlib import Path

from typer.testing import CliRunner

from accord.agents.strategies import STRATEGIES
from accord.cli.main import app
from tests.agents.play_support import DATA


def test_a_tournament_prints_its_summary(runner: CliRunner) -> None:
    result = runner.invoke(app, ["bench", "tournament", "--scenarios", str(DATA), "--rounds", "20"])
    assert result.exit_code == 0, result.output
    assert "3 scenarios, 216 negotiations, 20 rounds" in " ".join(result.stdout.split())
    rows = [line.split() for line in result.stdout.splitlines()]
    listed = [row[0] for row in rows if row and row[0] in STRATEGIES]
    assert sorted(listed) == sorted(STRATEGIES)
    assert all(len(row) == 8 for row in rows if row and row[0] in STRATEGIES)


def test_json_and_out_give_the_same_document(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "result.json"
    result = runner.invoke(
        app,
        [
            "bench",
            "tournament",
            "--scenarios",
            str(DATA / "genius" / "fruit"),
            "--strategies",
            "accord,linear",
            "--repetitions",
            "2",
            "--no-self-play",
            "--jobs",
            "2",
            "--out",
            str(out),
            "--json",
        ],
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert json.loads(out.read_text()) == document
    assert document["settings"] == {
        "rounds": None,
        "repetitions": 2,
        "strategies": ["accord", "linear"],
        "self_play": False,
        "discounting": "remove",
        "seed": 0,
    }
    assert len(document["negotiations"]) == 2 * 2 * 2
    assert [(s["name"], s["rounds"]) for s in document["scenarios"]] == [("fruit", 100)]


def test_without_rounds_each_scenario_keeps_its_own(runner: CliRunner) -> None:
    result = runner.invoke(app, ["bench", "tournament", "--scenarios", str(DATA)])
    assert result.exit_code == 0, result.output
    # accord/deal.json says 20 rounds, the Genius folders nothing
    assert "3 scenarios, 216 negotiations, 20 to 100 rounds" in " ".join(result.stdout.split())


def test_mistakes_are_said_plainly(runner: CliRunner, tmp_path: Path) -> None:
    endless = tmp_path / "long" / "endless.json"
    endless.parent.mkdir()
    deal = json.loads((DATA / "accord" / "deal.json").read_text())
    endless.write_text(json.dumps(deal | {"rounds": 20_000}))
    (tmp_path / "empty").mkdir()
    cases = [
        (["--scenarios", str(endless)], 2, "asks for 20,000 rounds, more than 10,000"),
        (["--scenarios", str(tmp_path / "nowhere")], 1, "does not exist"),
        (["--scenarios", str(DATA), "--strategies", "accord,greedy"], 2, "unknown strategy greedy"),
        (["--scenarios", str(tmp_path / "empty")], 1, "no scenario found"),
        (["--scenarios", str(DATA), "--rounds", "0"], 2, "--rounds"),
        (["--scenarios", str(DATA), "--discounting", "ignore"], 2, "--discounting"),
    ]
    for arguments, code, message in cases:
        result = runner.invoke(app, ["bench", "tournament", *arguments])
        assert result.exit_code == code, (arguments, result.output)
        assert message in result.output, (arguments, result.output)
        assert result.stdout == "" or code == 2

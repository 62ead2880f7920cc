"""`accord bench`: measure strategies. `tournament` runs the spec's tournament on scenario files
and prints who won (spec/agents.md, Tournaments)."""

import enum
from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn
from rich.table import Table

from accord.agents.scenarios import ScenarioError, find_scenarios
from accord.agents.strategies import STRATEGIES
from accord.agents.tournament import DEFAULT_ROUNDS, Settings, negotiation_count, run
from accord.cli.errors import Failure
from accord.cli.flags import Json
from accord.cli.output import clean, dumps, err, out, print_json

MAX_ROUNDS = 10_000

app = typer.Typer(help="Measure strategies: tournaments on scenario files.", no_args_is_help=True)


class Discounting(enum.StrEnum):
    remove = "remove"
    honour = "honour"


@app.command()
def tournament(
    scenarios: Annotated[
        Path,
        typer.Option(
            "--scenarios",
            help="A scenario (Genius XML folder or accord-scenario/1 file) or a folder above "
            "several, searched recursively.",
        ),
    ],
    strategies: Annotated[
        str, typer.Option("--strategies", help="Comma-separated built-in strategy names.")
    ] = ",".join(STRATEGIES),
    repetitions: Annotated[
        int, typer.Option("--repetitions", min=1, help="Runs of every pairing, seeded apart.")
    ] = 1,
    rounds: Annotated[
        int | None,
        typer.Option(
            "--rounds",
            min=1,
            max=MAX_ROUNDS,
            help="Rounds before the deadline, in every scenario. Default: each scenario's own "
            f"`rounds`, else {DEFAULT_ROUNDS}.",
        ),
    ] = None,
    jobs: Annotated[
        int, typer.Option("--jobs", min=1, help="Processes; the results do not depend on it.")
    ] = 1,
    discounting: Annotated[
        Discounting,
        typer.Option("--discounting", help="Remove the profiles' discount or honour it."),
    ] = Discounting.remove,
    no_self_play: Annotated[
        bool, typer.Option("--no-self-play", help="Leave out a strategy against itself.")
    ] = False,
    seed: Annotated[int, typer.Option("--seed", help="Repetition i is seeded seed + i.")] = 0,
    out_file: Annotated[
        Path | None, typer.Option("--out", help="Also write the result document here.")
    ] = None,
    as_json: Json = False,
) -> None:
    """Every ordered pair of strategies, itself included, on every scenario and repetition,
    each pair twice (either profile moving first). Prints the summary, best first."""
    if not scenarios.exists():
        raise Failure(f"{scenarios} does not exist: give a scenario file or folder")
    names = tuple(name.strip() for name in strategies.split(",") if name.strip())
    try:
        settings = Settings(
            names,
            rounds=rounds,
            repetitions=repetitions,
            self_play=not no_self_play,
            discounting=discounting.value,
            seed=seed,
        )
        found, skipped = find_scenarios(scenarios)
    except (ValueError, ScenarioError) as exc:
        raise Failure(str(exc), exit_code=2) from None
    if not found:
        reasons = {s.path: s.reason for s in skipped}
        raise Failure(
            f"no scenario found in {scenarios}", details={"skipped": reasons} if reasons else None
        )
    longest = max(found, key=settings.rounds_of)
    if settings.rounds_of(longest) > MAX_ROUNDS:
        raise Failure(
            f"{longest.name} asks for {longest.rounds:,} rounds, more than {MAX_ROUNDS:,}: "
            "give --rounds",
            exit_code=2,
        )
    total = negotiation_count(settings, len(found))
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        console=err,
        transient=True,
    ) as progress:
        task = progress.add_task("negotiations", total=total)
        document = run(
            found,
            settings,
            skipped=skipped,
            jobs=jobs,
            progress=lambda n: progress.advance(task, n),
        )
    if out_file is not None:
        try:
            out_file.write_text(dumps(document))
        except OSError as exc:
            raise Failure(f"cannot write {out_file}: {exc.strerror}") from None
    if as_json:
        print_json(document)
        return
    _print_summary(document)


def _number(value: float | None, digits: int = 3) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _print_summary(document: dict[str, Any]) -> None:
    played = sorted({s["rounds"] for s in document["scenarios"]})
    rounds = str(played[0]) if len(played) == 1 else f"{played[0]} to {played[-1]}"
    table = Table(
        title=f"{len(document['scenarios'])} scenarios, {len(document['negotiations'])} "
        f"negotiations, {rounds} rounds",
        caption="adv: mean advantage (no self: without self-play); nash, pareto: optimality, "
        "means over agreements; irr.: irrational agreements",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    table.add_column("strategy", no_wrap=True)
    for header in ("adv", "no self", "agreed", "in ZOA", "nash", "pareto", "irr."):
        table.add_column(header, justify="right", min_width=len(header), no_wrap=True)
    for row in document["summary"]:
        table.add_row(
            row["strategy"],
            _number(row["advantage"]),
            _number(row["advantage_excluding_self_play"]),
            _number(row["agreement_rate"]),
            _number(row["agreement_rate_zoa"]),
            _number(row["nash_optimality"]),
            _number(row["pareto_optimality"]),
            str(row["irrational_agreements"]),
        )
    out.print(table)
    for skipped in document["skipped"]:
        err.print(f"skipped {clean(skipped['path'])}: {clean(skipped['reason'])}", markup=False)

"""NegMAS in a virtual environment of its own, for the benchmarks that run Accord beside it.

NegMAS (and the ANAC agents ported to it) is AGPL, so nothing under `accord/` imports it and it is
no dependency of the project. A benchmark that needs it calls `ensure_negmas` first: when negmas
is not importable, it makes `benchmarks/.venv-negmas` (git-ignored) on its first run, installs
`negmas==0.16.0`, the extra packages the script asks for and this checkout (editable) into it,
and runs the same command again with that environment's Python.
"""

import importlib.util
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from accord.agents.scenarios import Scenario

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_VENV = ROOT / "benchmarks" / ".venv-negmas"
NEGMAS_VERSION = "0.16.0"
REEXECUTED = "ACCORD_NEGMAS_ENV_REEXECUTED"
"""Set before a script runs itself again: a second miss is an error, not a loop."""


def shown(path: Path) -> str:
    """A path as the user would type it from the repository root."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def venv_python(venv: Path) -> Path:
    return venv / ("Scripts" if os.name == "nt" else "bin") / "python"


def _has_modules(python: Path, modules: Sequence[str]) -> bool:
    """Whether `python` can import every module (a first run stopped half way through
    installing, or an environment made for a script that needed less, is installed again)."""
    if not python.exists():
        return False
    probe = (
        "import importlib.util as u, sys; "
        f"sys.exit(not all(u.find_spec(m) for m in {list(modules)!r}))"
    )
    return subprocess.run([str(python), "-c", probe], check=False).returncode == 0


def ensure_negmas(
    venv: Path,
    script: Path,
    *,
    extra: Sequence[tuple[str, str]] = (),
) -> None:
    """Return when negmas (and each of `extra`'s modules) is importable here; otherwise install
    what is missing into `venv` and replace this process with `script` run by that environment's
    Python with the same arguments. `extra` holds (pip requirement, module it provides) pairs."""
    modules = ["negmas", "accord", *(module for _, module in extra)]
    if all(importlib.util.find_spec(module) is not None for module in modules):
        return
    if os.environ.get(REEXECUTED):
        sys.exit(f"{', '.join(modules)} not all importable by {sys.executable}; remove {venv}")
    python = venv_python(venv)
    if not _has_modules(python, modules):
        print(
            f"installing negmas {NEGMAS_VERSION} into {shown(venv)} (first run only)…",
            file=sys.stderr,
            flush=True,
        )
        if not python.exists():
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(python), "-m", "pip", "install", "-qq", "--disable-pip-version-check"]
        requirements = [f"negmas=={NEGMAS_VERSION}", *(requirement for requirement, _ in extra)]
        subprocess.run([*pip, *requirements], check=True)
        subprocess.run([*pip, "-e", str(ROOT)], check=True)
    print(f"running with {shown(python)} (negmas {NEGMAS_VERSION})", file=sys.stderr, flush=True)
    os.environ[REEXECUTED] = "1"
    os.execv(str(python), [str(python), str(script.resolve()), *sys.argv[1:]])


def pip_install(requirement: str) -> str | None:
    """Install `requirement` into the running environment (the benchmark's own); None on
    success, else the last lines pip printed, to list as the reason something was left out."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-qq", "--disable-pip-version-check", requirement],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode == 0:
        return None
    lines = (done.stderr or done.stdout).strip().splitlines()
    return " ".join(lines[-2:]) if lines else f"pip exited with {done.returncode}"


def negmas_side(
    scenario: "Scenario", *, name: str, discounted: bool = False
) -> tuple[Any, tuple[Any, Any]]:
    """NegMAS's outcome space and one linear utility function per profile, made from Accord's
    own issues, weights and evaluations (values are the issues' strings on both sides), so that
    both tools negotiate over the same utilities; with `discounted`, a profile's discount is
    applied as Genius does (`u·d^t` in relative time)."""
    outcomes = importlib.import_module("negmas.outcomes")
    prefs = importlib.import_module("negmas.preferences")
    issues = [
        outcomes.make_issue(values=list(issue.values), name=issue.name)
        for issue in scenario.domain.issues
    ]
    space = outcomes.make_os(issues, name=name)
    ufuns = []
    for index, profile in enumerate(scenario.profiles):
        label = profile.name or f"profile-{index}"
        ufun = prefs.LinearAdditiveUtilityFunction(
            values=[
                prefs.TableFun(dict(zip(issue.values, evaluations, strict=True)))
                for issue, evaluations in zip(
                    scenario.domain.issues, profile.evaluations, strict=True
                )
            ],
            weights=list(profile.weights),
            outcome_space=space,
            reserved_value=profile.reservation,
            name=label,
        )
        if discounted and profile.discount is not None:
            ufun = prefs.ExpDiscountedUFun(
                ufun,
                discount=profile.discount,
                factor="relative_time",
                reserved_value=profile.reservation,
                outcome_space=space,
                name=label,
            )
        ufuns.append(ufun)
    return space, (ufuns[0], ufuns[1])

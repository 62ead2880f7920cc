"""The README's walk-throughs, copy-pasted in order (as sqlite-utils and datasette test their
docs): every ```sh block marked `<!-- walk-through -->` runs, one after the other, in one bash
with `set -euo pipefail`, against a real `accord serve` on a free port in a temp folder, with
`accord` on the PATH from this venv.

What a test cannot run is left out by these rules, and by nothing else:

- a line that runs `pip install` (the venv is this one), or `. .venv/bin/activate` (its `bin`
  is put on the PATH instead);
- a line that runs `accord serve`: the test runs it, in the folder the script starts in, as
  the reader's first terminal does, and waits for `/healthz`;
- the README's address `http://127.0.0.1:8000` is the test server's address, and HOME is a
  temp folder, so that the default credentials file is the test's own.
"""

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import httpx
import pytest

from tests.conftest import free_port

README: Final = Path(__file__).resolve().parents[2] / "README.md"
MARKED: Final = re.compile(r"<!-- walk-through -->\n```(?:sh|bash|console)\n(.*?)```", re.S)
SKIPPED: Final = (
    re.compile(r"\bpip install\b"),
    re.compile(r"^\. \.venv/bin/activate\b"),
    re.compile(r"^accord serve\b"),
)
README_SERVER: Final = "http://127.0.0.1:8000"
BIN: Final = Path(sys.executable).parent


def script(readme: str, server: str) -> tuple[str, list[str]]:
    """The marked blocks as one bash script, and the lines the rules left out."""
    kept, left_out = [], []
    for block in MARKED.findall(readme):
        for line in block.splitlines():
            if any(rule.search(line.strip()) for rule in SKIPPED):
                left_out.append(line)
            else:
                kept.append(line.replace(README_SERVER, server))
    return "set -euo pipefail\n" + "\n".join(kept) + "\n", left_out


@pytest.fixture
def serving(tmp_path: Path) -> Iterator[tuple[str, dict[str, str]]]:
    """`accord serve` in the reader's folder, and the environment of their second terminal."""
    folder = tmp_path / "checkout"
    folder.mkdir()
    home = tmp_path / "home"
    home.mkdir()
    port = free_port()
    env = {key: value for key, value in os.environ.items() if not key.startswith("ACCORD_")}
    env |= {
        "HOME": str(home),
        "TMPDIR": str(tmp_path),  # where the walk-throughs' `mktemp -d` goes
        "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
    }
    log = tmp_path / "serve.log"
    with log.open("wb") as output:
        server = subprocess.Popen(
            [str(BIN / "accord"), "serve", "--port", str(port)],
            cwd=folder,
            env=env,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"accord serve did not start:\n{log.read_text()}")
            time.sleep(0.1)
        yield url, env | {"ACCORD_SERVER": url, "PWD": str(folder)}
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.skipif(shutil.which("jq") is None, reason="the walk-throughs use jq")
def test_the_walk_throughs_run_in_order(serving: tuple[str, dict[str, str]]) -> None:
    url, env = serving
    text, left_out = script(README.read_text(encoding="utf-8"), url)
    assert len(left_out) == len(SKIPPED), left_out  # each rule leaves out exactly one line
    for needed in ("accord rooms receipt", "accord verify", "curl -s $S/v1/rooms"):
        assert needed in text, f"the walk-throughs no longer run `{needed}`"
    ran = subprocess.run(
        ["bash", "-c", text],
        cwd=env["PWD"],
        env=env,
        capture_output=True,
        text=True,
        timeout=1500,  # ~40 `accord` processes, a tournament and two agent runs: minutes
    )
    assert ran.returncode == 0, f"stdout:\n{ran.stdout}\nstderr:\n{ran.stderr}"
    assert "Traceback" not in ran.stderr and "error:" not in ran.stderr, ran.stderr
    verdicts = re.findall(r"^(valid|invalid|unverifiable|unsigned): signer", ran.stdout, re.M)
    assert verdicts and set(verdicts) == {"valid"}, ran.stdout
    # the worked salary example says what it promises
    for line in (
        "refused  lower  precommitment_change_unlogged: a skill never moves a pre-commitment",
        "deal review: reject  Reject: the offer fails batna_test",
        "their offer: salary: USD 138,000.00; start: 2027-02-01",
        "counterpart  salary  USD 120,000.00 → USD 138,000.00  reciprocal False",
    ):
        assert line in ran.stdout, line
    assert re.search(r"^material change chg_\w+ seen$", ran.stdout, re.M), ran.stdout
    assert "# Northwind offer\n" in ran.stdout  # the brief
    assert "- Theirs: salary: USD 138,000.00; start: 2027-02-01\n" in ran.stdout


WRITTEN: Final = re.compile(r"(?:>|--credentials|-o)\s+([\w.-]+\.json)")


def test_the_walk_throughs_keep_their_secrets_out_of_the_repository() -> None:
    """They write in a folder of their own before any file, and what they write is ignored
    by git all the same, should someone run them in the checkout."""
    text, _ = script(README.read_text(encoding="utf-8"), README_SERVER)
    written = WRITTEN.findall(text)
    assert {"alice-room.json", "bob-tokens.json", "acme-keys.json"} <= set(written)
    assert text.index('cd "$(mktemp -d)"') < min(text.index(name) for name in written)
    names = [*written, "bicycle.log.json"]
    root = README.parent
    ignored = subprocess.run(
        ["git", "check-ignore", "--no-index", *names], cwd=root, capture_output=True, text=True
    )
    assert set(ignored.stdout.split()) == set(names)

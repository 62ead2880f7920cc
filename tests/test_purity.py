"""DESIGN principle 1: no clock, no ids and no randomness inside the kernel, a protocol or an
agent's strategy."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent / "accord"
PURE = sorted(
    [
        *(ROOT / "core").rglob("*.py"),
        *(ROOT / "protocols").rglob("*.py"),
        *(ROOT / "agents").rglob("*.py"),
        *(ROOT / "adviser").rglob("*.py"),
    ]
)
FORBIDDEN = re.compile(
    r"\b(datetime\.now|datetime\.utcnow|date\.today|time\.time|uuid[14]|os\.urandom)\b"
    # the secrets module, not a variable of that name
    r"|\bimport secrets\b|\bfrom secrets\b|\bsecrets\.(token_\w+|choice|randbelow|randbits)\b"
    # the random module's shared generator, or one seeded from the world; a generator seeded
    # by an argument (`random.Random(seed)`, as the engine makes per repetition) is a function
    # of that argument
    r"|\brandom\.(?!Random\b)\w+|\brandom\.Random\(\s*\)|\bSystemRandom\b"
    r"|\bfrom random import (?!Random\b)"
)


@pytest.mark.parametrize("path", PURE, ids=lambda p: str(p.relative_to(ROOT)))
def test_pure_modules_take_time_ids_and_nonces_as_arguments(path: Path) -> None:
    code = "\n".join(
        line for line in path.read_text().splitlines() if not line.lstrip().startswith("#")
    )
    assert not FORBIDDEN.search(code), f"{path.name} reads the world"

"""RFC 8785 conformance of `jsonio` against the official JCS vectors (tests/vectors/README.md)."""

import hashlib
import math
import struct
from pathlib import Path

import pytest

from accord.core.jsonio import JSONError, canonical, parse

JCS_DIR = Path(__file__).resolve().parent.parent / "vectors" / "jcs"
ES6_FILE = JCS_DIR / "es6testfile_first10k.txt"
ES6_SHA256 = "b9f7a8e75ef22a835685a52ccba7f7d6bdc99e34b010992cbc5864cd12be6892"

VECTOR_NAMES = sorted(p.name for p in (JCS_DIR / "input").glob("*.json"))


def test_every_input_has_an_output() -> None:
    outputs = sorted(p.name for p in (JCS_DIR / "output").glob("*.json"))
    assert outputs == VECTOR_NAMES
    assert len(VECTOR_NAMES) == 6


@pytest.mark.parametrize("name", VECTOR_NAMES, ids=VECTOR_NAMES)
def test_canonical_matches_upstream_output(name: str) -> None:
    data = (JCS_DIR / "input" / name).read_bytes()
    expected = (JCS_DIR / "output" / name).read_bytes()
    assert canonical(parse(data)) == expected


@pytest.mark.parametrize("name", VECTOR_NAMES, ids=VECTOR_NAMES)
def test_canonical_output_is_a_fixed_point(name: str) -> None:
    expected = (JCS_DIR / "output" / name).read_bytes()
    assert canonical(parse(expected)) == expected


def _double(hex_bits: str) -> float:
    (value,) = struct.unpack(">d", bytes.fromhex(hex_bits.zfill(16)))
    return float(value)


def test_es6_file_is_the_upstream_one() -> None:
    assert hashlib.sha256(ES6_FILE.read_bytes()).hexdigest() == ES6_SHA256


def test_es6_number_serialization() -> None:
    """One test over all lines (not one per line), so the 10k lines stay well under a second."""
    ran = 0
    failures: list[str] = []
    for line in ES6_FILE.read_text(encoding="ascii").splitlines():
        hex_bits, expected = line.split(",")
        value = _double(hex_bits)
        if not math.isfinite(value):
            with pytest.raises(JSONError):
                canonical(value)
            continue
        got = canonical(value)
        if got != expected.encode("ascii"):
            failures.append(f"{hex_bits}: got {got!r}, expected {expected!r}")
        ran += 1
    assert failures == []
    assert ran >= 9_000


@pytest.mark.parametrize(
    ("hex_bits", "expected"),
    [
        pytest.param("0", "0", id="zero"),
        pytest.param("8000000000000000", "0", id="negative_zero"),
        pytest.param("1", "5e-324", id="min_subnormal"),
        pytest.param("4340000000000001", "9007199254740994", id="above_2_53"),
        pytest.param("444b1ae4d6e2ef50", "1e+21", id="exponent_switch_1e21"),
        pytest.param("3eb0c6f7a0b5ed8d", "0.000001", id="exponent_switch_1e-6"),
        pytest.param("3eb0c6f7a0b5ed8c", "9.999999999999997e-7", id="just_below_1e-6"),
        pytest.param("7fefffffffffffff", "1.7976931348623157e+308", id="max_double"),
        pytest.param("7ff0000000000000", None, id="positive_infinity"),
        pytest.param("fff0000000000000", None, id="negative_infinity"),
        pytest.param("7ff8000000000000", None, id="nan"),
    ],
)
def test_es6_edge_cases(hex_bits: str, expected: str | None) -> None:
    """`None` means JCS cannot represent the value, so `canonical` must refuse it."""
    value = _double(hex_bits)
    if expected is None:
        with pytest.raises(JSONError):
            canonical(value)
    else:
        assert canonical(value) == expected.encode("ascii")

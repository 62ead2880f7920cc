"""Commitments (`accord/core/commit.py`): `commit(x) = "sha256:" + hex(sha256(JCS(x)))`."""

import hashlib
import random
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accord.core.commit import commit, commit_bytes, is_opening
from accord.core.jsonio import MAX_SAFE_INTEGER, JSONError, canonical

HASH_FORMAT = re.compile(r"sha256:[0-9a-f]{64}")

keys = st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=8)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-MAX_SAFE_INTEGER, max_value=MAX_SAFE_INTEGER)
    | st.text(alphabet=st.characters(exclude_categories=["Cs"]), max_size=12)
)
values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(keys, children, max_size=4),
    max_leaves=15,
)
objects = st.dictionaries(keys, values, min_size=1, max_size=6)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        # sha256 of the canonical bytes, worked out by hand: b"{}", b"null", b'{"a":1,"b":2}'.
        pytest.param(
            {},
            "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
            id="empty_object",
        ),
        pytest.param(
            None,
            "sha256:74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b",
            id="null",
        ),
        pytest.param(
            {"b": 2, "a": 1},
            "sha256:" + hashlib.sha256(b'{"a":1,"b":2}').hexdigest(),
            id="keys_sorted_before_hashing",
        ),
    ],
)
def test_commit_known_values(value: Any, expected: str) -> None:
    assert commit(value) == expected


@given(values)
def test_commit_format(value: Any) -> None:
    assert HASH_FORMAT.fullmatch(commit(value))


@given(values)
def test_commit_is_sha256_of_canonical_bytes(value: Any) -> None:
    expected = "sha256:" + hashlib.sha256(canonical(value)).hexdigest()
    assert commit(value) == expected
    assert commit_bytes(canonical(value)) == expected


@given(st.binary())
def test_commit_bytes(data: bytes) -> None:
    assert commit_bytes(data) == "sha256:" + hashlib.sha256(data).hexdigest()
    assert HASH_FORMAT.fullmatch(commit_bytes(data))


@given(objects, st.randoms(use_true_random=False))
def test_commit_ignores_key_order(value: dict[str, Any], rnd: random.Random) -> None:
    items = list(value.items())
    rnd.shuffle(items)
    assert commit(dict(items)) == commit(value)


@given(objects)
def test_is_opening_accepts_the_revealed_value(value: dict[str, Any]) -> None:
    assert is_opening(commit(value), value)
    assert is_opening(commit(value), dict(reversed(list(value.items()))))


@given(objects, st.data())
def test_is_opening_refuses_any_change(value: dict[str, Any], data: st.DataObject) -> None:
    key = data.draw(st.sampled_from(sorted(value)))
    replacement = data.draw(values.filter(lambda v: canonical(v) != canonical(value[key])))
    changed = {**value, key: replacement}
    assert not is_opening(commit(value), changed)


@given(objects, keys)
def test_is_opening_refuses_an_added_member(value: dict[str, Any], key: str) -> None:
    changed = {**value, key + "_extra": 0} if key in value else {**value, key: 0}
    assert not is_opening(commit(value), changed)


@given(objects)
def test_is_opening_refuses_a_removed_member(value: dict[str, Any]) -> None:
    changed = dict(list(value.items())[1:])
    assert not is_opening(commit(value), changed)


@pytest.mark.parametrize(
    "commitment",
    [
        pytest.param("", id="empty"),
        pytest.param("sha256:", id="prefix_only"),
        pytest.param(commit({"a": 1}).upper(), id="uppercase"),
        pytest.param(commit({"a": 1}).removeprefix("sha256:"), id="missing_prefix"),
        pytest.param(commit({"a": 1})[:-1], id="truncated"),
        pytest.param(commit({"a": 1}) + "0", id="extended"),
        pytest.param(commit({"a": 2}), id="other_value"),
        pytest.param("sha256:é" + "0" * 63, id="non_ascii"),
    ],
)
def test_is_opening_refuses_malformed_or_other_commitments(commitment: str) -> None:
    assert not is_opening(commitment, {"a": 1})


def test_commit_refuses_what_jcs_cannot_represent() -> None:
    with pytest.raises(JSONError):
        commit({"amount_minor": 2**53})
    with pytest.raises(JSONError):
        commit({"x": float("nan")})

"""The fast path of `canonical` writes exactly the bytes of `rfc8785`, the reference."""

from typing import Any

import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.core.jsonio import MAX_SAFE_INTEGER, canonical

# Keys and strings from all of Unicode but lone surrogates (which JCS refuses), weighted
# towards the characters where encoders disagree: controls, quotes, escapes, the BMP's top
# (U+E000 to U+FFFF) and the astral planes.
text = st.one_of(
    st.text(st.characters(exclude_categories=["Cs"])),
    st.text(st.sampled_from(['"', "\\", "\x00", "\x1f", "\x7f", "\u2028", "\ue000", "\uffff",
                             "\U0001f98a", "é", "/", "\b", "\f"])),
)  # fmt: skip
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER), text
)
values = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(children), st.dictionaries(text, children)),
    max_leaves=40,
)


@settings(max_examples=300)
@given(values)
def test_fast_path_matches_rfc8785(value: Any) -> None:
    assert canonical(value) == rfc8785.dumps(value)


@given(st.dictionaries(text, st.floats(allow_nan=False, allow_infinity=False), max_size=4))
def test_floats_take_rfc8785(value: dict[str, float]) -> None:
    assert canonical(value) == rfc8785.dumps(value)

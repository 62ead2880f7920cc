"""The public surface of `accord.sdk` is a decision (as httpx's tests/test_exported_members.py):
every public name is in `__all__`, `__all__` holds nothing else, and it is sorted."""

import accord.sdk


def test_all_public_names_are_exported() -> None:
    public = {name for name in vars(accord.sdk) if not name.startswith("_")}
    assert public == set(accord.sdk.__all__)


def test_all_is_sorted() -> None:
    assert accord.sdk.__all__ == sorted(accord.sdk.__all__)


def test_every_export_says_what_it_is_for() -> None:
    undocumented = [n for n in accord.sdk.__all__ if not getattr(accord.sdk, n).__doc__]
    assert undocumented == []

"""Every door says what does not fit in the same words: a table per pydantic error type a body
can meet, read off real validation errors, never values the sender gave."""

from typing import Annotated, Any, Literal

import pytest
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, HttpUrl, ValidationError

from accord.core.problems import WORDS, in_words, problem, problems


def _not_blank(value: str) -> str:
    if not value.strip():
        raise ValueError("say something")
    return value


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=False)

    name: Annotated[str, Field(min_length=1, max_length=5)] = "n"
    code: Annotated[str, Field(min_length=3, pattern="^[a-z]+$")] = "abc"
    count: Annotated[int, Field(ge=1, le=60)] = 1
    share: Annotated[float, Field(gt=0, lt=1)] = 0.5
    flag: bool = False
    tags: Annotated[list[str], Field(min_length=1, max_length=2)] = ["a"]
    pair: Annotated[list[int], Field(min_length=2)] = [1, 2]
    kind: Literal["a", "b"] = "a"
    url: HttpUrl | None = None
    note: Annotated[str, AfterValidator(_not_blank)] = "x"
    nested: dict[str, int] = {}


CASES = [
    ({"name": ""}, "name", "Must not be empty"),
    ({"name": "toolong"}, "name", "Must be at most 5 characters"),
    ({"code": "ab"}, "code", "Must be at least 3 characters"),
    ({"code": "ABC"}, "code", "Not in the expected form"),
    ({"count": "acc_sk_secret"}, "count", "Must be a whole number"),  # never the value
    ({"count": 2.5}, "count", "Must be a whole number"),
    ({"count": 0}, "count", "Must be at least 1"),
    ({"count": 61}, "count", "Must be at most 60"),
    ({"share": 0}, "share", "Must be more than 0"),
    ({"share": 1}, "share", "Must be less than 1"),
    ({"share": "half"}, "share", "Must be a number"),
    ({"flag": "perhaps"}, "flag", "Must be true or false"),
    ({"tags": []}, "tags", "Must not be empty"),
    ({"pair": [1]}, "pair", "Must have at least 2 items"),
    ({"tags": ["a", "b", "c"]}, "tags", "Must have at most 2 items"),
    ({"tags": "a"}, "tags", "Must be a list"),
    ({"tags": [5]}, "tags.0", "Must be text"),
    ({"kind": "c"}, "kind", "Must be one of 'a' or 'b'"),
    ({"url": "not a url"}, "url", "Must be a URL"),
    ({"note": " "}, "note", "say something"),
    ({"nested": []}, "nested", "Must be an object"),
    ({"secret_key": "acc_sk_1"}, "secret_key", "Not a field here: leave it out"),
]


@pytest.mark.parametrize(("body", "path", "words"), CASES)
def test_each_problem_in_words(body: dict[str, Any], path: str, words: str) -> None:
    with pytest.raises(ValidationError) as caught:
        Body.model_validate(body)
    found = problems(caught.value)
    assert found == {path: words}


def test_a_missing_field_is_required_and_paths_are_named_as_each_door_names_them() -> None:
    class Needs(BaseModel):
        price: int

    with pytest.raises(ValidationError) as caught:
        Needs.model_validate({})
    assert problem(caught.value.errors()[0]) == "Required"
    assert problems(caught.value, within="request.offer") == {"request.offer.price": "Required"}
    loc = [{"type": "missing", "loc": ("body", "price"), "msg": "Field required", "input": None}]
    assert problems(loc, skip=("body",)) == {"price": "Required"}  # type: ignore[arg-type]
    whole = [{"type": "missing", "loc": ("body",), "msg": "Field required", "input": None}]
    assert problems(whole, skip=("body",), whole="form") == {"form": "Required"}  # type: ignore[arg-type]


def test_one_line_names_the_first_few_and_how_many_more() -> None:
    with pytest.raises(ValidationError) as caught:
        Body.model_validate({"name": "", "count": 0, "flag": "x", "kind": "z"})
    assert in_words(caught.value, whole="brief", most=2) == (
        "name: Must not be empty; count: Must be at least 1 (and 2 more)"
    )


def test_every_worded_type_is_one_pydantic_knows() -> None:
    from pydantic_core import ErrorTypeInfo  # noqa: F401  (the types are pydantic_core's)
    from pydantic_core.core_schema import ErrorType

    assert set(WORDS) <= set(ErrorType.__args__)  # type: ignore[attr-defined]

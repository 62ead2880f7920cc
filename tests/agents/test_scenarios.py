"""Reading and writing scenarios (spec/agents.md, Scenarios): hand-made Genius folders read to
hand-computed utilities, strict refusals of malformed accord documents, round trips between the
two formats, and `find_scenarios` over a tree of good and bad entries."""

import copy
import json
import math
import re
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.agents.domain import Domain, Issue
from accord.agents.preferences import Preferences
from accord.agents.scenarios import (
    MAX_OUTCOMES,
    Scenario,
    ScenarioError,
    Skipped,
    find_scenarios,
    parse_accord,
    read_accord,
    read_genius,
    to_accord,
    to_genius,
    without_discount,
)

DATA = Path(__file__).parent / "data" / "scenarios"
FRUIT = DATA / "genius" / "fruit"
HOLIDAY = DATA / "genius" / "holiday"
DEAL = DATA / "accord" / "deal.json"


def utility(scenario: Scenario, side: int, *values: str) -> float:
    return scenario.profiles[side].utility(scenario.domain.outcome_of(values))


def write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def assert_same_utilities(a: Scenario, b: Scenario) -> None:
    assert [issue.values for issue in a.domain.issues] == [
        issue.values for issue in b.domain.issues
    ]
    for mine, theirs in zip(a.profiles, b.profiles, strict=True):
        np.testing.assert_allclose(mine.utilities, theirs.utilities, rtol=0, atol=1e-12)
        assert mine.reservation == theirs.reservation
        assert mine.discount == theirs.discount


def assert_same_document(a: Any, b: Any) -> None:
    """JSON equality, floats within 1e-12 (weights are renormalised on the way)."""
    if isinstance(a, float) or isinstance(b, float):
        assert math.isclose(a, b, rel_tol=0, abs_tol=1e-12), (a, b)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for key in a:
            assert_same_document(a[key], b[key])
    elif isinstance(a, list):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert_same_document(x, y)
    else:
        assert a == b


# Genius XML, by hand ---------------------------------------------------------------------------


def test_genius_folder_reads_to_hand_computed_utilities() -> None:
    # buyer:  weights 3:1 -> .75/.25; fruit 2,4,8 -> .25,.5,1; amount 1,3 -> 1/3,1
    # seller: weights .4/.6;          fruit 10,5,0 -> 1,.5,0;  amount 6,3 -> 1,.5
    # The seller's objective has index 2, as an issue does (ANAC 2012 Amsterdam): weight 2 is
    # still the issue's.
    fruit = read_genius(FRUIT)
    assert fruit.name == "fruit"
    assert [issue.name for issue in fruit.domain.issues] == ["fruit", "amount"]
    assert fruit.domain.issues[0].values == ("apple", "banana", "cherry")
    assert [profile.name for profile in fruit.profiles] == ["fruit-buyer", "fruit-seller"]
    assert utility(fruit, 0, "banana", "two") == pytest.approx(0.75 * 0.5 + 0.25 * 1)
    assert utility(fruit, 0, "apple", "one") == pytest.approx(0.75 * 0.25 + 0.25 / 3)
    assert utility(fruit, 0, "cherry", "two") == pytest.approx(1.0)
    assert utility(fruit, 1, "banana", "two") == pytest.approx(0.4 * 0.5 + 0.6 * 0.5)
    assert utility(fruit, 1, "apple", "one") == pytest.approx(1.0)
    assert utility(fruit, 1, "cherry", "two") == pytest.approx(0.6 * 0.5)
    assert [p.reservation for p in fruit.profiles] == [0.3, 0.25]  # closing tag; self-closing
    assert [p.discount for p in fruit.profiles] == [None, 0.9]  # discount 1 means none
    assert fruit.rounds is None


def test_integer_issue_is_evaluated_as_negmas_does() -> None:
    # NegMAS 0.16 evaluates <evaluator ftype="linear"> as offset + slope·v (not v - lowerbound),
    # and the Genius rule then divides by the issue's maximum like a discrete issue's:
    # a: 0.5 + 0.25·v over 1..4 = .75, 1, 1.25, 1.5 -> /1.5; b: 1 - 0.1·v = .9 .. .6 -> /.9.
    # The objective's own weight (index 1, as in ANAC 2012 Fitness) weighs no issue.
    holiday = read_genius(HOLIDAY)
    weeks = holiday.domain.issues[1]
    assert (weeks.kind, weeks.values) == ("integer", ("1", "2", "3", "4"))
    a, b = holiday.profiles
    assert a.evaluations[1] == pytest.approx((0.75 / 1.5, 1 / 1.5, 1.25 / 1.5, 1.0))
    assert b.evaluations[1] == pytest.approx((1.0, 0.8 / 0.9, 0.7 / 0.9, 0.6 / 0.9))
    assert utility(holiday, 0, "city", "3") == pytest.approx(0.5 * 0.5 + 0.5 * 1.25 / 1.5)
    assert utility(holiday, 1, "beach", "1") == pytest.approx(0.8)
    assert utility(holiday, 1, "city", "4") == pytest.approx(0.2 + 0.8 * 0.6 / 0.9)


def test_missing_reservation_is_zero_and_missing_or_zero_discount_is_none() -> None:
    a, b = read_genius(HOLIDAY).profiles
    assert (a.reservation, a.discount) == (0.0, None)  # neither element present
    assert (b.reservation, b.discount) == (0.4, None)  # discount_factor 0


def test_read_genius_takes_a_name() -> None:
    assert read_genius(FRUIT, name="y2099/fruit").name == "y2099/fruit"


DOMAIN = """<negotiation_template><utility_space><objective index="0" name="d">
<issue index="1" name="colour" type="discrete"><item index="1" value="red"/>
<item index="2" value="blue"/></issue></objective></utility_space></negotiation_template>"""


def profile(body: str = "", *, root: str = "<utility_space>", tail: str = "") -> str:
    body = body or (
        '<issue index="1" name="colour"><item index="1" value="red" evaluation="1"/>'
        '<item index="2" value="blue" evaluation="2"/></issue><weight index="1" value="1"/>'
    )
    return f'{root}<objective index="0" name="d">{body}</objective>{tail}</utility_space>'


GOOD = {"domain.xml": DOMAIN, "a.xml": profile(), "b.xml": profile()}
ITEMS = '<item index="1" value="red" evaluation="1"/><item index="2" value="blue" evaluation="2"/>'


@pytest.mark.parametrize(
    ("files", "message"),
    [
        pytest.param({"a.xml": profile(), "b.xml": profile()}, "one domain file", id="no-domain"),
        pytest.param({**GOOD, "c.xml": profile()}, "has 3 profiles, not 2", id="three-profiles"),
        pytest.param({"domain.xml": DOMAIN, "a.xml": profile()}, "has 1 profiles", id="one"),
        pytest.param(
            {**GOOD, "b.xml": profile(root='<utility_space type="nonlinear">')},
            "non-linear",
            id="nonlinear",
        ),
        pytest.param({**GOOD, "b.xml": "<utility_space><oops>"}, "malformed XML", id="malformed"),
        pytest.param(
            {**GOOD, "b.xml": profile(f'<issue index="1" name="colour">{ITEMS}</issue>')},
            "no weight for issue 'colour'",
            id="missing-weight",
        ),
        pytest.param(
            {**GOOD, "b.xml": profile('<weight index="1" value="1"/>')},
            "no evaluation of issue 'colour'",
            id="missing-issue",
        ),
        pytest.param(
            {
                **GOOD,
                "b.xml": profile(
                    '<issue index="1" name="colour"><item index="1" value="red" evaluation="1"/>'
                    '</issue><weight index="1" value="1"/>'
                ),
            },
            "no evaluation for value 'blue'",
            id="missing-value",
        ),
        pytest.param(
            {
                **GOOD,
                "b.xml": profile(
                    f'<issue index="1" name="colour">{ITEMS}'
                    '<item index="3" value="green" evaluation="1"/></issue>'
                    '<weight index="1" value="1"/>'
                ),
            },
            "value 'green' is not in the domain",
            id="unknown-value",
        ),
        pytest.param(
            {
                **GOOD,
                "b.xml": profile(
                    '<issue index="1" name="colour"><item index="1" value="red" evaluation="-1"/>'
                    '<item index="2" value="blue" evaluation="2"/></issue>'
                    '<weight index="1" value="1"/>'
                ),
            },
            "below 0",
            id="negative-evaluation",
        ),
        pytest.param(
            {
                **GOOD,
                "b.xml": profile(
                    '<issue index="1" name="colour"><item index="1" value="red" evaluation="NaN"/>'
                    '<item index="2" value="blue" evaluation="2"/></issue>'
                    '<weight index="1" value="1"/>'
                ),
            },
            "not a finite number",
            id="nan-evaluation",
        ),
        pytest.param(
            {**GOOD, "b.xml": profile(tail='<reservation value="1.5"/>')},
            "reservation 1.5 is not in [0, 1]",
            id="reservation",
        ),
        pytest.param(
            {**GOOD, "b.xml": profile(tail='<discount_factor value="2"/>')},
            "discount factor 2.0",
            id="discount",
        ),
        pytest.param(
            {**GOOD, "domain.xml": DOMAIN.replace('type="discrete"', 'type="real"')},
            "unsupported type 'real'",
            id="real-issue",
        ),
    ],
)
def test_genius_refusals(tmp_path: Path, files: dict[str, str], message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        read_genius(write(tmp_path / "s", files))
    assert message in str(caught.value)
    assert str(tmp_path / "s") in str(caught.value)  # says where


def test_pareto_sidecars_and_other_files_are_ignored(tmp_path: Path) -> None:
    folder = write(tmp_path / "s", {**GOOD, "s-pareto.xml": "0.5, 1.0\n", "notes.md": "# hi"})
    assert read_genius(folder).domain.outcome_count == 2


# Accord's format: refusals ---------------------------------------------------------------------

BASE: dict[str, Any] = {
    "format": "accord-scenario/1",
    "name": "tiny",
    "issues": [{"name": "a", "values": ["x", "y"]}, {"name": "b", "values": ["p", "q", "r"]}],
    "profiles": [
        {
            "weights": {"a": 1, "b": 1},
            "utilities": {"a": {"x": 1, "y": 0}, "b": {"p": 0, "q": 0.5, "r": 1}},
            "reservation": 0,
        },
        {
            "name": "other",
            "weights": {"a": 2, "b": 0},
            "utilities": {"a": {"x": 0, "y": 1}, "b": {"p": 1, "q": 0.5, "r": 0}},
            "reservation": 0.5,
            "discount": 0.9,
        },
    ],
}


def edited(change: Callable[[dict[str, Any]], object]) -> str:
    document = copy.deepcopy(BASE)
    change(document)
    return json.dumps(document)


def first(document: dict[str, Any]) -> dict[str, Any]:
    profile: dict[str, Any] = document["profiles"][0]
    return profile


def test_the_base_document_is_good() -> None:
    tiny = parse_accord(json.dumps(BASE))
    assert tiny.name == "tiny"
    assert tiny.profiles[0].weights == (0.5, 0.5)
    assert tiny.profiles[1].weights == (1.0, 0.0)
    assert utility(tiny, 0, "x", "q") == pytest.approx(0.75)
    assert (tiny.profiles[1].name, tiny.profiles[1].discount) == ("other", 0.9)


@pytest.mark.parametrize(
    ("document", "message"),
    [
        pytest.param(
            json.dumps(BASE)[:-1] + ', "name": "again"}', "duplicate key 'name'", id="duplicate"
        ),
        pytest.param(
            json.dumps(BASE).replace('"reservation": 0.5', '"reservation": NaN'),
            "NaN is not a JSON number",
            id="nan",
        ),
        pytest.param(json.dumps(BASE)[:-2], "malformed JSON", id="malformed"),
        pytest.param("[1, 2]", "a scenario document is a JSON object", id="array"),
        pytest.param(edited(lambda d: d.update(format="genius")), "format must be", id="format"),
        pytest.param(edited(lambda d: d.pop("format")), "format must be", id="no-format"),
        pytest.param(edited(lambda d: d.update(colour=1)), "colour: unknown key", id="unknown"),
        pytest.param(
            edited(lambda d: first(d).update(colour=1)),
            "profiles[0].colour: unknown key",
            id="unknown-in-profile",
        ),
        pytest.param(
            edited(lambda d: d["issues"][0].update(colour=1)),
            "issues[0].colour: unknown key",
            id="unknown-in-issue",
        ),
        pytest.param(
            edited(lambda d: first(d)["weights"].pop("b")),
            "profile 1: no weight for 'b'",
            id="missing-weight",
        ),
        pytest.param(
            edited(lambda d: first(d)["weights"].update(c=1)),
            "profile 1: weight for unknown 'c'",
            id="unknown-weight",
        ),
        pytest.param(
            edited(lambda d: first(d)["weights"].update(a=-1)),
            "weight -1.0 of 'a' is negative",
            id="negative-weight",
        ),
        pytest.param(
            edited(lambda d: first(d).update(weights={"a": 0, "b": 0})),
            "at least one weight must be positive",
            id="zero-weights",
        ),
        pytest.param(
            edited(lambda d: first(d)["weights"].update(a=True)),
            "profiles[0].weights.a: input should be a valid number",
            id="bool-weight",
        ),
        pytest.param(
            edited(lambda d: first(d)["utilities"].pop("a")),
            "profile 1: no utilities for 'a'",
            id="missing-utilities",
        ),
        pytest.param(
            edited(lambda d: first(d)["utilities"]["b"].pop("q")),
            "profile 1, issue 'b': no utility for 'q'",
            id="missing-utility",
        ),
        pytest.param(
            edited(lambda d: first(d)["utilities"]["b"].update(s=1)),
            "profile 1, issue 'b': utility for unknown 's'",
            id="unknown-value",
        ),
        pytest.param(
            edited(lambda d: d["profiles"][1]["utilities"]["b"].update(q=1.5)),
            "profile 2, issue 'b': utility 1.5 of 'q' is not in [0, 1]",
            id="utility-above-1",
        ),
        pytest.param(
            edited(lambda d: first(d)["utilities"]["b"].update(q=-0.1)),
            "utility -0.1 of 'q' is not in [0, 1]",
            id="utility-below-0",
        ),
        pytest.param(
            edited(lambda d: first(d)["utilities"]["b"].update(q="0.5")),
            "profiles[0].utilities.b.q: input should be a valid number",
            id="string-utility",
        ),
        pytest.param(
            edited(lambda d: d["profiles"].append(copy.deepcopy(d["profiles"][0]))),
            "exactly two profiles, not 3",
            id="three-profiles",
        ),
        pytest.param(
            edited(lambda d: d["profiles"].pop()), "exactly two profiles, not 1", id="one-profile"
        ),
        pytest.param(
            edited(lambda d: first(d).pop("reservation")),
            "profiles[0].reservation: missing",
            id="no-reservation",
        ),
        pytest.param(
            edited(lambda d: first(d).update(reservation=1.2)),
            "reservation 1.2 is not in [0, 1]",
            id="reservation-range",
        ),
        pytest.param(
            edited(lambda d: first(d).update(discount=1)),
            "discount 1.0 is not strictly between 0 and 1",
            id="discount-1",
        ),
        pytest.param(
            edited(lambda d: first(d).update(discount=0)), "discount 0.0", id="discount-0"
        ),
        pytest.param(edited(lambda d: d.update(rounds=0)), "rounds must be", id="rounds-0"),
        pytest.param(
            edited(lambda d: d.update(rounds=2.5)), "rounds: input should be", id="rounds-float"
        ),
        pytest.param(edited(lambda d: d.update(issues=[])), "at least one issue", id="no-issues"),
        pytest.param(
            edited(lambda d: d["issues"][0].update(values=[])),
            "issues[0].values: list should have at least 1 item",
            id="no-values",
        ),
        pytest.param(
            edited(lambda d: d["issues"][0].update(values=["x", "x"])),
            "issue 'a' repeats a value",
            id="repeated-value",
        ),
        pytest.param(
            edited(lambda d: d["issues"][1].update(name="a")),
            "issue names must be distinct",
            id="repeated-issue",
        ),
        pytest.param(
            edited(lambda d: first(d).update(name="")),
            "profiles[0].name: string should have at least 1 character",
            id="empty-profile-name",
        ),
    ],
)
def test_accord_refusals(document: str, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_accord(document)
    assert message in str(caught.value)


def test_read_accord_names_the_file_in_its_errors(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(edited(lambda d: first(d)["weights"].pop("b")), encoding="utf-8")
    with pytest.raises(
        ScenarioError, match=f"^{re.escape(str(path))}: profile 1: no weight for 'b'$"
    ):
        read_accord(path)
    with pytest.raises(ScenarioError, match="cannot read"):
        read_accord(tmp_path / "absent.json")


def test_read_accord_takes_bytes_text_and_a_name() -> None:
    deal = read_accord(DEAL)
    assert (deal.name, deal.rounds) == ("deal", 20)
    assert deal.profiles[0].weights == (0.75, 0.25)
    assert parse_accord(DEAL.read_bytes(), name="other").name == "other"
    assert parse_accord(DEAL.read_text(encoding="utf-8")).name == "deal"


# Round trips -----------------------------------------------------------------------------------


def through_genius(scenario: Scenario, folder: Path) -> Scenario:
    return read_genius(write(folder, to_genius(scenario)), name=scenario.name)


def test_to_genius_writes_a_domain_and_two_profiles_in_order() -> None:
    files = to_genius(read_accord(DEAL))
    assert sorted(files) == ["domain.xml", "profile-1.xml", "profile-2.xml"]


def test_accord_to_genius_to_accord_is_the_same_document(tmp_path: Path) -> None:
    deal = read_accord(DEAL)
    back = through_genius(deal, tmp_path / "deal")
    assert_same_document(to_accord(back), to_accord(deal))
    assert_same_utilities(back, deal)
    assert back.rounds == 20 and back.profiles[0].name == "buyer"


@pytest.mark.parametrize("folder", [FRUIT, HOLIDAY], ids=["fruit", "holiday"])
def test_genius_to_accord_to_genius_keeps_every_utility(folder: Path, tmp_path: Path) -> None:
    original = read_genius(folder)
    document = json.dumps(to_accord(original))
    assert_same_utilities(parse_accord(document), original)
    again = through_genius(parse_accord(document), tmp_path / "again")
    assert_same_utilities(again, original)
    assert [p.name for p in again.profiles] == [p.name for p in original.profiles]


def test_to_genius_refuses_what_genius_would_rescale() -> None:
    document = edited(lambda d: first(d)["utilities"]["b"].update(r=0.8))
    with pytest.raises(ScenarioError, match=r"issue 'b': its best value has utility 0\.8"):
        to_genius(parse_accord(document))


def test_to_genius_refuses_text_xml_cannot_carry() -> None:
    with pytest.raises(ScenarioError, match="XML cannot carry"):
        to_genius(parse_accord(json.dumps(BASE), name="bell\x07"))


NAMES = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufffe\uffff")
    | st.sampled_from("\t\n\r &<>\"'"),
    min_size=1,
    max_size=6,
)


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    issue_names = draw(st.lists(NAMES, min_size=1, max_size=3, unique=True))
    issues = tuple(
        Issue(name, tuple(draw(st.lists(NAMES, min_size=1, max_size=4, unique=True))))
        for name in issue_names
    )
    domain = Domain(issues)
    unit = st.floats(0, 1, allow_subnormal=False)
    profiles = []
    for _ in (1, 2):
        weights = draw(st.lists(unit, min_size=len(issues), max_size=len(issues)))
        if sum(weights) == 0:
            weights[0] = 1.0
        tables = []
        for issue in issues:
            table = draw(st.lists(unit, min_size=len(issue.values), max_size=len(issue.values)))
            table[draw(st.integers(0, len(table) - 1))] = 1.0  # Genius's best value is 1
            tables.append(tuple(table))
        profiles.append(
            Preferences(
                domain,
                tuple(w / sum(weights) for w in weights),
                tuple(tables),
                reservation=draw(unit),
                discount=draw(st.none() | st.floats(0.01, 0.99)),
                name=draw(st.just("") | NAMES.filter(str.strip)),
            )
        )
    rounds = draw(st.none() | st.integers(1, 1000))
    return Scenario(draw(NAMES), domain, (profiles[0], profiles[1]), rounds)


@settings(max_examples=60, deadline=None)
@given(scenarios())
def test_round_trips_on_random_scenarios(scenario: Scenario) -> None:
    document = to_accord(scenario)
    from_json = parse_accord(json.dumps(document))
    assert_same_document(to_accord(from_json), document)
    with tempfile.TemporaryDirectory() as folder:
        back = through_genius(from_json, Path(folder) / "s")
    assert_same_utilities(back, scenario)
    assert_same_document(to_accord(back), document)


# Finding scenarios and removing discounts ------------------------------------------------------


def test_find_scenarios_names_what_it_found_and_why_it_skipped(tmp_path: Path) -> None:
    root = tmp_path / "tree"
    shutil.copytree(FRUIT, root / "y1" / "fruit")
    shutil.copytree(HOLIDAY, root / "y2" / "nested" / "holiday")
    shutil.copy(DEAL, root / "y1" / "deal.json")
    write(root / "y1" / "fruit", {"fruit-pareto.xml": "0.5, 1.0\n"})  # Genius sidecar, ignored
    write(root / "three", {**GOOD, "c.xml": profile()})
    write(root / "nonlinear", {**GOOD, "b.xml": profile(root='<utility_space type="nonlinear">')})
    write(root / "broken", {**GOOD, "b.xml": "<utility_space>"})
    write(root, {"bad.json": edited(lambda d: d["profiles"].pop()), "notes.json": '{"a": 1}'})
    write(root, {"odd.json": "{", "readme.txt": "not a scenario", "stray.xml": "<html/>"})
    big = '<issue index="{0}" name="n{0}" type="integer" lowerbound="0" upperbound="1000"/>'
    evaluator = '<issue index="{0}" name="n{0}"><evaluator ftype="linear" slope="1" offset="0"/>'
    weights = '</issue><weight index="{0}" value="1"/>'
    write(
        root / "big",
        {
            "d.xml": f"<negotiation_template><utility_space><objective index='0'>"
            f"{big.format(1)}{big.format(2)}</objective></utility_space></negotiation_template>",
            "a.xml": profile("".join((evaluator + weights).format(i) for i in (1, 2))),
            "b.xml": profile("".join((evaluator + weights).format(i) for i in (1, 2))),
        },
    )

    found, skipped = find_scenarios(root)

    assert [s.name for s in found] == ["y1/deal.json", "y1/fruit", "y2/nested/holiday"]
    assert [s.path for s in skipped] == [
        "bad.json",
        "big",
        "broken",
        "nonlinear",
        "odd.json",
        "three",
    ]
    reasons = {s.path: s.reason for s in skipped}
    assert "exactly two profiles, not 1" in reasons["bad.json"]
    assert f"1002001 outcomes, more than {MAX_OUTCOMES}" in reasons["big"]
    assert "b.xml: malformed XML" in reasons["broken"]
    assert "non-linear" in reasons["nonlinear"]
    assert "malformed JSON" in reasons["odd.json"]
    assert "has 3 profiles, not 2" in reasons["three"]
    assert all(isinstance(s, Skipped) for s in skipped)


def test_find_scenarios_on_one_scenario_uses_its_own_name(tmp_path: Path) -> None:
    found, skipped = find_scenarios(FRUIT)
    assert ([s.name for s in found], skipped) == (["fruit"], [])
    found, skipped = find_scenarios(DEAL)
    assert ([s.name for s in found], skipped) == (["deal.json"], [])
    found, skipped = find_scenarios(tmp_path / "absent")
    assert found == [] and [s.reason for s in skipped] == ["no such file or folder"]


def test_without_discount_clears_both_discounts() -> None:
    deal = read_accord(DEAL)
    plain = without_discount(deal)
    assert [p.discount for p in deal.profiles] == [0.95, None]
    assert [p.discount for p in plain.profiles] == [None, None]
    assert_same_document({**to_accord(plain), "profiles": []}, {**to_accord(deal), "profiles": []})
    np.testing.assert_array_equal(plain.profiles[0].utilities, deal.profiles[0].utilities)
    assert plain.profiles[0].reservation == deal.profiles[0].reservation


def test_a_scenario_holds_two_profiles_over_its_domain() -> None:
    deal, fruit = read_accord(DEAL), read_genius(FRUIT)
    with pytest.raises(ScenarioError, match="over the scenario's domain"):
        Scenario("mixed", deal.domain, (deal.profiles[0], fruit.profiles[0]))
    with pytest.raises(ScenarioError, match="rounds"):
        Scenario("deal", deal.domain, deal.profiles, rounds=0)

"""Negotiation scenarios: two profiles over one outcome space (spec/agents.md, Scenarios).

Two formats are read. Genius XML folders, as the ANAC competitions published them: the domain
file has the root `negotiation_template` and the profiles are the `utility_space` files, sorted
by file name. Utility follows the Genius rule `Σ wᵢ/Σw · eᵢ(v)/maxᵥ eᵢ(v)`. An integer issue's
evaluation is `offset + slope·v` of its linear evaluator, as NegMAS 0.16 reads it (Genius
itself uses `offset + slope·(v - lowerbound)`, clamped to [0, 1]; the two agree when the
lower bound is 0), and it is then divided by its maximum like a discrete issue's.

Accord's own format is one strict JSON document (`accord-scenario/1`) holding the utilities
as they are, weights normalised by their sum. It writes to Genius XML and reads back to the
same utilities on every outcome; two attributes Genius and NegMAS ignore carry what Genius
has no place for: `rounds` on the domain's root and the profile's `name` on its root.
"""

import math
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Final

from pydantic import Field, ValidationError

from accord.agents.domain import Domain, Issue, IssueKind
from accord.agents.preferences import Preferences
from accord.core import jsonio
from accord.core.strict import Strict

FORMAT: Final = "accord-scenario/1"
MAX_OUTCOMES: Final = 10**6
"""Larger outcome spaces are skipped by `find_scenarios`: every metric enumerates outcomes."""
DOMAIN_ROOT: Final = "negotiation_template"
PROFILE_ROOT: Final = "utility_space"
_ONE: Final = 1e-9
"""How far an issue's best utility may sit from 1 and still be written to Genius."""
_XML_CHARS: Final = re.compile("^[\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]*$")


class ScenarioError(ValueError):
    """A scenario that cannot be read or written; the message says what and where."""


@dataclass(frozen=True)
class Scenario:
    name: str
    domain: Domain
    profiles: tuple[Preferences, Preferences]
    rounds: int | None = None
    """The negotiation's length when the scenario fixes one."""

    def __post_init__(self) -> None:
        if len(self.profiles) != 2:
            raise ScenarioError(
                f"{self.name}: a scenario has two profiles, not {len(self.profiles)}"
            )
        if any(profile.domain != self.domain for profile in self.profiles):
            raise ScenarioError(f"{self.name}: both profiles must be over the scenario's domain")
        if self.rounds is not None and self.rounds < 1:
            raise ScenarioError(f"{self.name}: rounds must be a positive integer")


@dataclass(frozen=True)
class Skipped:
    """A folder or file `find_scenarios` passed over, and why, so that a run can list them."""

    path: str
    reason: str


def without_discount(scenario: Scenario) -> Scenario:
    """The scenario with discounting removed (`--discounting remove`)."""
    first, second = (replace(profile, discount=None) for profile in scenario.profiles)
    return replace(scenario, profiles=(first, second))


# Accord's JSON format ------------------------------------------------------------------------


class _IssueDoc(Strict):
    name: str = Field(min_length=1)
    values: list[str] = Field(min_length=1)


class _ProfileDoc(Strict):
    name: str | None = Field(default=None, min_length=1)
    weights: dict[str, float]
    utilities: dict[str, dict[str, float]]
    reservation: float
    discount: float | None = None


class _ScenarioDoc(Strict):
    format: str
    name: str = Field(min_length=1)
    rounds: int | None = None
    issues: list[_IssueDoc]
    profiles: list[_ProfileDoc]


def read_accord(path: Path, *, name: str | None = None) -> Scenario:
    """Read an `accord-scenario/1` JSON file; `name` replaces the document's own name."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return _parse_accord(data, name=name, where=str(path))


def parse_accord(document: str | bytes, *, name: str | None = None) -> Scenario:
    """Parse an `accord-scenario/1` document strictly: no duplicate keys, NaN, unknown keys,
    missing weights or utilities, and values in range."""
    return _parse_accord(document, name=name, where=name or "scenario document")


def _parse_accord(document: str | bytes, *, name: str | None, where: str) -> Scenario:
    return _accord_of(_json(document, where), name=name, where=where)


def _json(document: str | bytes, where: str) -> jsonio.JSON:
    try:
        return jsonio.parse(document)
    except jsonio.JSONError as exc:
        raise ScenarioError(f"{where}: {exc.reason}") from None


def _accord_of(value: jsonio.JSON, *, name: str | None, where: str) -> Scenario:
    if type(value) is not dict:
        raise ScenarioError(f"{where}: a scenario document is a JSON object")
    if value.get("format") != FORMAT:
        raise ScenarioError(
            f"{where}: format must be {FORMAT!r}, not {value.get('format', 'missing')!r}"
        )
    try:
        doc = _ScenarioDoc.model_validate(value)
    except ValidationError as exc:
        raise ScenarioError(f"{where}: {_describe(exc)}") from None
    if where == "scenario document":
        where = name or doc.name
    if not doc.issues:
        raise ScenarioError(f"{where}: a scenario needs at least one issue")
    if len(doc.profiles) != 2:
        raise ScenarioError(
            f"{where}: a scenario has exactly two profiles, not {len(doc.profiles)}"
        )
    if doc.rounds is not None and doc.rounds < 1:
        raise ScenarioError(f"{where}: rounds must be a positive integer, not {doc.rounds}")
    try:
        domain = Domain(tuple(Issue(issue.name, tuple(issue.values)) for issue in doc.issues))
    except ValueError as exc:
        raise ScenarioError(f"{where}: {exc}") from None
    first, second = (
        _profile_of(domain, profile, f"{where}: profile {number}")
        for number, profile in enumerate(doc.profiles, start=1)
    )
    return Scenario(name or doc.name, domain, (first, second), doc.rounds)


def _describe(exc: ValidationError) -> str:
    """Pydantic's errors as `where: what`, the first three, in the document's own terms."""
    parts = []
    for error in exc.errors()[:3]:
        at = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in error["loc"])
        what = {
            "extra_forbidden": "unknown key",
            "missing": "missing",
        }.get(error["type"], error["msg"].lower())
        parts.append(f"{at.lstrip('.') or 'document'}: {what}")
    more = len(exc.errors()) - 3
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


def _same_keys(where: str, what: str, given: Mapping[str, Any], expected: Sequence[str]) -> None:
    for key in expected:
        if key not in given:
            raise ScenarioError(f"{where}: no {what} for {key!r}")
    for key in given:
        if key not in expected:
            raise ScenarioError(f"{where}: {what} for unknown {key!r}")


def _profile_of(domain: Domain, doc: _ProfileDoc, where: str) -> Preferences:
    names = [issue.name for issue in domain.issues]
    _same_keys(where, "weight", doc.weights, names)
    _same_keys(where, "utilities", doc.utilities, names)
    for issue in domain.issues:
        table = doc.utilities[issue.name]
        _same_keys(f"{where}, issue {issue.name!r}", "utility", table, issue.values)
        for value, utility in table.items():
            if not 0 <= utility <= 1:
                raise ScenarioError(
                    f"{where}, issue {issue.name!r}: utility {utility} of {value!r} "
                    "is not in [0, 1]"
                )
    for issue_name, weight in doc.weights.items():
        if weight < 0:
            raise ScenarioError(f"{where}: weight {weight} of {issue_name!r} is negative")
    total = sum(doc.weights.values())
    if total <= 0:
        raise ScenarioError(f"{where}: at least one weight must be positive")
    if not 0 <= doc.reservation <= 1:
        raise ScenarioError(f"{where}: reservation {doc.reservation} is not in [0, 1]")
    if doc.discount is not None and not 0 < doc.discount < 1:
        raise ScenarioError(
            f"{where}: discount {doc.discount} is not strictly between 0 and 1 "
            "(leave it out for no discounting)"
        )
    return Preferences(
        domain,
        tuple(doc.weights[issue] / total for issue in names),
        tuple(
            tuple(doc.utilities[issue.name][value] for value in issue.values)
            for issue in domain.issues
        ),
        reservation=doc.reservation,
        discount=doc.discount,
        name=doc.name or "",
    )


def to_accord(scenario: Scenario) -> dict[str, Any]:
    """The scenario as an `accord-scenario/1` document (utilities as they are)."""
    issues = scenario.domain.issues
    document: dict[str, Any] = {"format": FORMAT, "name": scenario.name}
    if scenario.rounds is not None:
        document["rounds"] = scenario.rounds
    document["issues"] = [{"name": issue.name, "values": list(issue.values)} for issue in issues]
    profiles = []
    for profile in scenario.profiles:
        entry: dict[str, Any] = {} if not profile.name else {"name": profile.name}
        entry["weights"] = {
            issue.name: weight for issue, weight in zip(issues, profile.weights, strict=True)
        }
        entry["utilities"] = {
            issue.name: dict(zip(issue.values, table, strict=True))
            for issue, table in zip(issues, profile.evaluations, strict=True)
        }
        entry["reservation"] = profile.reservation
        if profile.discount is not None:
            entry["discount"] = profile.discount
        profiles.append(entry)
    document["profiles"] = profiles
    return document


# Genius XML ----------------------------------------------------------------------------------


def read_genius(folder: Path, *, name: str | None = None) -> Scenario:
    """Read a Genius scenario folder; `name` defaults to the folder's name."""
    folder = Path(folder)
    scenario = _read_genius(folder, name or folder.resolve().name)
    if scenario is None:
        raise ScenarioError(f"{folder}: no Genius domain or profile files")
    return scenario


def _read_genius(folder: Path, name: str) -> Scenario | None:
    """None when the folder holds no Genius file at all (nor any unreadable XML)."""
    try:
        files = sorted(
            entry
            for entry in os.listdir(folder)
            if entry.lower().endswith(".xml")
            and not entry.lower().endswith("pareto.xml")  # Genius's Pareto frontier sidecar
            and (folder / entry).is_file()
        )
    except OSError as exc:
        raise ScenarioError(f"{folder}: cannot list: {exc.strerror or exc}") from None
    domains: list[tuple[str, ET.Element]] = []
    profiles: list[tuple[str, ET.Element]] = []
    for file in files:
        root = _parse_xml(folder / file)
        if root.tag == DOMAIN_ROOT:
            domains.append((file, root))
        elif root.tag == PROFILE_ROOT:
            profiles.append((file, root))
    if not domains and not profiles:
        return None
    if len(domains) != 1:
        found = ", ".join(file for file, _ in domains) or "none"
        raise ScenarioError(f"{folder}: needs one domain file (root {DOMAIN_ROOT}), found {found}")
    if len(profiles) != 2:
        raise ScenarioError(f"{folder}: has {len(profiles)} profiles, not 2")
    domain_file, domain_root = domains[0]
    for file, root in profiles:
        if _is_nonlinear(root):
            raise ScenarioError(f"{folder / file}: the profile is non-linear")
    domain, indices = _domain_of(domain_root, str(folder / domain_file))
    first, second = (
        _genius_profile(domain, indices, root, folder / file) for file, root in profiles
    )
    rounds = _rounds_of(domain_root, str(folder / domain_file))
    return Scenario(name, domain, (first, second), rounds)


def _parse_xml(path: Path) -> ET.Element:
    try:
        return ET.parse(path).getroot()
    except ET.ParseError as exc:
        raise ScenarioError(f"{path}: malformed XML: {exc}") from None
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _is_nonlinear(root: ET.Element) -> bool:
    objective = root.find("objective")
    scope = root if objective is None else objective
    return root.get("type") == "nonlinear" or any(
        child.tag in ("utility", "utility_function") for child in scope
    )


def _number(element: ET.Element, attribute: str, where: str) -> float:
    text = element.get(attribute)
    if text is None:
        raise ScenarioError(f"{where}: <{element.tag}> has no {attribute}")
    try:
        value = float(text)
    except ValueError:
        raise ScenarioError(f"{where}: {attribute} {text!r} is not a number") from None
    if not math.isfinite(value):
        raise ScenarioError(f"{where}: {attribute} {text!r} is not a finite number")
    return value


def _integer(element: ET.Element, attribute: str, where: str) -> int:
    text = element.get(attribute)
    if text is None:
        raise ScenarioError(f"{where}: <{element.tag}> has no {attribute}")
    try:
        return int(text)
    except ValueError:
        raise ScenarioError(f"{where}: {attribute} {text!r} is not an integer") from None


def _domain_of(root: ET.Element, where: str) -> tuple[Domain, dict[int, int]]:
    """The domain, and each issue's Genius index mapped to its position."""
    space = root.find(PROFILE_ROOT)
    objective = None if space is None else space.find("objective")
    if objective is None:
        raise ScenarioError(f"{where}: no utility_space/objective in the domain")
    found: dict[int, Issue] = {}
    for element in objective:
        if element.tag != "issue":
            raise ScenarioError(f"{where}: unexpected <{element.tag}> among the domain's issues")
        index = _integer(element, "index", where)
        issue = _domain_issue(element, where)
        if index in found:
            raise ScenarioError(f"{where}: two issues have index {index}")
        found[index] = issue
    if not found:
        raise ScenarioError(f"{where}: the domain has no issues")
    order = sorted(found)
    try:
        domain = Domain(tuple(found[index] for index in order))
    except ValueError as exc:
        raise ScenarioError(f"{where}: {exc}") from None
    return domain, {index: position for position, index in enumerate(order)}


def _domain_issue(element: ET.Element, where: str) -> Issue:
    name = element.get("name")
    if name is None:
        raise ScenarioError(f"{where}: an issue has no name")
    kind = element.get("type", "discrete")
    values: tuple[str, ...]
    if kind == "discrete":
        values = tuple(item.get("value", "") for item in element if item.tag == "item")
    elif kind == "integer":
        low = _integer(element, "lowerbound", f"{where}, issue {name!r}")
        high = _integer(element, "upperbound", f"{where}, issue {name!r}")
        if not 0 <= high - low < MAX_OUTCOMES:
            raise ScenarioError(
                f"{where}: issue {name!r} has range {low}..{high}, empty or too large to list"
            )
        values = tuple(str(value) for value in range(low, high + 1))
    else:
        raise ScenarioError(f"{where}: issue {name!r} has unsupported type {kind!r}")
    issue_kind: IssueKind = "integer" if kind == "integer" else "discrete"
    try:
        return Issue(name, values, issue_kind)
    except ValueError as exc:
        raise ScenarioError(f"{where}: {exc}") from None


def _rounds_of(root: ET.Element, where: str) -> int | None:
    if root.get("rounds") is None:
        return None
    rounds = _integer(root, "rounds", where)
    if rounds < 1:
        raise ScenarioError(f"{where}: rounds must be a positive integer, not {rounds}")
    return rounds


def _genius_profile(
    domain: Domain, indices: Mapping[int, int], root: ET.Element, path: Path
) -> Preferences:
    where = str(path)
    objective = root.find("objective")
    scope = root if objective is None else objective
    weights: dict[int, float] = {}
    tables: dict[int, tuple[float, ...]] = {}
    positions = {issue.name: position for position, issue in enumerate(domain.issues)}
    own = scope.get("index")
    for element in scope:
        if element.tag == "weight":
            index = _integer(element, "index", where)
            if index not in indices and element.get("index") == own:
                continue  # the objective's own weight (ANAC 2012 Fitness), no issue's
            if index not in indices:
                raise ScenarioError(f"{where}: a weight for index {index}, which no issue has")
            if indices[index] in weights:
                raise ScenarioError(f"{where}: two weights for index {index}")
            weights[indices[index]] = _number(element, "value", where)
        elif element.tag == "issue":
            issue_name = element.get("name")
            if issue_name not in positions:
                raise ScenarioError(f"{where}: issue {issue_name!r} is not in the domain")
            position = positions[issue_name]
            if position in tables:
                raise ScenarioError(f"{where}: issue {issue_name!r} is evaluated twice")
            tables[position] = _evaluations(domain.issues[position], element, where)
    for position, issue in enumerate(domain.issues):
        if position not in weights:
            raise ScenarioError(f"{where}: no weight for issue {issue.name!r}")
        if position not in tables:
            raise ScenarioError(f"{where}: no evaluation of issue {issue.name!r}")
        if weights[position] < 0:
            raise ScenarioError(f"{where}: the weight of issue {issue.name!r} is negative")
    reservation = 0.0
    discount: float | None = None
    for tag in ("reservation", "discount_factor"):
        elements = root.findall(tag)
        if len(elements) > 1:
            raise ScenarioError(f"{where}: more than one <{tag}>")
        if elements and tag == "reservation":
            reservation = _number(elements[0], "value", where)
        elif elements:
            discount = _number(elements[0], "value", where)
            if not 0 <= discount <= 1:
                raise ScenarioError(f"{where}: discount factor {discount} is not in [0, 1]")
    if not 0 <= reservation <= 1:
        raise ScenarioError(f"{where}: reservation {reservation} is not in [0, 1]")
    try:
        return Preferences.normalised(
            domain,
            [weights[position] for position in range(len(domain.issues))],
            [tables[position] for position in range(len(domain.issues))],
            reservation=reservation,
            discount=None if discount in (0.0, 1.0) else discount,
            name=root.get("name", path.stem),
        )
    except ValueError as exc:
        raise ScenarioError(f"{where}: {exc}") from None


def _evaluations(issue: Issue, element: ET.Element, where: str) -> tuple[float, ...]:
    """An issue's raw evaluations, one per value: items for a discrete issue, the linear
    evaluator `offset + slope·v` for an integer one (as NegMAS reads it)."""
    where = f"{where}, issue {issue.name!r}"
    evaluators = element.findall("evaluator")
    if issue.kind == "integer" and evaluators:
        if len(evaluators) > 1 or evaluators[0].get("ftype") != "linear":
            raise ScenarioError(f"{where}: only one linear evaluator is supported")
        slope = _number(evaluators[0], "slope", where)
        offset = _number(evaluators[0], "offset", where)
        table = tuple(offset + slope * int(value) for value in issue.values)
    else:
        given: dict[str, float] = {}
        known = set(issue.values)
        for item in element.findall("item"):
            value = item.get("value")
            if value is None or value not in known:
                raise ScenarioError(f"{where}: value {value!r} is not in the domain")
            if value in given:
                raise ScenarioError(f"{where}: value {value!r} is evaluated twice")
            given[value] = _number(item, "evaluation", where)
        missing = [value for value in issue.values if value not in given]
        if missing:
            raise ScenarioError(f"{where}: no evaluation for value {missing[0]!r}")
        table = tuple(given[value] for value in issue.values)
    for value, evaluation in zip(issue.values, table, strict=True):
        if evaluation < 0:
            raise ScenarioError(f"{where}: value {value!r} evaluates to {evaluation}, below 0")
    return table


def to_genius(scenario: Scenario) -> dict[str, str]:
    """Genius XML files (name → UTF-8 text): `domain.xml` and `profile-1.xml`,
    `profile-2.xml`, which `read_genius` reads back to the same utilities. Every issue is
    written as discrete. ScenarioError for a profile Genius cannot express: it divides each
    issue's evaluations by their maximum, so a weighted issue's best utility must be 1."""
    for text in _texts(scenario):
        if not _XML_CHARS.match(text):
            raise ScenarioError(f"{scenario.name}: {text!r} holds a character XML cannot carry")
    for number, profile in enumerate(scenario.profiles, start=1):
        for issue, weight, table in zip(
            scenario.domain.issues, profile.weights, profile.evaluations, strict=True
        ):
            best = max(table)
            if weight > 0 and best > 0 and abs(best - 1) > _ONE:
                raise ScenarioError(
                    f"{scenario.name}: profile {number}, issue {issue.name!r}: its best value "
                    f"has utility {best}, and Genius scales every issue's best value to 1"
                )
    files = {"domain.xml": _domain_xml(scenario)}
    for number, profile in enumerate(scenario.profiles, start=1):
        files[f"profile-{number}.xml"] = _profile_xml(scenario, profile)
    return files


def _texts(scenario: Scenario) -> Iterator[str]:
    yield scenario.name
    for issue in scenario.domain.issues:
        yield issue.name
        yield from issue.values
    for profile in scenario.profiles:
        yield profile.name


def _objective(parent: ET.Element, name: str) -> ET.Element:
    return ET.SubElement(
        parent,
        "objective",
        {"index": "0", "description": "", "name": name, "type": "objective", "etype": "objective"},
    )


def _issue(parent: ET.Element, position: int, issue: Issue) -> ET.Element:
    attributes = {"index": str(position + 1), "name": issue.name}
    attributes |= {"vtype": "discrete", "type": "discrete", "etype": "discrete"}
    return ET.SubElement(parent, "issue", attributes)


def _text(root: ET.Element) -> str:
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _domain_xml(scenario: Scenario) -> str:
    root = ET.Element(DOMAIN_ROOT)
    if scenario.rounds is not None:
        root.set("rounds", str(scenario.rounds))
    space = ET.SubElement(
        root, PROFILE_ROOT, {"number_of_issues": str(len(scenario.domain.issues))}
    )
    objective = _objective(space, scenario.name)
    for position, issue in enumerate(scenario.domain.issues):
        element = _issue(objective, position, issue)
        for number, value in enumerate(issue.values, start=1):
            ET.SubElement(element, "item", {"index": str(number), "value": value})
    return _text(root)


def _profile_xml(scenario: Scenario, profile: Preferences) -> str:
    root = ET.Element(PROFILE_ROOT, {"name": profile.name})  # even "": not the file name
    objective = _objective(root, scenario.name)
    issues = scenario.domain.issues
    for position, (issue, table) in enumerate(zip(issues, profile.evaluations, strict=True)):
        element = _issue(objective, position, issue)
        for number, (value, evaluation) in enumerate(zip(issue.values, table, strict=True), 1):
            attributes = {"index": str(number), "value": value, "evaluation": repr(evaluation)}
            ET.SubElement(element, "item", attributes)
    for position, weight in enumerate(profile.weights):
        ET.SubElement(objective, "weight", {"index": str(position + 1), "value": repr(weight)})
    ET.SubElement(root, "reservation", {"value": repr(profile.reservation)})
    discount = 1.0 if profile.discount is None else profile.discount
    ET.SubElement(root, "discount_factor", {"value": repr(discount)})
    return _text(root)


# Finding scenarios ---------------------------------------------------------------------------


def find_scenarios(path: Path) -> tuple[list[Scenario], list[Skipped]]:
    """Every scenario at PATH: PATH itself (a Genius folder or an accord JSON file) or the
    folders and files below it. Each is named by its path relative to PATH (PATH's own name
    for PATH itself). What cannot be used is listed with a reason rather than raised, so one
    bad folder does not stop a tournament."""
    path = Path(path)
    found: list[Scenario] = []
    skipped: list[Skipped] = []
    own = path.resolve().name

    def name_of(at: Path) -> str:
        try:
            relative = at.relative_to(path).as_posix()
        except ValueError:
            return str(at)
        return own if relative == "." else relative

    def attempt(at: Path, read: Callable[[Path, str], Scenario | None]) -> None:
        name = name_of(at)
        try:
            scenario = read(at, name)
        except (ValueError, OSError) as exc:
            skipped.append(Skipped(name, str(exc)))
            return
        if scenario is None:
            return
        if scenario.domain.outcome_count > MAX_OUTCOMES:
            count = scenario.domain.outcome_count
            skipped.append(Skipped(name, f"{count} outcomes, more than {MAX_OUTCOMES}"))
        else:
            found.append(scenario)

    if path.is_file():
        attempt(path, lambda at, name: read_accord(at, name=name))
    elif path.is_dir():

        def walk_error(exc: OSError) -> None:
            where = Path(exc.filename) if exc.filename else path
            skipped.append(Skipped(name_of(where), f"cannot list: {exc.strerror or exc}"))

        for folder, subfolders, files in os.walk(path, onerror=walk_error):
            subfolders.sort()
            here = Path(folder)
            attempt(here, _read_genius)
            for file in sorted(files):
                if file.lower().endswith(".json"):
                    attempt(here / file, _maybe_accord)
    else:
        skipped.append(Skipped(str(path), "no such file or folder"))
    return sorted(found, key=lambda s: s.name), sorted(skipped, key=lambda s: s.path)


def _maybe_accord(path: Path, name: str) -> Scenario | None:
    """An accord scenario, or None for a JSON file that does not claim to be one."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read: {exc.strerror or exc}") from None
    value = _json(data, str(path))
    claimed = type(value) is dict and str(value.get("format", "")).startswith("accord-scenario/")
    return _accord_of(value, name=name, where=str(path)) if claimed else None

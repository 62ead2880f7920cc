"""Adviser cases for a person at a terminal: short lines and small tables. Everything in a case is
text someone typed (or a skill wrote), so it is shown as text, never obeyed: `clean` escapes
control characters, and nothing is printed as markup."""

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from accord.adviser.review import ABOUT, TESTS
from accord.cli.output import clean, err, grid, out

Body = Mapping[str, Any]


def say(text: str) -> None:
    out.print(clean(text), markup=False, soft_wrap=True, highlight=False)


def hint(text: str) -> None:
    err.print(clean(text), markup=False, soft_wrap=True, highlight=False)


def _text(value: Any) -> str:
    if value is None:
        return "—"
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _member(body: Any, *path: str) -> Any:
    """`body[path[0]][path[1]]…`, or None where a member is missing."""
    for name in path:
        if not isinstance(body, Mapping):
            return None
        body = body.get(name)
    return body


# -- a case --------------------------------------------------------------------------------------


def print_case(case: Body) -> None:
    """The Case: its state, then what waits for the user (questions, material changes, held
    patches) and the preparation checks."""
    _print_state(case.get("case_id"), case.get("state") or {})
    _print_table(case.get("links") or [], case.get("state") or {})
    _print_questions(case.get("questions") or [])
    _print_changes(case.get("material_changes") or [])
    _print_held(case.get("held") or [])
    _print_checks(case.get("checks") or [])


def print_version(body: Body) -> None:
    """`{case_id, state_version, state}`: the case as it was."""
    _print_state(body.get("case_id"), body.get("state") or {})


def _print_state(case_id: Any, state: Body) -> None:
    meta = state.get("meta") or {}
    say(f"case {case_id}  {_text(meta.get('title'))}")
    say(
        f"  version {meta.get('state_version')}  {meta.get('lifecycle_stage')}  "
        f"{meta.get('status')}  depth {meta.get('analysis_depth')}  "
        f"updated {meta.get('updated_at')}"
    )
    objective = _member(state, "objective", "user_stated_objective")
    say(f"objective: {_text(objective) if objective else 'not set'}")
    say(f"BATNA: {_batna(_member(state, 'alternatives', 'user', 'batna'))}")
    _print_topics(_member(state, "topics_targets_tradeoffs", "topics") or [])


def _batna(batna: Any) -> str:
    if not isinstance(batna, Mapping) or not (batna.get("description") or batna.get("value")):
        return "not set"
    parts = [_text(batna["description"])] if batna.get("description") else []
    if batna.get("value"):
        parts.append(f"value {_text(batna['value'])}")
    return f"{', '.join(parts)} ({batna.get('evidence_status')})"


def _print_topics(topics: Sequence[Any]) -> None:
    if not topics:
        say("topics: none yet")
        return
    say("topics:")
    rows = [
        (
            t.get("topic_id"),
            t.get("topic"),
            t.get("priority"),
            _member(t, "best_target", "value"),
            _member(t, "minimum_acceptable", "value"),
            t.get("status"),
        )
        for t in topics
        if isinstance(t, Mapping)
    ]
    grid(("id", "topic", "priority", "target", "minimum", "status"), rows)


def _print_table(links: Sequence[Any], state: Body) -> None:
    """The linked tables, the offers on them, the last concessions and the last review."""
    for link in links:
        say(f"linked: {link.get('protocol')} {link.get('negotiation_id')} as {link.get('seat')}")
    proposals = _member(state, "proposals") or {}
    for party, member in (("their", "current_counterpart_offer"), ("your", "current_user_offer")):
        if proposals.get(member):
            say(f"{party} offer: {_text(proposals[member])}")
    ledger = _member(state, "concessions", "ledger") or []
    if ledger:
        say(f"concessions: {len(ledger)}, the last:")
        for c in ledger[-3:]:
            say(
                f"  {c.get('party')}  {c.get('topic')}  {_text(c.get('from'))} → "
                f"{_text(c.get('to'))}  reciprocal {c.get('reciprocal')}"
            )
    review = _member(state, "deal_review") or {}
    if review.get("recommendation"):
        say(f"deal review: {review['recommendation']}  {_text(review.get('reviewer_rationale'))}")


def _print_questions(questions: Sequence[Any]) -> None:
    if not questions:
        say("open questions: none")
        return
    say("open questions:")
    for q in questions:
        blocking = " (blocking)" if q.get("blocking") else ""
        choices = q.get("choices")
        choose = f" [{' | '.join(map(str, choices))}]" if choices else ""
        say(f"  {q.get('question_id')}{blocking}  {_text(q.get('question'))}{choose}")
        if q.get("decision_impact"):
            say(f"    why it matters: {_text(q['decision_impact'])}")


def _print_changes(changes: Sequence[Any]) -> None:
    if not changes:
        say("unseen material changes: none")
        return
    say("unseen material changes:")
    for change in changes:
        say(f"  {change_line(change)}")


def change_line(change: Body) -> str:
    fields = ", ".join(map(str, change.get("fields") or []))
    return (
        f"{change.get('change_id')}  version {change.get('state_version')}  "
        f"{_text(change.get('summary'))}  (changed: {fields or '—'})"
    )


def _print_held(held: Sequence[Any]) -> None:
    if not held:
        say("held patches: none")
        return
    say("held patches (waiting for you to reconcile their finding):")
    for item in held:
        path = f"  {item['path']}" if item.get("path") else ""
        say(f"  {item.get('patch_id')}  finding {item.get('finding_id')}{path}")


def _print_checks(checks: Sequence[Any]) -> None:
    for check in checks:
        zone = check.get("zone")
        between = f" [{_text(zone[0])} … {_text(zone[1])}]" if isinstance(zone, list) else ""
        verdict = f"{check.get('verdict')}{between}"
        say(f"check {check.get('check')} on {check.get('topic_id')}: {verdict}")


# -- questions and answers -----------------------------------------------------------------------


def question_line(question: Body) -> str:
    """`Q-relationship  enum [low | medium | high]  How much…`: the id, the kind with its
    choices or currency, `blocking` when advice waits on it, and the question."""
    kind = str(question.get("kind"))
    choices = question.get("choices")
    if choices:
        kind += f" [{' | '.join(map(str, choices))}]"
    if question.get("currency"):
        kind += f" {question['currency']}"
    blocking = "  blocking" if question.get("blocking") else ""
    return f"{question.get('question_id')}  {kind}{blocking}  {_text(question.get('question'))}"


def print_questions(case_id: str, questions: Sequence[Any]) -> None:
    if not questions:
        hint("no open questions")
        return
    for question in questions:
        say(question_line(question))
    hint(f"answer one: accord adviser answer {case_id} QUESTION_ID ANSWER")


def print_answered(case_id: str, result: Body, still_open: Sequence[Any]) -> None:
    """The answer's Result, then the questions open now (intake may have asked more)."""
    question = result.get("question") or {}
    say(f"question {question.get('question_id')}: {question.get('status')}")
    print_result(case_id, result)
    say("open questions:" if still_open else "open questions: none")
    for item in still_open:
        say(f"  {question_line(item)}")


# -- lists and history -------------------------------------------------------------------------


def print_cases(cases: Sequence[Any]) -> None:
    """One line per case, the title last (it is the one that may wrap)."""
    if not cases:
        hint("no cases yet: accord adviser new TITLE opens one")
    for c in cases:
        say(
            f"{c.get('case_id')}  version {c.get('state_version')}  {c.get('lifecycle_stage')}  "
            f"{c.get('status')}  {c.get('unseen_material_changes')} unseen  "
            f"updated {c.get('updated_at')}  {_text(c.get('title'))}"
        )


def print_history(events: Sequence[Any]) -> None:
    if not events:
        hint("no events")
    for event in events:
        say(
            f"{event.get('event_id')}  {event.get('timestamp')}  {event.get('type')}  "
            f"{_text(event.get('summary'))}"
        )
        changes = event.get("state_changes") or []
        if changes:
            say(f"  changed: {', '.join(map(str, changes))}")
        if event.get("rationale"):
            say(f"  why: {_text(event['rationale'])}")
        if event.get("source_ref"):
            say(f"  source: {_text(event['source_ref'])}")


# -- results of a write ------------------------------------------------------------------------


def print_result(case_id: str, result: Body) -> None:
    """A Result, one line per patch: applied (with the path it wrote), refused (code and
    message), held, warnings; then the version and any material change."""
    for item in result.get("applied") or []:
        say(f"applied  {item.get('patch_id')}  {item.get('path')}")
    for item in result.get("refused") or []:
        say(f"refused  {item.get('patch_id')}  {item.get('code')}: {_text(item.get('message'))}")
    for item in result.get("held") or []:
        say(
            f"held     {item.get('patch_id')}  until finding {item.get('finding_id')} is reconciled"
        )
    for item in result.get("warnings") or []:
        say(f"warning  {item.get('patch_id')}  {item.get('code')}: {_text(item.get('message'))}")
    version = result.get("state_version")
    if result.get("applied"):
        say(f"version {version}")
    else:
        say(f"no new version: the case stays at version {version}")
    _print_material(case_id, result.get("material_change"))


def print_closed(case_id: str, outcome: str, result: Body) -> None:
    how = " without a deal" if outcome == "no_deal" else ""
    say(f"case {case_id} closed{how} at version {result.get('state_version')}")
    for item in result.get("warnings") or []:
        say(f"warning  {item.get('code')}: {_text(item.get('message'))}")
    _print_material(case_id, result.get("material_change"))


def _print_material(case_id: str, change: Any) -> None:
    if not isinstance(change, Mapping):
        return
    say(f"material change {change_line(change)}")
    hint(f"once read: accord adviser seen {case_id} {change.get('change_id')}")


# -- the deal review -----------------------------------------------------------------------------

OUTCOMES: Final = ("fail", "unknown", "conditional", "pass", "not_run")
"""A review's tests are shown in this order of outcome, then in the spec's order."""


def print_review(case_id: str, result: Body) -> None:
    """The recommendation, each test with what it checks, the conditions to confirm and the
    rationale; then the version and any material change."""
    review = result.get("deal_review") or {}
    recommendation = review.get("recommendation")
    say(f"recommendation: {recommendation}  (status {review.get('status')})")
    say(f"offer: {_text(review.get('offer_reviewed'))}")
    ranked = sorted(TESTS, key=lambda t: _rank(review.get(t)))
    for test in ranked:
        say(f"  {review.get(test)!s:<11}  {test:<25}  {ABOUT[test]}")
    conditions = review.get("conditions") or []
    say("conditions to confirm:" if conditions else "conditions to confirm: none")
    for condition in conditions:
        say(f"  - {_text(condition)}")
    say(f"why: {_text(review.get('reviewer_rationale'))}")
    say(f"version {result.get('state_version')}")
    _print_material(case_id, result.get("material_change"))
    if recommendation not in (None, "accept"):
        hint(f"to accept all the same, on the record: accord adviser override {case_id} --reason …")


def _rank(outcome: Any) -> int:
    return OUTCOMES.index(outcome) if outcome in OUTCOMES else len(OUTCOMES)


def print_override(case_id: str, result: Body) -> None:
    say(
        f"override recorded at version {result.get('state_version')}: you accept against the "
        "review's recommendation"
    )
    for item in result.get("warnings") or []:
        say(f"warning  {item.get('code')}: {_text(item.get('message'))}")
    _print_material(case_id, result.get("material_change"))

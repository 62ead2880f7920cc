"""What each kind of principal key may do (spec/intro-api.md, Principals and keys): one row per
key kind and act, as the spec's table has them."""

from typing import Any

import pytest

from accord.app.identity import PrincipalCaller
from accord.app.principals import Action, may
from accord.core.refusals import RefusalCode

OWNER = PrincipalCaller("pri_1", "owner", None)
SELECTED = PrincipalCaller("pri_1", "agent", "default")
OTHER = PrincipalCaller("pri_1", "agent", "helper")
BUILT_IN = PrincipalCaller("pri_1", "agent", "accord")

FORBIDDEN = RefusalCode.FORBIDDEN
EXECUTOR_CHANGED = RefusalCode.EXECUTOR_CHANGED

ROWS: list[Any] = [
    pytest.param(OWNER, Action.READ, "default", None, id="owner_reads"),
    pytest.param(OWNER, Action.WRITE, "default", None, id="owner_writes"),
    pytest.param(OWNER, Action.TAKE_TURNS, "default", FORBIDDEN, id="owner_takes_no_turns"),
    pytest.param(OWNER, Action.RESUME, "default", None, id="owner_resumes"),
    pytest.param(SELECTED, Action.READ, "default", None, id="selected_agent_reads"),
    pytest.param(SELECTED, Action.WRITE, "default", FORBIDDEN, id="selected_agent_writes_not"),
    pytest.param(SELECTED, Action.TAKE_TURNS, "default", None, id="selected_agent_takes_turns"),
    pytest.param(SELECTED, Action.RESUME, "default", None, id="selected_agent_resumes"),
    pytest.param(OTHER, Action.READ, "default", None, id="other_agent_reads"),
    pytest.param(OTHER, Action.WRITE, "default", FORBIDDEN, id="other_agent_writes_not"),
    pytest.param(
        OTHER, Action.TAKE_TURNS, "default", EXECUTOR_CHANGED, id="other_agent_takes_no_turns"
    ),
    pytest.param(OTHER, Action.RESUME, "default", EXECUTOR_CHANGED, id="other_agent_resumes_not"),
    # Selecting another agent makes the selected one "other", and the other one selected.
    pytest.param(SELECTED, Action.TAKE_TURNS, "helper", EXECUTOR_CHANGED, id="deselected_agent"),
    pytest.param(OTHER, Action.TAKE_TURNS, "helper", None, id="newly_selected_agent"),
    # While the built-in agent is selected, every agent key is another agent's.
    pytest.param(SELECTED, Action.TAKE_TURNS, "accord", EXECUTOR_CHANGED, id="built_in_selected"),
    pytest.param(BUILT_IN, Action.TAKE_TURNS, "accord", None, id="built_in_takes_turns"),
    pytest.param(BUILT_IN, Action.WRITE, "accord", FORBIDDEN, id="built_in_writes_not"),
    pytest.param(OWNER, Action.WRITE, "accord", None, id="owner_writes_whoever_is_selected"),
]


@pytest.mark.parametrize(("caller", "action", "selected", "code"), ROWS)
def test_what_each_key_may_do(
    caller: PrincipalCaller, action: Action, selected: str, code: RefusalCode | None
) -> None:
    refusal = may(caller, action, selected_agent_id=selected)
    assert (refusal.code if refusal else None) == code
    if refusal is not None:
        assert refusal.message


def test_the_table_covers_every_key_kind_and_act() -> None:
    covered = {(p.values[0], p.values[1]) for p in ROWS if p.values[2] == "default"}
    assert covered == {(c, a) for c in (OWNER, SELECTED, OTHER) for a in Action}

"""`accord adviser skills | run | reconcile` through the real entry point against a live server:
a built-in run printed for a person, a skill of one's own registered and its response validated,
red-team patches held and reconciled, and the server's refusals said once."""

import json
from pathlib import Path

from tests.cli.intro_support import ok, refused, said
from tests.cli.test_adviser import (
    PATCHES,
    Someone,
    ada,
    clients,
    new_case,
    patch_file,
    principals,
)

__all__ = ["ada", "clients", "principals"]  # fixtures


def test_skills_lists_the_builtins_and_registers_ones_own(ada: Someone, tmp_path: Path) -> None:
    printed = said(ada.agent("skills"))
    assert all(column in printed for column in ("SKILL", "NAME", "WRITES"))
    listed = printed.splitlines()
    assert sum(line.lstrip("│ ").startswith("F0") for line in listed) == 9
    declaration = {
        "skill_id": "x-coach",
        "name": "Coach",
        "reads": ["/strategy"],
        "writes": ["/strategy"],
        "red_team": True,
    }
    path = patch_file(tmp_path, declaration, "skill.json")
    body = ok(ada.owner("skills", "--register", path, "--json"))
    assert [s["skill_id"] for s in body["skills"]][-1] == "x-coach"
    refused(ada.agent("skills", "--register", path), "forbidden")


def test_a_builtin_run_printed_for_a_person(ada: Someone, tmp_path: Path) -> None:
    case_id = new_case(ada)
    ok(ada.owner("patch", case_id, "--file", patch_file(tmp_path, PATCHES[:2]), "--json"))
    printed = said(ada.owner("run", case_id, "F04")).splitlines()
    assert printed[0].startswith("F04: Next: ")
    assert any(
        line.startswith("applied  F04-opening  /proposals/opening_offer") for line in printed
    )
    drafted = said(ada.owner("run", case_id, "F07", "--kind", "agenda"))
    assert "--- agenda ---\n1. Price\n---" in drafted
    assert "no new version" in drafted
    body = ok(ada.owner("run", case_id, "F03", "--json"))
    assert body["response"]["skill_id"] == "F03" and "state_version" in body
    refused(ada.owner("run", case_id, "F42"), "not_found")
    refused(ada.owner("run", case_id, "F09"), "not_linked")


def test_a_red_team_finding_reconciled(ada: Someone, tmp_path: Path) -> None:
    case_id = new_case(ada)
    declaration = {"skill_id": "x-red", "name": "Red", "reads": [], "writes": ["/strategy"]}
    ok(
        ada.owner(
            "skills",
            "--register",
            patch_file(tmp_path, {**declaration, "red_team": True}, "s.json"),
            "--json",
        )
    )
    response = {
        "skill_id": "x-red",
        "request_id": "r1",
        "based_on_state_version": 1,
        "summary": {"conclusion": "They will stall", "confidence": "low"},
        "findings": [{"finding_id": "f1", "finding": "They stall", "importance": "high"}],
        "proposed_state_patch": [
            {
                "patch_id": "s1",
                "operation": "ADD",
                "path": "/strategy/current_strategy",
                "proposed_value": "Set a deadline",
                "x_finding_id": "f1",
            }
        ],
    }
    ran = said(ada.owner("run", case_id, "x-red", "--response", "-", input=json.dumps(response)))
    assert "finding  f1  They stall" in ran
    assert "held     s1  until finding f1 is reconciled" in ran
    accepted = said(ada.owner("reconcile", case_id, "f1", "--decision", "ACCEPT"))
    assert "applied  s1  /strategy/current_strategy" in accepted
    refused(ada.owner("reconcile", case_id, "f1", "--decision", "REJECT"), "finding_final")
    assert ada.api(f"/{case_id}")["state"]["strategy"]["current_strategy"] == "Set a deadline"

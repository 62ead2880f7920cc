"""How a case keeps up with its linked table without its owner asking: the follower hears each
commit of a followed table, a sweep reads what a stopped process never followed, and F09 run by
hand reads the rest; each envelope is read once, however often and by whomever."""

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from accord.adviser.requests import CaseInput, LinkInput, PatchSet, RunInput
from accord.app.identity import PrincipalCaller
from accord.app.principals import Action, Principals
from accord.app.root import Accord
from accord.app.settings import Settings
from accord.protocols.rooms.moves import JoinRequest, MoveRequest, OpenRequest
from accord.store import adviser as rows
from accord.store.database import Database
from tests.adviser.test_links_http import (
    SALARY,
    SCHEMA,
    counter,
    link,
    room,
    salary_case,
    terms,
)
from tests.conftest import FakeClock, LiveServer, serve_in_thread
from tests.principals.conftest import Principal, make_principal

JSONBody = dict[str, Any]


def setup(accord: Accord) -> tuple[PrincipalCaller, str, JSONBody]:
    """A case with the salary topic, and a room it follows from the joiner's seat."""
    made = make_principal(accord.principals, "ada")
    owner = accord.principals.authorize(made.owner_key, Action.WRITE)
    case_id = accord.adviser.create(owner, CaseInput(title="A new job"))["case_id"]
    topic = {
        "patch_id": "t",
        "operation": "ADD",
        "path": "/topics_targets_tradeoffs/topics/-",
        "proposed_value": SALARY,
    }
    accord.adviser.patch(
        owner, case_id, PatchSet.model_validate({"based_on_state_version": 1, "patches": [topic]})
    )
    opened = accord.rooms.open(OpenRequest(subject_schema=SCHEMA, subject=terms(120_000)))
    joined = accord.rooms.join(JoinRequest(invite_token=opened["invite"]["token"]))
    table = {
        "room_id": opened["room"]["room_id"],
        "employer": opened["seat_token"],
        "candidate": joined["seat_token"],
    }
    body = LinkInput(
        protocol="rooms", negotiation_id=table["room_id"], credential=joined["seat_token"]
    )
    accord.adviser_links.link(owner, case_id, body)
    return owner, case_id, table


def stored_version(accord: Accord, case_id: str) -> int:
    return stored(accord.db, case_id)


def move(accord: Accord, token: str, room_id: str, dollars: int) -> None:
    status, body = accord.rooms.move(
        token, room_id, MoveRequest(type="counter", terms=terms(dollars))
    )
    assert status == 200, body


def test_the_follower_reads_each_commit_of_a_followed_table(
    server: LiveServer, db: Database, client: httpx.Client, ada: Principal
) -> None:
    """Over a real server (on PostgreSQL the commits are heard through NOTIFY): the case moves
    with the room while nobody reads it."""
    linked_then_moved(client, client, db, ada)


def linked_then_moved(
    linking: httpx.Client, moving: httpx.Client, db: Database, ada: Principal
) -> None:
    """A case linked to a room's seat through `linking`, two moves made through `moving`: the
    case takes each one while nobody reads it."""
    case_id = salary_case(linking, ada)
    table = room(moving, 120_000)
    body = {
        "protocol": "rooms",
        "negotiation_id": table["room_id"],
        "credential": table["candidate"],
    }
    assert link(linking, ada, case_id, **body).status_code == 201
    linked_at = stored(db, case_id)
    counter(moving, table["candidate"], table["room_id"], 150_000)
    assert until(lambda: stored(db, case_id) == linked_at + 1)
    counter(moving, table["employer"], table["room_id"], 130_000)
    assert until(lambda: stored(db, case_id) == linked_at + 2)


def stored(db: Database, case_id: str) -> int:
    """The case's version as stored: read without the owner's catch-up."""
    row = db.read(lambda conn: rows.find_case(conn, case_id))
    assert row is not None
    return row.state_version


def until(check: Callable[[], bool], seconds: float = 20) -> bool:
    """Whether `check` holds within `seconds` (the follower works on its own thread)."""
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_a_sweep_reads_what_no_follower_heard(accord: Accord) -> None:
    """Another process moved in the room and stopped before its follower ran: this process's
    sweep (at start and every interval) reads the envelopes into the case, once."""
    owner, case_id, table = setup(accord)
    linked_at = stored_version(accord, case_id)
    deaf = Accord(accord.settings, clock=accord.clock, db=accord.db)
    deaf.notifier._subscribers.clear()  # a process that stops before its follower runs
    accord.notifier._subscribers.clear()  # and nothing announced here either (SQLite: no NOTIFY)
    move(deaf, table["candidate"], table["room_id"], 150_000)
    move(deaf, table["employer"], table["room_id"], 130_000)
    assert stored_version(accord, case_id) == linked_at
    accord.sweep()
    assert stored_version(accord, case_id) == linked_at + 2
    accord.sweep()
    assert stored_version(accord, case_id) == linked_at + 2
    state = accord.adviser.get(owner, case_id)["state"]
    assert [p["party"] for p in state["proposals"]["proposal_history"]] == [
        "counterpart",
        "user",
        "counterpart",
    ]


def test_f09_run_by_hand_reads_the_rest_and_then_nothing(accord: Accord) -> None:
    owner, case_id, table = setup(accord)
    accord.notifier._subscribers.clear()
    move(accord, table["candidate"], table["room_id"], 150_000)
    ran = accord.adviser_skills.run(owner, case_id, "F09", RunInput())
    assert ran["response"]["summary"]["conclusion"] == "Read the linked tables: 1 new version"
    assert [a["path"] for a in ran["applied"]] == [
        "/proposals/proposal_history/-",
        "/proposals/current_user_offer",
        "/meta/lifecycle_stage",
    ]
    again = accord.adviser_skills.run(owner, case_id, "F09", RunInput())
    assert again["response"]["summary"]["conclusion"] == "The linked tables have nothing new"
    assert again["state_version"] == ran["state_version"]


def test_a_case_follows_a_table_linked_and_moved_through_other_processes(
    settings: Settings, clock: FakeClock, db: Database
) -> None:
    """`accord serve --workers N` on PostgreSQL: each process listens on the tables its open
    links follow, as last read; a link made through one process, and the moves made through
    another, still reach the case, with no sweep to help."""
    if not settings.database.startswith("postgresql"):
        pytest.skip("several processes share a store only on PostgreSQL")
    ada = make_principal(Principals(db, clock=clock), "ada")
    unswept = settings.model_copy(update={"sweep_interval": 3600})
    with (
        serve_in_thread(unswept, clock) as first,
        serve_in_thread(unswept, clock) as second,
        first.client() as one,
        second.client() as other,
    ):
        linked_then_moved(one, other, db, ada)


def test_two_processes_linking_one_seat_at_once_link_it_once(
    settings: Settings, clock: FakeClock, db: Database
) -> None:
    """Two cases ask at the same moment, through two processes, to follow the same seat: the
    table's row is locked while the link is checked and made, so one is linked and the other
    refused `already_linked`, never both and never an error."""
    if not settings.database.startswith("postgresql"):
        pytest.skip("several processes share a store only on PostgreSQL")
    ada = make_principal(Principals(db, clock=clock), "ada")
    with (
        serve_in_thread(settings, clock) as first,
        serve_in_thread(settings, clock) as second,
        first.client() as one,
        second.client() as other,
    ):
        for _ in range(3):
            table = room(one, 120_000)
            body = {
                "protocol": "rooms",
                "negotiation_id": table["room_id"],
                "credential": table["candidate"],
            }
            cases = [(one, salary_case(one, ada)), (other, salary_case(other, ada))]
            answers = linked_at_once(ada, cases, body)
            outcomes = sorted(
                (a.status_code, a.json().get("error", {}).get("code")) for a in answers
            )
            assert outcomes == [(201, None), (409, "already_linked")], [a.text for a in answers]


def linked_at_once(
    who: Principal, cases: list[tuple[httpx.Client, str]], body: JSONBody
) -> list[httpx.Response]:
    """Each (client, case) asks to link `body`'s seat, all released at the same moment."""
    start = threading.Barrier(len(cases))

    def ask(client: httpx.Client, case_id: str) -> httpx.Response:
        start.wait()
        return link(client, who, case_id, **body)

    with ThreadPoolExecutor(len(cases)) as pool:
        return list(pool.map(lambda pair: ask(*pair), cases))

"""Reading and writing adviser cases, their versions and material changes. Functions of a
Connection, so that callers choose the transaction; a version's state is stored as JSON text."""

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, insert, select, update

from accord.adviser.questions import Question
from accord.store.tables import (
    adviser_cases,
    adviser_changes,
    adviser_held,
    adviser_links,
    adviser_questions,
    adviser_skills,
    adviser_versions,
)


@dataclass(frozen=True)
class CaseRow:
    id: str
    principal_id: str
    title: str
    description: str | None
    state_version: int
    status: str
    lifecycle_stage: str
    depth_given: bool
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class ChangeRow:
    id: str
    case_id: str
    state_version: int
    fields: tuple[str, ...]
    summary: str
    created_at: str
    seen_at: str | None


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _case(row: Any) -> CaseRow:
    return CaseRow(
        row.id,
        row.principal_id,
        row.title,
        row.description,
        int(row.state_version),
        row.status,
        row.lifecycle_stage,
        bool(row.depth_given),
        row.created_at,
        row.updated_at,
    )


def _change(row: Any) -> ChangeRow:
    return ChangeRow(
        row.id,
        row.case_id,
        int(row.state_version),
        tuple(json.loads(row.fields)),
        row.summary,
        row.created_at,
        row.seen_at,
    )


def insert_case(
    conn: Connection,
    case_id: str,
    principal_id: str,
    description: str | None,
    state: dict[str, Any],
    *,
    depth_given: bool,
) -> None:
    meta = state["meta"]
    conn.execute(
        insert(adviser_cases).values(
            id=case_id,
            principal_id=principal_id,
            title=meta["title"],
            description=description,
            state_version=meta["state_version"],
            status=meta["status"],
            lifecycle_stage=meta["lifecycle_stage"],
            depth_given=depth_given,
            created_at=meta["created_at"],
            updated_at=meta["updated_at"],
        )
    )
    _insert_version(conn, case_id, state)


def add_version(conn: Connection, case_id: str, state: dict[str, Any]) -> None:
    """The next version, and the case's bookkeeping as it now stands."""
    meta = state["meta"]
    conn.execute(
        update(adviser_cases)
        .where(adviser_cases.c.id == case_id)
        .values(
            state_version=meta["state_version"],
            status=meta["status"],
            lifecycle_stage=meta["lifecycle_stage"],
            updated_at=meta["updated_at"],
        )
    )
    _insert_version(conn, case_id, state)


def _insert_version(conn: Connection, case_id: str, state: dict[str, Any]) -> None:
    meta = state["meta"]
    conn.execute(
        insert(adviser_versions).values(
            case_id=case_id,
            version=meta["state_version"],
            state=_dumps(state),
            recorded_at=meta["updated_at"],
        )
    )


def find_case(conn: Connection, case_id: str, *, lock: bool = False) -> CaseRow | None:
    """With `lock`, the row stays locked for this transaction on PostgreSQL."""
    query = select(adviser_cases).where(adviser_cases.c.id == case_id)
    row = conn.execute(query.with_for_update() if lock else query).first()
    return _case(row) if row is not None else None


def own_cases(conn: Connection, principal_id: str) -> list[CaseRow]:
    """Last updated first."""
    query = (
        select(adviser_cases)
        .where(adviser_cases.c.principal_id == principal_id)
        .order_by(adviser_cases.c.updated_at.desc(), adviser_cases.c.id)
    )
    return [_case(row) for row in conn.execute(query)]


def state_at(conn: Connection, case_id: str, version: int) -> dict[str, Any] | None:
    query = select(adviser_versions.c.state).where(
        adviser_versions.c.case_id == case_id, adviser_versions.c.version == version
    )
    text = conn.execute(query).scalar()
    return None if text is None else dict(json.loads(text))


def insert_change(
    conn: Connection,
    change_id: str,
    case_id: str,
    state_version: int,
    fields: Sequence[str],
    summary: str,
    now: str,
) -> ChangeRow:
    conn.execute(
        insert(adviser_changes).values(
            id=change_id,
            case_id=case_id,
            state_version=state_version,
            fields=_dumps(list(fields)),
            summary=summary,
            created_at=now,
        )
    )
    return ChangeRow(change_id, case_id, state_version, tuple(fields), summary, now, None)


def unseen_changes(conn: Connection, case_id: str) -> list[ChangeRow]:
    query = (
        select(adviser_changes)
        .where(adviser_changes.c.case_id == case_id, adviser_changes.c.seen_at.is_(None))
        .order_by(adviser_changes.c.state_version)
    )
    return [_change(row) for row in conn.execute(query)]


def unseen_counts(conn: Connection, case_ids: Sequence[str]) -> dict[str, int]:
    if not case_ids:
        return {}
    query = select(adviser_changes.c.case_id).where(
        adviser_changes.c.case_id.in_(case_ids), adviser_changes.c.seen_at.is_(None)
    )
    counts: dict[str, int] = {}
    for (case_id,) in conn.execute(query):
        counts[case_id] = counts.get(case_id, 0) + 1
    return counts


def find_change(conn: Connection, case_id: str, change_id: str) -> ChangeRow | None:
    query = select(adviser_changes).where(
        adviser_changes.c.id == change_id, adviser_changes.c.case_id == case_id
    )
    row = conn.execute(query).first()
    return _change(row) if row is not None else None


def mark_seen(conn: Connection, change_id: str, now: str) -> None:
    conn.execute(
        update(adviser_changes)
        .where(adviser_changes.c.id == change_id, adviser_changes.c.seen_at.is_(None))
        .values(seen_at=now)
    )


def questions(conn: Connection, case_id: str) -> list[Question]:
    """Every question the case was asked, in the order asked."""
    query = (
        select(adviser_questions.c.body, adviser_questions.c.status)
        .where(adviser_questions.c.case_id == case_id)
        .order_by(adviser_questions.c.position)
    )
    return [
        Question.from_json({**json.loads(body), "status": status})
        for body, status in conn.execute(query)
    ]


def insert_questions(
    conn: Connection, case_id: str, asked: Sequence[Question], start: int, now: str
) -> None:
    for offset, question in enumerate(asked):
        body = {k: v for k, v in question.as_json().items() if k != "status"}
        conn.execute(
            insert(adviser_questions).values(
                case_id=case_id,
                question_id=question.question_id,
                position=start + offset,
                body=_dumps(body),
                status=question.status,
                created_at=now,
                updated_at=now,
            )
        )


def set_question_status(
    conn: Connection, case_id: str, question_id: str, status: str, now: str
) -> None:
    conn.execute(
        update(adviser_questions)
        .where(
            adviser_questions.c.case_id == case_id,
            adviser_questions.c.question_id == question_id,
        )
        .values(status=status, updated_at=now)
    )


def skills(conn: Connection, principal_id: str) -> list[dict[str, Any]]:
    """The principal's registered skills as declared, by id."""
    query = (
        select(adviser_skills.c.body)
        .where(adviser_skills.c.principal_id == principal_id)
        .order_by(adviser_skills.c.skill_id)
    )
    return [dict(json.loads(body)) for (body,) in conn.execute(query)]


def save_skill(
    conn: Connection, principal_id: str, skill_id: str, body: dict[str, Any], now: str
) -> bool:
    """Declare or replace a skill; whether it is new."""
    found = conn.execute(
        select(adviser_skills.c.skill_id).where(
            adviser_skills.c.principal_id == principal_id, adviser_skills.c.skill_id == skill_id
        )
    ).first()
    if found is None:
        conn.execute(
            insert(adviser_skills).values(
                principal_id=principal_id,
                skill_id=skill_id,
                body=_dumps(body),
                created_at=now,
                updated_at=now,
            )
        )
        return True
    conn.execute(
        update(adviser_skills)
        .where(adviser_skills.c.principal_id == principal_id, adviser_skills.c.skill_id == skill_id)
        .values(body=_dumps(body), updated_at=now)
    )
    return False


@dataclass(frozen=True)
class HeldRow:
    finding_id: str
    skill_id: str
    held_at: int
    patch: dict[str, Any]


def hold(conn: Connection, case_id: str, rows: Sequence[HeldRow]) -> None:
    start = conn.execute(
        select(func.count()).select_from(adviser_held).where(adviser_held.c.case_id == case_id)
    ).scalar_one()
    for offset, row in enumerate(rows):
        conn.execute(
            insert(adviser_held).values(
                case_id=case_id,
                position=int(start) + offset,
                finding_id=row.finding_id,
                skill_id=row.skill_id,
                held_at=row.held_at,
                patch=_dumps(row.patch),
            )
        )


def held(conn: Connection, case_id: str) -> list[HeldRow]:
    """Every patch the case ever held, in the order held."""
    query = (
        select(adviser_held)
        .where(adviser_held.c.case_id == case_id)
        .order_by(adviser_held.c.position)
    )
    return [
        HeldRow(r.finding_id, r.skill_id, int(r.held_at), dict(json.loads(r.patch)))
        for r in conn.execute(query)
    ]


@dataclass(frozen=True)
class LinkRow:
    id: str
    case_id: str
    protocol: str
    negotiation_id: str
    seat: str
    through_seq: int
    created_at: str


def _link(row: Any) -> LinkRow:
    return LinkRow(
        row.id,
        row.case_id,
        row.protocol,
        row.negotiation_id,
        row.seat,
        int(row.through_seq),
        row.created_at,
    )


def insert_link(conn: Connection, link: LinkRow) -> None:
    conn.execute(
        insert(adviser_links).values(
            id=link.id,
            case_id=link.case_id,
            protocol=link.protocol,
            negotiation_id=link.negotiation_id,
            seat=link.seat,
            through_seq=link.through_seq,
            created_at=link.created_at,
        )
    )


def case_links(conn: Connection, case_id: str) -> list[LinkRow]:
    query = (
        select(adviser_links)
        .where(adviser_links.c.case_id == case_id)
        .order_by(adviser_links.c.created_at, adviser_links.c.id)
    )
    return [_link(r) for r in conn.execute(query)]


def open_links(conn: Connection, *, negotiation_ids: Sequence[str] | None = None) -> list[LinkRow]:
    """The links of cases not closed (of these negotiations, when given)."""
    query = (
        select(adviser_links)
        .join(adviser_cases, adviser_cases.c.id == adviser_links.c.case_id)
        .where(adviser_cases.c.status.not_in(("closed", "no_deal")))
        .order_by(adviser_links.c.case_id, adviser_links.c.id)
    )
    if negotiation_ids is not None:
        query = query.where(adviser_links.c.negotiation_id.in_(negotiation_ids))
    return [_link(r) for r in conn.execute(query)]


def seat_link(conn: Connection, protocol: str, negotiation_id: str, seat: str) -> LinkRow | None:
    """The link that holds this seat for a case not closed, if any."""
    found = [
        link
        for link in open_links(conn, negotiation_ids=[negotiation_id])
        if link.protocol == protocol and link.seat == seat
    ]
    return found[0] if found else None


def read_through(conn: Connection, link_id: str, seq: int) -> None:
    conn.execute(update(adviser_links).where(adviser_links.c.id == link_id).values(through_seq=seq))

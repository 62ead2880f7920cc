"""Adviser cases as a service (spec/adviser-api.md, Cases): a principal's owner key writes its
cases, its agent keys read them, and nobody else learns anything of them, not even that one
exists (another principal's case is `not_found`, exactly like an unknown id). Each call checks in
the spec's order: the case (`not_found`), the key (`forbidden`), the body (`invalid_request`),
what it names (`not_found`), then `case_closed`. The rules are in `accord.adviser`; this is their
I/O."""

import copy
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import Connection

from accord.adviser.checks import checks
from accord.adviser.export import brief
from accord.adviser.intake import INTAKE, intake
from accord.adviser.patches import USER, SetContext, Verdicts, validate
from accord.adviser.questions import Question, answer_patch, answer_problem, obsolete
from accord.adviser.requests import (
    AnswerInput,
    CaseInput,
    CloseInput,
    OverrideInput,
    PatchSet,
    ReviewInput,
)
from accord.adviser.review import Offer, review_patches
from accord.adviser.skills.output import Output, respond
from accord.adviser.skills.registry import BUILTIN, view
from accord.adviser.skills.response import Recommendation
from accord.adviser.state import NegotiationState
from accord.adviser.versions import Version, next_version, version_one
from accord.app.identity import PrincipalCaller
from accord.app.intents import check_may, invalid_unless
from accord.app.negotiations import Negotiations
from accord.app.principal_events import adviser_event
from accord.app.principals import Action
from accord.app.tokens import new_id
from accord.core.refusals import RefusalCode, refuse
from accord.core.times import format_time
from accord.store import adviser as rows
from accord.store.database import Database
from accord.store.events import NewEvent

JSONBody = dict[str, Any]
T = TypeVar("T")

NOT_FOUND = "No case of yours has this id; GET /v1/adviser/cases lists yours."
"""One message for an unknown id and another principal's case: they must not differ."""
CLOSED = "This case is closed and stays as it was; open a new case to go on."
CLOSING = {"closed": "CLOSED", "no_deal": "NO_DEAL"}
REVIEWER = BUILTIN["F08"]
PREPARATION = ("NEW", "TRIAGE", "PREPARING", "QUICK_ADVICE")
"""Intake runs with an answer while the lifecycle is before STRATEGY_READY."""


class Adviser:
    def __init__(
        self, db: Database, negotiations: Negotiations, *, clock: Callable[[], datetime]
    ) -> None:
        self._db = db
        self._clock = clock
        self._write = negotiations.write
        """The kernel's write: the events a call emits wake the principal's streams."""
        self._emit = negotiations.emit
        self._kernel = negotiations
        self.catch_up: Callable[[str], int] = _nothing_linked
        """Set by the composition root: reads what the case's linked tables appended."""

    def read(self, fn: Callable[[Connection], T]) -> T:
        return self._db.read(fn)

    def write(self, fn: Callable[[Connection], T]) -> T:
        return self._write(fn)

    def now(self) -> datetime:
        return self._clock()

    def emit(self, conn: Connection, events: Sequence[NewEvent]) -> None:
        self._emit(conn, events)

    def announce(self, conn: Connection, keys: set[str]) -> None:
        self._kernel.announce(conn, keys)

    # -- cases -------------------------------------------------------------------------------

    def create(self, caller: PrincipalCaller, body: CaseInput) -> JSONBody:
        def txn(conn: Connection) -> JSONBody:
            check_may(conn, caller, Action.WRITE)
            case_id, now = new_id("case"), self._clock()
            state = version_one(
                case_id,
                body.title,
                now,
                analysis_depth=str(body.analysis_depth or "STANDARD"),
                description=body.description,
            )
            given = body.analysis_depth is not None
            run = intake(state, answered=False, depth_given=given, known=())
            state = validate(SetContext(state, 1, INTAKE), run.patches).document  # in version 1
            rows.insert_case(
                conn, case_id, caller.principal_id, body.description, state, depth_given=given
            )
            self._emit(
                conn, [adviser_event(caller.principal_id, "version", case_id, state_version=1)]
            )
            self.ask(conn, caller.principal_id, case_id, run.questions, 0, format_time(now))
            return _case(conn, own(conn, caller, case_id, Action.READ), state)

        return self._write(txn)

    def list_own(self, caller: PrincipalCaller) -> JSONBody:
        def read(conn: Connection) -> JSONBody:
            check_may(conn, caller, Action.READ)
            cases = rows.own_cases(conn, caller.principal_id)
            unseen = rows.unseen_counts(conn, [c.id for c in cases])
            return {
                "cases": [
                    {
                        "case_id": c.id,
                        "title": c.title,
                        "state_version": c.state_version,
                        "lifecycle_stage": c.lifecycle_stage,
                        "status": c.status,
                        "updated_at": c.updated_at,
                        "unseen_material_changes": unseen.get(c.id, 0),
                    }
                    for c in cases
                ]
            }

        return self._db.read(read)

    def find(self, caller: PrincipalCaller, case_id: str, action: Action) -> None:
        """not_found → forbidden, before a body is read."""
        self._db.read(lambda conn: own(conn, caller, case_id, action))

    def fresh(self, caller: PrincipalCaller, case_id: str) -> None:
        """The owner's case with what its linked tables appended read into it first."""
        self.find(caller, case_id, Action.READ)
        self.catch_up(case_id)

    def get(self, caller: PrincipalCaller, case_id: str) -> JSONBody:
        self.fresh(caller, case_id)

        def read(conn: Connection) -> JSONBody:
            row = own(conn, caller, case_id, Action.READ)
            return _case(conn, row, state_at(conn, row.id, row.state_version))

        return self._db.read(read)

    def version(self, caller: PrincipalCaller, case_id: str, number: int) -> JSONBody:
        def read(conn: Connection) -> JSONBody:
            row = own(conn, caller, case_id, Action.READ)
            if not 1 <= number <= row.state_version:
                raise refuse(
                    RefusalCode.NOT_FOUND,
                    f"This case has versions 1 to {row.state_version}.",
                )
            state = state_at(conn, case_id, number)
            return {"case_id": case_id, "state_version": number, "state": state}

        return self._db.read(read)

    def export(self, caller: PrincipalCaller, case_id: str, number: int | None) -> str:
        """The one-page brief of a version (the current one by default)."""
        self.fresh(caller, case_id)

        def read(conn: Connection) -> str:
            row = own(conn, caller, case_id, Action.READ)
            version = row.state_version if number is None else number
            if not 1 <= version <= row.state_version:
                raise refuse(
                    RefusalCode.NOT_FOUND, f"This case has versions 1 to {row.state_version}."
                )
            state = NegotiationState.model_validate(state_at(conn, case_id, version))
            questions = [q.as_json() for q in rows.questions(conn, case_id) if q.status == "open"]
            return brief(state, questions if version == row.state_version else ())

        return self._db.read(read)

    def history(self, caller: PrincipalCaller, case_id: str) -> JSONBody:
        self.fresh(caller, case_id)

        def read(conn: Connection) -> JSONBody:
            row = own(conn, caller, case_id, Action.READ)
            state = state_at(conn, case_id, row.state_version)
            return {"events": state["history"]["material_events"]}

        return self._db.read(read)

    # -- writes ------------------------------------------------------------------------------

    def patch(self, caller: PrincipalCaller, case_id: str, body: PatchSet) -> JSONBody:
        """The user's own edits: validated in order, the valid ones one version."""

        def txn(conn: Connection) -> JSONBody:
            row = own(conn, caller, case_id, Action.WRITE, lock=True)
            invalid_unless(
                body.based_on_state_version <= row.state_version,
                {"based_on_state_version": f"at most the current version, {row.state_version}"},
            )
            ids = [p.patch_id for p in body.patches]
            invalid_unless(len(set(ids)) == len(ids), {"patches": "each patch_id once"})
            ensure_open(row)
            state = state_at(conn, case_id, row.state_version)
            verdicts = validate(SetContext(state, body.based_on_state_version, USER), body.patches)
            made = next_version(
                state,
                verdicts,
                self._clock(),
                cause="patches_applied",
                summary=_summary(verdicts),
            )
            return self.record(conn, row, verdicts, made)

        return self._write(txn)

    def answer(self, caller: PrincipalCaller, case_id: str, body: AnswerInput) -> JSONBody:
        """An answer is the user's own patch, with intake run in the same version while the
        case is being prepared."""

        def txn(conn: Connection) -> JSONBody:
            row = own(conn, caller, case_id, Action.WRITE, lock=True)
            asked = {q.question_id: q for q in rows.questions(conn, case_id)}
            question = asked.get(body.question_id)
            if question is None:
                raise refuse(RefusalCode.NOT_FOUND, "This case has no question by this id.")
            problem = answer_problem(question, body.answer)
            invalid_unless(problem is None, {"answer": problem})
            ensure_open(row)
            if question.status != "open":
                raise refuse(
                    RefusalCode.QUESTION_NOT_OPEN,
                    f"This question is {question.status}; the case lists its open questions.",
                )
            state = state_at(conn, case_id, row.state_version)
            mine = answer_patch(question, body.answer, state)
            verdicts = validate(SetContext(state, row.state_version, USER), [mine])
            run = None
            if verdicts.applied and state["meta"]["lifecycle_stage"] in PREPARATION:
                run = intake(
                    verdicts.document, answered=True, depth_given=row.depth_given, known=asked
                )
                ran = validate(
                    SetContext(verdicts.document, row.state_version, INTAKE), run.patches
                )
                verdicts.document = ran.document
                verdicts.applied += ran.applied
            made = next_version(
                state,
                verdicts,
                self._clock(),
                cause="answer",
                summary=f"Answered: {question.question}",
                source_ref=f"question:{question.question_id}",
            )
            result = self.record(conn, row, verdicts, made)
            now = format_time(self._clock())
            answered = bool(verdicts.applied) and verdicts.applied[0][0] == mine.patch_id
            if answered:
                rows.set_question_status(conn, case_id, question.question_id, "answered", now)
            if run is not None:
                self.ask(conn, row.principal_id, case_id, run.questions, len(asked), now)
            shown = replace(question, status="answered") if answered else question
            return {**result, "question": shown.as_json()}

        return self._write(txn)

    def close(self, caller: PrincipalCaller, case_id: str, body: CloseInput) -> JSONBody:
        """The only way a case closes: status and lifecycle together, then read-only for good."""

        def txn(conn: Connection) -> JSONBody:
            row = own(conn, caller, case_id, Action.WRITE, lock=True)
            ensure_open(row)
            state = state_at(conn, case_id, row.state_version)
            verdicts = Verdicts(_closed(state, body.outcome))
            made = next_version(
                state,
                verdicts,
                self._clock(),
                cause="closed",
                summary="Case closed" if body.outcome == "closed" else "Case closed without a deal",
                rationale=body.reason,
                extra_changes=("/meta/status", "/meta/lifecycle_stage"),
            )
            return self.record(conn, row, verdicts, made)

        return self._write(txn)

    def review(self, caller: PrincipalCaller, case_id: str, body: ReviewInput) -> JSONBody:
        """A run of F08 on an offer: the review is a version of its own, and clears an earlier
        override."""

        def txn(conn: Connection) -> JSONBody:
            row = own(conn, caller, case_id, Action.WRITE, lock=True)
            ensure_open(row)
            return self.reviewed(conn, row, body.offer)

        return self._write(txn)

    def reviewed(self, conn: Connection, row: rows.CaseRow, offer: Offer) -> JSONBody:
        """F08 on its view of the current version (never `/strategy`), as a version."""
        state = state_at(conn, row.id, row.state_version)
        request_id = new_id("run")
        seen = view(state, REVIEWER.reads, version_one(row.id, row.title, self._clock()))
        patches = review_patches(NegotiationState.model_validate(seen), offer, request_id)
        verdicts = validate(SetContext(state, row.state_version, REVIEWER.author), patches)
        assert not verdicts.refused, verdicts.refused  # F08 writes only what it declares
        made = next_version(
            state,
            verdicts,
            self._clock(),
            cause="deal_review",
            summary="Deal review",
            source_ref=f"F08:{request_id}",
        )
        result = self.record(conn, row, verdicts, made)
        assert made is not None
        deal_review = made.document["deal_review"]
        recommendation = deal_review["recommendation"]
        self._emit(
            conn,
            [adviser_event(row.principal_id, "deal_review", row.id, recommendation=recommendation)],
        )
        output = Output(
            deal_review["reviewer_rationale"],
            patches=patches,
            recommendations=[
                Recommendation(
                    recommendation_id="recommendation-1",
                    recommendation=recommendation,
                    rationale=deal_review["reviewer_rationale"],
                    priority="high",
                )
            ],
            material=("/deal_review",),
        )
        response = respond("F08", request_id, row.state_version, output, {})
        return {**result, "deal_review": deal_review, "response": response.model_dump(mode="json")}

    def override(self, caller: PrincipalCaller, case_id: str, body: OverrideInput) -> JSONBody:
        """The user accepts against a recommendation other than accept: recorded, never
        silent."""

        def txn(conn: Connection) -> JSONBody:
            row = own(conn, caller, case_id, Action.WRITE, lock=True)
            ensure_open(row)
            state = state_at(conn, case_id, row.state_version)
            recommendation = state["deal_review"]["recommendation"]
            if recommendation in (None, "accept"):
                raise refuse(
                    RefusalCode.NOTHING_TO_OVERRIDE,
                    "There is no deal review recommending other than accept to override.",
                )
            document = copy.deepcopy(state)
            document["deal_review"]["override"] = {
                "occurred": True,
                "user_reason": body.reason,
                "new_evidence": body.new_evidence,
                "timestamp": format_time(self._clock()),
            }
            made = next_version(
                state,
                Verdicts(document),
                self._clock(),
                cause="override",
                summary=f"Accepted against a recommendation to {recommendation}",
                rationale=body.reason,
                extra_changes=("/deal_review/override",),
            )
            return self.record(conn, row, Verdicts(document), made)

        return self._write(txn)

    def seen(self, caller: PrincipalCaller, case_id: str, change_id: str) -> JSONBody:
        def txn(conn: Connection) -> JSONBody:
            row = own(conn, caller, case_id, Action.WRITE, lock=True)
            if rows.find_change(conn, case_id, change_id) is None:
                raise refuse(RefusalCode.NOT_FOUND, "This case has no material change by this id.")
            ensure_open(row)
            rows.mark_seen(conn, change_id, format_time(self._clock()))
            return {"change_id": change_id, "seen": True}

        return self._write(txn)

    def ask(
        self,
        conn: Connection,
        principal_id: str,
        case_id: str,
        asked: Sequence[Question],
        start: int,
        now: str,
    ) -> None:
        rows.insert_questions(conn, case_id, asked, start, now)
        self._emit(
            conn,
            [
                adviser_event(principal_id, "question", case_id, question_id=q.question_id)
                for q in asked
            ],
        )

    def record(
        self, conn: Connection, row: rows.CaseRow, verdicts: Verdicts, made: Version | None
    ) -> JSONBody:
        """Store the version a call made, and its material change; the call's Result."""
        change = None
        version = row.state_version
        if made is not None:
            version = int(made.document["meta"]["state_version"])
            rows.add_version(conn, row.id, made.document)
            events = [adviser_event(row.principal_id, "version", row.id, state_version=version)]
            now = made.document["meta"]["updated_at"]
            for question in obsolete(rows.questions(conn, row.id), made.document):
                rows.set_question_status(conn, row.id, question.question_id, "obsolete", now)
            if made.material:
                event = made.document["history"]["material_events"][-1]
                change = _change(
                    rows.insert_change(
                        conn,
                        new_id("chg"),
                        row.id,
                        version,
                        made.material,
                        event["summary"],
                        event["timestamp"],
                    )
                )
                events.append(
                    adviser_event(
                        row.principal_id,
                        "material_change",
                        row.id,
                        change_id=change["change_id"],
                        fields=change["fields"],
                    )
                )
            self._emit(conn, events)
        return {
            "applied": [{"patch_id": p, "path": path} for p, path in verdicts.applied],
            "refused": [
                {"patch_id": r.patch_id, "code": r.code, "message": r.message}
                for r in verdicts.refused
            ],
            "held": [{"patch_id": p.patch_id, "finding_id": f} for p, f in verdicts.held],
            "warnings": [
                {"patch_id": w.patch_id, "code": w.code, "message": w.message}
                for w in verdicts.warnings
            ],
            "state_version": version,
            "material_change": change,
        }


def own(
    conn: Connection, caller: PrincipalCaller, case_id: str, action: Action, *, lock: bool = False
) -> rows.CaseRow:
    row = rows.find_case(conn, case_id, lock=lock)
    if row is None or row.principal_id != caller.principal_id:
        raise refuse(RefusalCode.NOT_FOUND, NOT_FOUND)
    check_may(conn, caller, action)
    return row


def ensure_open(row: rows.CaseRow) -> None:
    if row.status in CLOSING:
        raise refuse(RefusalCode.CASE_CLOSED, CLOSED)


def state_at(conn: Connection, case_id: str, version: int) -> dict[str, Any]:
    state = rows.state_at(conn, case_id, version)
    assert state is not None, f"{case_id} lacks version {version}"
    return state


def _closed(state: dict[str, Any], outcome: str) -> dict[str, Any]:
    document = copy.deepcopy(state)
    document["meta"]["status"] = outcome
    document["meta"]["lifecycle_stage"] = CLOSING[outcome]
    return document


def _summary(verdicts: Verdicts) -> str:
    count = len(verdicts.applied)
    return f"{count} edit{'s' if count != 1 else ''} by the user"


def _case(conn: Connection, row: rows.CaseRow, state: dict[str, Any]) -> JSONBody:
    model = NegotiationState.model_validate(state)
    return {
        "case_id": row.id,
        "title": row.title,
        "description": row.description,
        "state_version": row.state_version,
        "state": state,
        "questions": [q.as_json() for q in rows.questions(conn, row.id) if q.status == "open"],
        "material_changes": [_change(c) for c in rows.unseen_changes(conn, row.id)],
        "held": held(conn, row.id, state),
        "links": [link_json(link) for link in rows.case_links(conn, row.id)],
        "checks": checks(model),
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }


def held(conn: Connection, case_id: str, state: dict[str, Any]) -> list[JSONBody]:
    """The patches waiting for the user to reconcile their finding (TEST and DEFER keep them
    waiting, ACCEPT and REJECT end it)."""
    waiting = {
        f["finding_id"]
        for f in state["roleplay"]["red_team_findings"]
        if f["reconciliation_status"] not in ("ACCEPT", "REJECT")
    }
    return [
        {"patch_id": h.patch["patch_id"], "finding_id": h.finding_id, "path": h.patch["path"]}
        for h in rows.held(conn, case_id)
        if h.finding_id in waiting
    ]


def link_json(link: rows.LinkRow) -> JSONBody:
    """A link as the links call answers it: the seat, never the credential."""
    return {
        "link_id": link.id,
        "protocol": link.protocol,
        "negotiation_id": link.negotiation_id,
        "seat": link.seat,
    }


def _nothing_linked(case_id: str) -> int:
    return 0


def _change(change: rows.ChangeRow) -> JSONBody:
    return {
        "change_id": change.id,
        "state_version": change.state_version,
        "fields": list(change.fields),
        "summary": change.summary,
        "seen": change.seen_at is not None,
        "created_at": change.created_at,
    }

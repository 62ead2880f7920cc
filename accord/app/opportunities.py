"""Opportunities as a service (spec/intro-api.md, Opportunities and Disclosure): one per
unordered pair of intents, ever, opened from an intent that may discover, each with its intro
negotiation opened through the kernel in the same transaction.

A seat sees its own side (its intent, its decision, the opener's `context` if it opened) and
of the other side only what the disclosure layers open: never the other's intent id or
principal. A candidate the opener may not open is `not_found`, one message for every reason,
and the call opens nothing.
"""

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any, Final

from sqlalchemy import Connection
from sqlalchemy.exc import IntegrityError

from accord.app.identity import PrincipalCaller
from accord.app.index import IntentIndex
from accord.app.intents import check_may, invalid_unless, own_intent
from accord.app.negotiations import Answer, Loaded, Move, Negotiations, encode, request_hash
from accord.app.principal_events import opportunity_changed, seat_scopes
from accord.app.principals import Action
from accord.app.tokens import new_id
from accord.core.protocol import Decision
from accord.core.refusals import RefusalCode, Refused, refuse
from accord.core.times import format_time
from accord.protocols.intro.decide import open_negotiation
from accord.protocols.intro.moves import (
    AnswerMove,
    AnswerRequest,
    Close,
    QuestionsRequest,
    ResumeRequest,
    SeatMove,
    TurnRequest,
)
from accord.protocols.intro.opportunities import (
    DecisionInput,
    OpenInput,
    decided_status,
    decision_problems,
    may_discover,
    open_problems,
)
from accord.protocols.intro.state import Actor, Checks, IntroState, Key, Outcome, Seat
from accord.protocols.intro.table import IntroTable
from accord.protocols.intro.views import (
    CounterpartyIntent,
    counterparty,
    layers,
    negotiation_view,
    questions_view,
)
from accord.store import intents as intent_rows
from accord.store import opportunities as rows
from accord.store import principals as principal_rows
from accord.store.opportunities import OpportunityRow

JSONBody = dict[str, Any]
STATUSES: Final = ("negotiating", "pending", "accepted", "rejected", "expired")
NEGOTIATION_STATES: Final = ("open", "settled")
FINAL: Final = frozenset({"accepted", "rejected", "expired"})
NOT_FOUND: Final = "No opportunity has this id; GET /api/opportunities lists yours."
NOT_A_CANDIDATE: Final = (
    "No intent you may open has this id; POST /api/intents/{id}/discover lists the candidates."
)
"""One message for an unknown, own, private, inactive or unreachable candidate."""

Follow = Callable[[Sequence[str]], None]
"""Called with the opportunities a write touched, once it is durable (the built-in agent)."""


def _nobody(_: Sequence[str]) -> None:
    """No agent follows opportunities."""


@dataclass(frozen=True)
class Seated:
    """An opportunity as one of its seats reads it, with both intents as they are now."""

    row: OpportunityRow
    seat: Seat
    mine: intent_rows.IntentRow
    theirs: intent_rows.IntentRow
    state: IntroState


def seat_of(row: OpportunityRow, principal_id: str) -> Seat | None:
    if row.initiator_principal_id == principal_id:
        return Seat.INITIATOR
    if row.responder_principal_id == principal_id:
        return Seat.RESPONDER
    return None


def intent_of(row: OpportunityRow, seat: Seat) -> str:
    return row.initiator_intent_id if seat is Seat.INITIATOR else row.responder_intent_id


def opportunity_view(row: OpportunityRow, seat: Seat) -> JSONBody:
    """The other side's decision stays hidden until the opportunity is final; the opener's
    context is shown to the opener only."""
    decisions = {Seat.INITIATOR: row.initiator_decision, Seat.RESPONDER: row.responder_decision}
    view: JSONBody = {
        "opportunity_id": row.id,
        "status": row.status,
        "your_seat": str(seat),
        "your_intent_id": intent_of(row, seat),
        "negotiation_id": row.negotiation_id,
        "decisions": {
            "yours": decisions[seat],
            "theirs": decisions[seat.other] if row.status in FINAL else None,
        },
        "created_at": row.created_at,
        "updated_at": row.updated_at,
    }
    if seat is Seat.INITIATOR:
        view["context"] = row.context
    return view


def seated_views(seated: Seated) -> JSONBody:
    """`{negotiation, counterparty}` for the seat."""
    active = seated.mine.status == "active" and seated.theirs.status == "active"
    other = seated.theirs.members
    opened = layers(
        seated.state,
        other_incognito=other["visibility"] == "incognito",
        opportunity_accepted=seated.row.status == "accepted",
    )
    shown = CounterpartyIntent(other["statement"], other["constraints"], other["identity"])
    return {
        "negotiation": negotiation_view(seated.state, seated.seat, intents_active=active),
        "counterparty": counterparty(opened, shown),
    }


class Opportunities:
    def __init__(
        self,
        kernel: Negotiations,
        table: IntroTable,
        index: IntentIndex,
        *,
        clock: Callable[[], datetime],
    ) -> None:
        self._kernel = kernel
        self._table = table
        self._index = index
        self._clock = clock
        self.follow: Follow = _nobody
        """Set by the composition root to the built-in agent's `follow`."""

    def open(self, caller: PrincipalCaller, intent_id: str, body: OpenInput) -> JSONBody:
        """One opportunity per candidate, in their order; a pair opened before, from either
        side, is answered unchanged with `created: false`."""

        def txn(conn: Connection) -> list[tuple[OpportunityRow, bool]]:
            mine = own_intent(conn, caller, intent_id, Action.READ, lock=True)
            invalid_unless(not (problems := open_problems(body)), problems)
            if (refusal := may_discover(mine.members["visibility"], mine.status)) is not None:
                raise Refused(refusal)
            checks = [self._opening(conn, intent_id, other) for other in body.candidates]
            opened = []
            for other, first in zip(body.candidates, checks, strict=True):
                existing = rows.find_by_pair(conn, intent_id, other)
                if existing is not None:
                    opened.append((existing, False))
                else:
                    opened.append((self._create(conn, mine, other, first, body.context), True))
            return opened

        try:
            opened = self._kernel.write(txn)
        except IntegrityError:  # the same pair, opened at the same moment elsewhere
            opened = self._kernel.write(txn)
        self.follow([row.id for row, created in opened if created])
        return {
            "opportunities": [
                opportunity_view(row, _seat(row, caller)) | {"created": created}
                for row, created in opened
            ]
        }

    def _opening(self, conn: Connection, intent_id: str, other: str) -> Checks:
        found = self._index.opening(conn, intent_id, other)
        if found is None:
            raise refuse(RefusalCode.NOT_FOUND, NOT_A_CANDIDATE)
        mutual, fit = found
        return Checks(mutual=mutual, constraint_fit=fit)

    def _create(
        self,
        conn: Connection,
        mine: intent_rows.IntentRow,
        other_id: str,
        checks: Checks,
        context: str | None,
    ) -> OpportunityRow:
        other = intent_rows.find_intent(conn, other_id)
        assert other is not None, "the index holds only stored intents"
        opportunity_id, negotiation_id = new_id("opp"), new_id("neg")
        now = self._clock()
        decision = open_negotiation(
            negotiation_id=negotiation_id, opportunity_id=opportunity_id, checks=checks
        )
        scopes = seat_scopes(mine.principal_id, other.principal_id)
        self._kernel.create(conn, self._table, negotiation_id, decision, now, party_scopes=scopes)
        ts = format_time(now)
        row = OpportunityRow(
            id=opportunity_id,
            initiator_intent_id=mine.id,
            responder_intent_id=other.id,
            initiator_principal_id=mine.principal_id,
            responder_principal_id=other.principal_id,
            status="negotiating",
            initiator_decision=None,
            responder_decision=None,
            context=context,
            negotiation_id=negotiation_id,
            created_at=ts,
            updated_at=ts,
        )
        rows.insert_opportunity(conn, row)
        self._kernel.emit(conn, opportunity_changed(row))
        return row

    def list_seated(
        self, caller: PrincipalCaller, status: str | None, intent_id: str | None
    ) -> JSONBody:
        def read(conn: Connection) -> JSONBody:
            check_may(conn, caller, Action.READ)
            invalid_unless(
                status is None or status in STATUSES, {"status": f"one of {', '.join(STATUSES)}"}
            )
            found = rows.seat_opportunities(
                conn, caller.principal_id, status=status, intent_id=intent_id
            )
            return {"opportunities": [opportunity_view(row, _seat(row, caller)) for row in found]}

        return self._kernel.read(read)

    def seated(self, caller: PrincipalCaller, opportunity_id: str, action: Action) -> Seated:
        """not_found → not_a_seat → the key's level, then both intents and the negotiation."""

        def read(conn: Connection) -> Seated:
            seated = self._seated(conn, caller, opportunity_id)
            check_may(conn, caller, action)
            return seated

        return self._kernel.read(read)

    def _seated(self, conn: Connection, caller: PrincipalCaller, opportunity_id: str) -> Seated:
        row, seat = _seated_row(conn, caller, opportunity_id)
        mine = intent_rows.find_intent(conn, intent_of(row, seat))
        theirs = intent_rows.find_intent(conn, intent_of(row, seat.other))
        assert mine is not None and theirs is not None, "an opportunity's intents stay"
        state = self._kernel.load(conn, self._table, row.negotiation_id)
        return Seated(row, seat, mine, theirs, state)

    def find(self, caller: PrincipalCaller, opportunity_id: str, action: Action) -> None:
        """not_found → not_a_seat → forbidden, before a body is read: an owner key never takes
        turns (an agent other than the selected one is told later, `executor_changed`)."""

        def read(conn: Connection) -> None:
            _seated_row(conn, caller, opportunity_id)
            if action is not Action.TAKE_TURNS or caller.level == "owner":
                check_may(conn, caller, action)

        self._kernel.read(read)

    def turn(self, caller: PrincipalCaller, opportunity_id: str, request: TurnRequest) -> JSONBody:
        """A seat's turn through the kernel (the protocol's check order); a `message_id` makes
        a retry safe."""
        message_id = request.message_id
        return self._seat_move(
            caller,
            opportunity_id,
            request,
            _views_answer,
            message_id=message_id,
            request_hash=(
                request_hash(request.model_dump(mode="json", exclude_none=True))
                if message_id is not None
                else ""
            ),
        )

    def resume(
        self, caller: PrincipalCaller, opportunity_id: str, request: ResumeRequest
    ) -> JSONBody:
        """The next round, opened by the seat's owner or selected agent on new context."""
        return self._seat_move(
            caller,
            opportunity_id,
            request,
            _views_answer,
        )

    def ask(
        self, caller: PrincipalCaller, opportunity_id: str, request: QuestionsRequest
    ) -> JSONBody:
        """The selected agent's questions to its owner: `201 {questions}`, the ones asked."""

        def answer(seated: Seated, decision: Decision) -> Answer:
            asked = {
                q["question_id"] for d in decision.private for q in d.draft.payload["questions"]
            }
            listed = questions_view(seated.state, seated.seat)
            return Answer(
                201, encode({"questions": [q for q in listed if q["question_id"] in asked]})
            )

        return self._seat_move(caller, opportunity_id, request, answer)

    def answer(
        self, caller: PrincipalCaller, opportunity_id: str, question_id: str, request: AnswerRequest
    ) -> JSONBody:
        """The owner's answer to one of its seat's questions: new context between rounds."""

        def answer(seated: Seated, _decision: Decision) -> Answer:
            listed = questions_view(seated.state, seated.seat)
            return Answer(
                200,
                encode({"question": next(q for q in listed if q["question_id"] == question_id)}),
            )

        return self._seat_move(caller, opportunity_id, AnswerMove(question_id, request), answer)

    def _seat_move(
        self,
        caller: PrincipalCaller,
        opportunity_id: str,
        request: SeatMove,
        answer: Callable[[Seated, Decision], Answer],
        *,
        message_id: str | None = None,
        request_hash: str = "",
    ) -> JSONBody:
        """One move of a seat through the kernel, who asks found inside its transaction; an
        agreement makes the opportunity `pending` in the same transaction."""
        after: list[Seated] = []

        def authorize(conn: Connection) -> tuple[Seated, Actor]:
            seated = self._seated(conn, caller, opportunity_id)
            selected = principal_rows.selected_agent(conn, caller.principal_id)
            kind = (
                Key.OWNER
                if caller.level == "owner"
                else Key.SELECTED_AGENT
                if caller.agent_id == selected
                else Key.OTHER_AGENT
            )
            active = seated.mine.status == "active" and seated.theirs.status == "active"
            return seated, Actor(seated.seat, kind, intents_active=active)

        def answered(loaded: Loaded[IntroState], decision: Decision, who: Any) -> Answer:
            seated = replace(who[0], state=loaded.state)
            after.append(seated)
            return answer(seated, decision)

        move: Move[IntroState, tuple[Seated, Actor]] = Move(
            authorize=authorize,
            party=lambda who: str(who[1].seat),
            actor=lambda who: who[1],
            move=request,
            answer=answered,
            message_id=message_id,
            request_hash=request_hash,
        )
        negotiation_id = self._kernel.read(
            lambda conn: _seated_row(conn, caller, opportunity_id)[0].negotiation_id
        )
        inner = self._kernel.move(self._table, negotiation_id, move)

        def txn(conn: Connection) -> Answer | Refused:
            result = inner(conn)
            if after and after[-1].state.outcome is Outcome.AGREED:
                row = after[-1].row
                if row.status == "negotiating":
                    rows.set_status(conn, row.id, "pending", format_time(self._clock()))
                    self._kernel.emit(conn, opportunity_changed(row, "pending"))
            return result

        answered_with = self._kernel.write(txn)
        self.follow([opportunity_id])
        body: JSONBody = json.loads(answered_with.body)
        return body

    def decide(self, caller: PrincipalCaller, opportunity_id: str, body: DecisionInput) -> JSONBody:
        """A person's own decision, any time before the opportunity is final: while the agents
        talk it settles their negotiation `closed` (`decided`) first."""

        def txn(conn: Connection) -> JSONBody:
            found, _ = _seated_row(conn, caller, opportunity_id)
            check_may(conn, caller, Action.WRITE)
            invalid_unless(not (problems := decision_problems(body)), problems)
            loaded = self._kernel.lock(conn, self._table, found.negotiation_id)
            row, seat = _seated_row(conn, caller, opportunity_id)  # as of the lock
            if row.status in FINAL:
                raise refuse(
                    RefusalCode.OPPORTUNITY_FINAL,
                    f"This opportunity is {row.status}, which is final.",
                )
            decisions = {
                Seat.INITIATOR: row.initiator_decision,
                Seat.RESPONDER: row.responder_decision,
            }
            if body.status == "accepted" and decisions[seat] == "accepted":
                return opportunity_view(row, seat)  # repeating an acceptance changes nothing
            if not loaded.state.is_settled:
                closed = self._kernel.decide(conn, self._table, loaded, Close("decided"), None)
                assert not isinstance(closed, Refused), "an open negotiation always closes"
            status = decided_status(body.status, decisions[seat.other])
            now = format_time(self._clock())
            rows.set_decision(conn, row.id, str(seat), body.status, status, now)
            if status != row.status:
                self._kernel.emit(conn, opportunity_changed(row, status))
            decided, _ = _seated_row(conn, caller, opportunity_id)
            return opportunity_view(decided, seat)

        return {"opportunity": self._kernel.write(txn)}

    def get(self, caller: PrincipalCaller, opportunity_id: str) -> JSONBody:
        seated = self.seated(caller, opportunity_id, Action.READ)
        return {"opportunity": opportunity_view(seated.row, seated.seat), **seated_views(seated)}

    def negotiation(self, caller: PrincipalCaller, opportunity_id: str) -> JSONBody:
        return seated_views(self.seated(caller, opportunity_id, Action.READ))

    def questions(self, caller: PrincipalCaller, opportunity_id: str) -> JSONBody:
        seated = self.seated(caller, opportunity_id, Action.READ)
        return {"questions": questions_view(seated.state, seated.seat)}

    def open_questions(
        self, caller: PrincipalCaller, opportunity_id: str | None = None
    ) -> JSONBody:
        """The questions of the principal's seats still waiting for the owner's answer,
        whatever the opportunity's status (an answer is new context for a next round): of one
        opportunity, or of every one of the principal's, newest first. Each names its
        opportunity."""

        def read(conn: Connection) -> JSONBody:
            if opportunity_id is None:
                check_may(conn, caller, Action.READ)
                found = rows.seat_opportunities(
                    conn, caller.principal_id, status=None, intent_id=None
                )
                seated = [(row, _seat(row, caller)) for row in found]
            else:
                seated = [_seated_row(conn, caller, opportunity_id)]
                check_may(conn, caller, Action.READ)
            listed = []
            for row, seat in seated:
                state = self._kernel.load(conn, self._table, row.negotiation_id)
                listed += [
                    {"opportunity_id": row.id, **q}
                    for q in questions_view(state, seat)
                    if q["status"] == "open"
                ]
            return {"questions": listed}

        return self._kernel.read(read)

    def log(self, caller: PrincipalCaller, opportunity_id: str) -> JSONBody:
        """The whole chain, the same for both seats: no envelope holds anything private."""
        seated = self.seated(caller, opportunity_id, Action.READ)
        return {"envelopes": self._kernel.log(seated.row.negotiation_id)}

    def receipt(self, caller: PrincipalCaller, opportunity_id: str) -> JSONBody:
        """Signed when the agents agreed, unsigned when closed; `negotiation_open` before."""
        seated = self.seated(caller, opportunity_id, Action.READ)
        if not seated.state.is_settled:
            raise refuse(
                RefusalCode.NEGOTIATION_OPEN,
                "The negotiation has not settled yet; it has no receipt.",
            )
        return self._kernel.receipt(self._table, seated.row.negotiation_id, seated.state)

    def list_negotiations(
        self, caller: PrincipalCaller, state: str | None, intent_id: str | None
    ) -> JSONBody:
        """The negotiations of the principal's opportunities, newest first; `state` is `open`
        or `settled`."""

        def read(conn: Connection) -> JSONBody:
            check_may(conn, caller, Action.READ)
            invalid_unless(
                state is None or state in NEGOTIATION_STATES,
                {"state": f"one of {', '.join(NEGOTIATION_STATES)}"},
            )
            listed = []
            for row in rows.seat_opportunities(
                conn, caller.principal_id, status=None, intent_id=intent_id
            ):
                talk = self._kernel.load(conn, self._table, row.negotiation_id)
                if state is not None and talk.is_settled != (state == "settled"):
                    continue
                listed.append(
                    {
                        "negotiation_id": row.negotiation_id,
                        "opportunity_id": row.id,
                        "outcome": talk.outcome,
                        "round": talk.round,
                        "awaiting": talk.awaiting,
                    }
                )
            return {"negotiations": listed}

        return self._kernel.read(read)

    def expire_pending(self, ttl_seconds: float) -> list[str]:
        """Every opportunity `pending` for longer than `ttl_seconds` becomes `expired`: silence
        never decides, so nobody accepted it in time. Returns their ids."""

        def txn(conn: Connection) -> list[str]:
            now = self._clock()
            cutoff = format_time(now - timedelta(seconds=ttl_seconds))
            due = rows.pending_before(conn, cutoff)
            for row in due:
                rows.set_status(conn, row.id, "expired", format_time(now))
                self._kernel.emit(conn, opportunity_changed(row, "expired"))
            return [row.id for row in due]

        return self._kernel.write(txn)


def _views_answer(seated: Seated, _decision: Decision) -> Answer:
    """A turn's or a resume's answer: the negotiation and the counterparty as the seat sees
    them now."""
    return Answer(200, encode(seated_views(seated)))


def _seated_row(
    conn: Connection, caller: PrincipalCaller, opportunity_id: str
) -> tuple[OpportunityRow, Seat]:
    row = rows.find_opportunity(conn, opportunity_id)
    if row is None:
        raise refuse(RefusalCode.NOT_FOUND, NOT_FOUND)
    seat = seat_of(row, caller.principal_id)
    if seat is None:
        raise refuse(
            RefusalCode.NOT_A_SEAT,
            "You hold no seat of this opportunity; GET /api/opportunities lists yours.",
        )
    return row, seat


def _seat(row: OpportunityRow, caller: PrincipalCaller) -> Seat:
    seat = seat_of(row, caller.principal_id)
    assert seat is not None, "only a seat's principal is answered"
    return seat

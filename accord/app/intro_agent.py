"""The built-in `accord` agent on a server (spec/intro-api.md, Principals and keys: `accord`
acts for a principal only while selected; spec/agents.md, LLM agent, by rules without a model).

After every committed write that may give a seat of an opportunity something to do (an
opening, the other seat's turn, a resume, an answer, its owner's chat or intent edit, the
selection of `accord` itself), the service calls `follow`, which acts for each seat whose
principal selected `accord`, through the same service calls an outside agent makes,
so the kernel's check order applies to it as to anyone. It reads what that agent could read,
asks the rules (`accord.agents.intro`) for one move, makes it, and reads again, until neither
seat has a move or `max_steps` moves were made: two `accord` seats facing each other agree,
pause or park, and never loop. A refusal (a race with another process, say) ends the step; the
next write follows again.

By rules it acts at once, in the call that wrote. With a model it acts on a thread of its own, so
that a write never waits for a model's answer (seconds, and one per move): `follow` queues the
opportunities and returns; the thread settles them in order, each once however often it was
queued meanwhile.
"""

import logging
import queue
import threading
from collections.abc import Iterable
from typing import Final

from sqlalchemy import Connection

from accord.agents.intro import Ask, Move, OwnIntent, Resume, Situation, TakeTurn, decide
from accord.agents.llm import Model, decide_with_model
from accord.app.identity import PrincipalCaller
from accord.app.intents import Intents
from accord.app.opportunities import Opportunities, Seated, seated_views
from accord.app.principals import BUILT_IN_AGENT, Action, Principals
from accord.core.refusals import Refused
from accord.protocols.intro.moves import QuestionInput, QuestionsRequest, ResumeRequest, TurnRequest
from accord.protocols.intro.state import MAX_TURNS_PER_ROUND
from accord.protocols.intro.views import questions_view
from accord.store import intents as intent_rows
from accord.store import opportunities as rows
from accord.store import principals as principal_rows
from accord.store.database import Database

log = logging.getLogger("accord.agents")

MAX_STEPS: Final = 2 * MAX_TURNS_PER_ROUND + 8
"""Moves per followed write: more than a whole round of turns, a resume and a question each."""


class IntroAgent:
    def __init__(
        self,
        db: Database,
        opportunities: Opportunities,
        principals: Principals,
        intents: Intents,
        *,
        max_steps: int = MAX_STEPS,
        model: Model | None = None,
    ) -> None:
        self._db = db
        self._opportunities = opportunities
        self._principals = principals
        self._intents = intents
        self._max_steps = max_steps
        self._model = model
        self._acting = threading.local()
        self._queue: queue.Queue[str] = queue.Queue()
        self._worker: threading.Thread | None = None
        self._lock = threading.Lock()
        self._queued: set[str] = set()

    # -- what the services call once a write is durable ------------------------------------

    def follow(self, opportunity_ids: Iterable[str]) -> None:
        """Act for the `accord` seats of these opportunities. A write the agent makes itself
        calls back here: that call returns at once, the loop already running goes on."""
        if getattr(self._acting, "on", False):
            return
        if self._model is not None:
            with self._lock:
                for opportunity_id in dict.fromkeys(opportunity_ids):
                    if opportunity_id not in self._queued:
                        self._queued.add(opportunity_id)
                        self._queue.put(opportunity_id)
            self._start()
            return
        self._acting.on = True
        try:
            for opportunity_id in dict.fromkeys(opportunity_ids):
                self._settle_logged(opportunity_id)
        finally:
            self._acting.on = False

    def follow_open(self) -> None:
        """Every negotiation still under way, settled before it returns: what a server stopped
        before its agent moved left waiting (the sweep at start and every interval)."""
        self.follow(self._db.read(lambda conn: rows.ids_with_status(conn, "negotiating")))
        self.drain()

    def drain(self) -> None:
        """Return once every queued opportunity is settled (at once by rules)."""
        self._queue.join()

    def _start(self) -> None:
        with self._lock:
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(
                    target=self._work, name="accord-intro-agent", daemon=True
                )
                self._worker.start()

    def _work(self) -> None:
        self._acting.on = True
        while True:
            opportunity_id = self._queue.get()
            with self._lock:
                self._queued.discard(opportunity_id)
            try:
                self._settle_logged(opportunity_id)
            finally:
                self._queue.task_done()

    def _settle_logged(self, opportunity_id: str) -> None:
        try:
            self._settle(opportunity_id)
        except Exception:  # the write that called is durable: it must not look failed
            log.exception("the accord agent failed on %s", opportunity_id)

    def follow_intent(self, intent_id: str) -> None:
        """Its owner wrote in the intent's chat or edited it: its open negotiations."""

        def read(conn: Connection) -> list[str]:
            intent = intent_rows.find_intent(conn, intent_id)
            if intent is None:
                return []
            found = rows.seat_opportunities(
                conn, intent.principal_id, status="negotiating", intent_id=intent_id
            )
            return [row.id for row in found]

        self.follow(self._db.read(read))

    def follow_principal(self, principal_id: str) -> None:
        """The principal selected an agent: its negotiations, should it be `accord`."""
        found = self._db.read(
            lambda conn: rows.seat_opportunities(
                conn, principal_id, status="negotiating", intent_id=None
            )
        )
        self.follow(row.id for row in found)

    # -- acting ------------------------------------------------------------------------------

    def _settle(self, opportunity_id: str) -> None:
        row = self._db.read(lambda conn: rows.find_opportunity(conn, opportunity_id))
        if row is None:
            return
        seats = [
            PrincipalCaller(principal_id, "agent", BUILT_IN_AGENT)
            for principal_id in (row.initiator_principal_id, row.responder_principal_id)
        ]
        moves = 0
        while moves < self._max_steps:
            made = 0
            for caller in seats:
                if moves + made < self._max_steps and self._step(caller, opportunity_id):
                    made += 1
            if not made:
                return
            moves += made
        log.warning("the accord agent stopped after %d moves on %s", moves, row.id)

    def _step(self, caller: PrincipalCaller, opportunity_id: str) -> bool:
        """One move for the seat of `caller`, if `accord` is its principal's agent; whether a
        move was made."""
        try:
            if not self._selected(caller):
                return False
            seated = self._opportunities.seated(caller, opportunity_id, Action.READ)
            situation = self._situation(caller, seated)
            if self._model is None:
                move = decide(situation)
            else:
                decided = decide_with_model(situation, self._model)
                if decided.refusals:
                    log.info("the guard refused the model's turn: %s", ", ".join(decided.refusals))
                move = decided.move
            return self._make(caller, opportunity_id, move, seated.state.turn_count)
        except Refused as refused:
            log.info("the accord agent was refused on %s: %s", opportunity_id, refused)
            return False

    def _selected(self, caller: PrincipalCaller) -> bool:
        return bool(
            self._db.read(
                lambda conn: (
                    principal_rows.selected_agent(conn, caller.principal_id) == BUILT_IN_AGENT
                )
            )
        )

    def _situation(self, caller: PrincipalCaller, seated: Seated) -> Situation:
        """What the seat's agent may read: its views, its own intent and questions, the checks
        of the log, and its owner's private text (only for the guard)."""
        views = seated_views(seated)
        state, mine = seated.state, seated.mine.members
        questions = questions_view(state, seated.seat)
        chat = self._intents.messages(caller, seated.mine.id, None)["messages"]
        private = [m["message"] for m in chat if m["author"] == "owner"]
        private += [str(q["answer"]) for q in questions if q.get("answer")]
        if seated.row.context and seated.row.initiator_principal_id == caller.principal_id:
            private.append(seated.row.context)
        return Situation(
            seat=seated.seat,
            negotiation=views["negotiation"],
            counterparty=views["counterparty"],
            intent=OwnIntent(mine["statement"], mine.get("constraints", []), mine["visibility"]),
            checks=state.checks,
            questions=questions,
            private=private,
            new_context=state.seat_private(seated.seat).context_after_round == state.round,
        )

    def _make(self, caller: PrincipalCaller, opportunity_id: str, move: Move, count: int) -> bool:
        """Through the service calls an outside agent makes; a turn carries a `message_id`, so
        two processes deciding the same turn append it once."""
        match move:
            case TakeTurn(action, message):
                request = TurnRequest(
                    action=str(action),
                    message=message,
                    expected_turn_count=count,
                    message_id=f"accord-{count}",
                )
                self._opportunities.turn(caller, opportunity_id, request)
            case Ask(questions):
                asked = QuestionsRequest(
                    questions=[
                        QuestionInput(question=q.question, options=q.options, why=q.why)
                        for q in questions
                    ]
                )
                self._opportunities.ask(caller, opportunity_id, asked)
            case Resume(brief):
                self._opportunities.resume(caller, opportunity_id, ResumeRequest(brief=brief))
            case _:
                return False
        return True

"""What an intent's change does to the negotiations of its opportunities (spec/intro-api.md,
Intents, Opportunities and Resume), inside the transaction that recorded the change:

- an edit of the statement, the constraints or the networks checks the pair again (`checks`
  appended when `mutual` or `constraint_fit` changed);
- an edit of any stored value but `status` is new context for the intent's seat;
- an owner's message in the intent's chat answers the seat's open questions and is new
  context;
- archiving settles the open negotiations `closed` (`archived`) and expires the opportunities
  that are not final. Pausing changes nothing here: turns and resumes read the status.

The protocol decides what each fact means (new context counts only between rounds); this
module only finds the negotiations an intent follows and hands them the facts.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from sqlalchemy import Connection

from accord.app.index import IntentIndex
from accord.app.negotiations import Loaded, Negotiations
from accord.app.principal_events import opportunity_changed, principal_message
from accord.core.refusals import Refused
from accord.core.times import format_time
from accord.protocols.intro.moves import Close, IntentEdited, OwnerMessage, Recheck, ServerMove
from accord.protocols.intro.state import Checks, IntroState, Seat
from accord.protocols.intro.table import IntroTable
from accord.store import intents as intent_rows
from accord.store import opportunities as rows
from accord.store.intents import IntentRow
from accord.store.opportunities import OpportunityRow

FINAL: Final = frozenset({"accepted", "rejected", "expired"})
RECHECKED: Final = frozenset({"statement", "constraints", "networks"})
"""What `mutual` and `constraint_fit` read of an intent (its networks: whom it reaches)."""


@dataclass(frozen=True)
class Followed:
    """One opportunity of the intent, its negotiation locked for this transaction."""

    row: OpportunityRow
    seat: Seat
    loaded: Loaded[IntroState]


class IntroFollow:
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

    def _followed(
        self, conn: Connection, intent_id: str, found: Sequence[OpportunityRow] | None = None
    ) -> list[Followed]:
        """The intent's opportunities (`found`, when read already) whose negotiation is still
        open."""
        followed = []
        for row in rows.intent_opportunities(conn, intent_id) if found is None else found:
            loaded = self._kernel.lock(conn, self._table, row.negotiation_id)
            if loaded.state.is_settled:
                continue
            seat = Seat.INITIATOR if row.initiator_intent_id == intent_id else Seat.RESPONDER
            followed.append(Followed(row, seat, loaded))
        return followed

    def _record(self, conn: Connection, followed: Followed, move: ServerMove) -> None:
        decided = self._kernel.decide(conn, self._table, followed.loaded, move, None)
        assert not isinstance(decided, Refused), "an open negotiation records the service's facts"

    def edited(self, conn: Connection, row: IntentRow, changed: Sequence[str]) -> None:
        if row.status == "archived":
            self._archived(conn, row.id)
            return
        followed = self._followed(conn, row.id)
        if followed and RECHECKED.intersection(changed):
            pairs = [(f.row.initiator_intent_id, f.row.responder_intent_id) for f in followed]
            for one, checked in zip(
                followed, self._index.checks_as_if(conn, row, pairs), strict=True
            ):
                if checked is not None:
                    mutual, fit = checked
                    self._record(conn, one, Recheck(Checks(mutual=mutual, constraint_fit=fit)))
        if any(name != "status" for name in changed):
            for one in followed:
                self._record(conn, one, IntentEdited(one.seat))

    def owner_wrote(self, conn: Connection, intent_id: str, message_id: str, message: str) -> None:
        """New context for every negotiation of the intent, and `principal.message` (never the
        text) naming those waiting between rounds, which it may resume."""
        followed = self._followed(conn, intent_id)
        paused = [one.row.id for one in followed if one.loaded.state.round_over]
        for one in followed:
            self._record(conn, one, OwnerMessage(one.seat, message))
        intent = intent_rows.find_intent(conn, intent_id)
        assert intent is not None, "the chat is an intent's"
        told = principal_message(
            intent.principal_id, intent_id=intent_id, message_id=message_id, paused=paused
        )
        self._kernel.emit(conn, told)

    def _archived(self, conn: Connection, intent_id: str) -> None:
        found = rows.intent_opportunities(conn, intent_id)
        for one in self._followed(conn, intent_id, found):
            self._record(conn, one, Close("archived"))
        now = format_time(self._clock())
        for row in found:
            if row.status not in FINAL:
                rows.set_status(conn, row.id, "expired", now)
                self._kernel.emit(conn, opportunity_changed(row, "expired"))

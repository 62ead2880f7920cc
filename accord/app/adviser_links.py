"""Linked tables (adviser-api.md, Linked tables): a case follows one seat of a room, an
arbitrated session or an introduction, and F09 reads each envelope of that table's log into the
case as it lands. The table never learns of the case: nothing of it enters the table's log,
views or events.

Each link keeps how far into the log the case has read (`through_seq`), moved in the same
transaction as the versions F09 makes, so an envelope is read once, however many processes hear
of it. A case catches up when it is linked (over the log so far, the table locked meanwhile),
after each commit that touched a followed table (on a thread of its own, so no table's write
waits for a case), when its owner reads it, when F09 is run, and in every sweep: a server
stopped between a table's commit and the case's is caught up without losing anything."""

import logging
import queue
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from sqlalchemy import Connection

from accord.adviser.patches import Patch, SetContext, validate
from accord.adviser.requests import LinkInput
from accord.adviser.review import review_patches
from accord.adviser.skills.registry import BUILTIN, view
from accord.adviser.skills.table import TableMove, moves, update
from accord.adviser.state import NegotiationState
from accord.adviser.versions import next_version, version_one
from accord.app.adviser import Adviser, ensure_open, link_json, own, state_at
from accord.app.identity import CredentialCache, PrincipalCaller, SeatCaller, SessionCaller, resolve
from accord.app.opportunities import seat_of
from accord.app.principal_events import adviser_event
from accord.app.principals import Action
from accord.app.tokens import new_id
from accord.core.jsonio import parse_canonical
from accord.core.refusals import RefusalCode, refuse
from accord.core.times import format_time
from accord.store import adviser as rows
from accord.store import opportunities as opportunity_rows
from accord.store import records
from accord.store.database import Database

log = logging.getLogger("accord.adviser")

JSONBody = dict[str, Any]
FOLLOWER: Final = BUILTIN["F09"]
REVIEWER: Final = BUILTIN["F08"]
LINKED: Final = "adviser:links"
"""The key a new link announces: every process reads again which logs links follow."""
NO_TABLE: Final = {
    "rooms": "No room has this id.",
    "arbitrated": "No arbitrated session has this id.",
    "intro": "No opportunity of yours has this id.",
}
NOT_A_SEAT: Final = {
    "rooms": "This credential opens no seat of this room: send the seat's seat or owner token.",
    "arbitrated": "This credential is not this session's buyer token.",
}


@dataclass
class Caught:
    """What catching up made: the versions, and every patch F09 and F08 applied."""

    versions: int = 0
    patches: list[Patch] = field(default_factory=list)
    last: JSONBody | None = None
    """The last version's result, as a write answers it."""

    def add(self, more: "Caught") -> None:
        self.versions += more.versions
        self.patches += more.patches
        self.last = more.last or self.last


class AdviserLinks:
    def __init__(self, adviser: Adviser, db: Database) -> None:
        self._adviser = adviser
        self._db = db
        self._credentials = CredentialCache()
        self._queue: queue.Queue[frozenset[str] | None] = queue.Queue()
        self._followed: dict[str, frozenset[str]] | None = None
        """The cases of open links by the log each follows (None: to be read again); a case
        closed since is harmless: it reads nothing."""
        self._worker: threading.Thread | None = None
        self._lock = threading.Lock()
        self._follows = frozenset({LINKED})
        self.changed: Callable[[], None] = lambda: None
        """Called when `follows` answers otherwise (the notifier's, once subscribed)."""

    # -- the owner's calls -------------------------------------------------------------------

    def link(self, caller: PrincipalCaller, case_id: str, body: LinkInput) -> JSONBody:
        """Check order: the table (`not_found`) → the credential (`forbidden`) →
        `case_closed` → `already_linked`; then F09 over the log so far."""

        def txn(conn: Connection) -> JSONBody:
            row = own(conn, caller, case_id, Action.WRITE, lock=True)
            # the table's row locked: one link per seat, however many ask
            self._log_id(conn, body.protocol, body.negotiation_id, row.principal_id, lock=True)
            seat = self._seat(conn, body, row.principal_id)
            ensure_open(row)
            taken = rows.seat_link(conn, body.protocol, body.negotiation_id, seat)
            if taken is not None:
                raise refuse(
                    RefusalCode.ALREADY_LINKED,
                    "This seat is linked to a case already; a seat follows one case until "
                    "that case closes.",
                )
            now = format_time(self._adviser.now())
            link = rows.LinkRow(
                new_id("link"), case_id, body.protocol, body.negotiation_id, seat, -1, now
            )
            rows.insert_link(conn, link)
            self._adviser.announce(conn, {LINKED})
            self._catch_up(conn, row, link)
            return link_json(link)

        return self._adviser.write(txn)

    def catch_up(self, case_id: str) -> int:
        """Read what the case's tables appended since it last read them; the versions made."""

        def txn(conn: Connection) -> int:
            row = rows.find_case(conn, case_id, lock=True)
            if row is None or row.status in ("closed", "no_deal"):
                return 0
            return self.caught_up(conn, row).versions

        if not self._behind(case_id):
            return 0
        return self._adviser.write(txn)

    def caught_up(self, conn: Connection, row: rows.CaseRow) -> Caught:
        """Every link of the case read to its table's last envelope, in the caller's write."""
        caught = Caught()
        for link in rows.case_links(conn, row.id):
            caught.add(self._catch_up(conn, row, link))
            row = rows.find_case(conn, row.id) or row
        return caught

    def _behind(self, case_id: str) -> bool:
        """Whether a table of the case has envelopes the case has not read (one read, so an
        owner's read of a case with nothing new writes nothing)."""

        def read(conn: Connection) -> bool:
            for link in rows.case_links(conn, case_id):
                table = self._length(conn, link)
                if table is not None and table.seq > link.through_seq:
                    return True
            return False

        return self._db.read(read)

    # -- following the tables ----------------------------------------------------------------

    def heard(self, keys: frozenset[str] | None) -> None:
        """A commit's keys (the notifier's subscriber): queued for the follower thread, which
        finds the cases following any of them. Quick, as the notifier asks: a commit to a table
        no case follows is dropped here."""
        if keys is None or LINKED in keys:
            self._followed = None
        else:
            followed = self._followed
            if followed is not None and followed.keys().isdisjoint(keys):
                return
        self._queue.put(keys)
        with self._lock:
            if self._worker is None or not self._worker.is_alive():
                self._worker = threading.Thread(
                    target=self._work, name="accord-adviser-links", daemon=True
                )
                self._worker.start()

    def follows(self) -> frozenset[str]:
        """What the notifier is to hear of: links made, and the logs the open links followed
        when last read. A log linked since is heard of once they are read again: the notifier
        then tells of it once more, and its case catches up on everything since the link."""
        return self._follows

    def follow(self, negotiation_ids: Sequence[str] | None = None) -> int:
        """Catch up every open case following these logs (every log, for None)."""
        followed = self._followed
        if followed is None or negotiation_ids is None:
            followed = self._followed = self._db.read(self._read_followed)
            follows, self._follows = self._follows, frozenset({LINKED, *followed})
            if follows != self._follows:
                self.changed()
        logs = followed if negotiation_ids is None else negotiation_ids
        found = sorted({case for log_id in logs for case in followed.get(log_id, ())})
        made = 0
        for case_id in found:
            try:
                made += self.catch_up(case_id)
            except Exception:  # the table's write is durable; the next commit or sweep retries
                log.exception("following the tables of %s failed", case_id)
        return made

    def drain(self) -> None:
        """Return once every queued commit has been followed."""
        self._queue.join()

    def _work(self) -> None:
        while True:
            keys = self._queue.get()
            batch = [keys]
            while not self._queue.empty():
                batch.append(self._queue.get())
            try:
                if any(k is None for k in batch):
                    self.follow()
                else:
                    touched = sorted({key for k in batch if k is not None for key in k})
                    if touched:
                        self.follow(touched)
            except Exception:
                log.exception("following linked tables failed")
            finally:
                for _ in batch:
                    self._queue.task_done()

    def _read_followed(self, conn: Connection) -> dict[str, frozenset[str]]:
        """The open links' cases by log (an introduction is linked by its opportunity, whose
        negotiation is its log)."""
        cases: dict[str, set[str]] = {}
        for link in rows.open_links(conn):
            log_id = self._log_id(conn, link.protocol, link.negotiation_id, None)
            cases.setdefault(log_id, set()).add(link.case_id)
        return {log_id: frozenset(found) for log_id, found in cases.items()}

    # -- one case, one link ------------------------------------------------------------------

    def _catch_up(self, conn: Connection, row: rows.CaseRow, link: rows.LinkRow) -> Caught:
        log_id = self._log_id(conn, link.protocol, link.negotiation_id, None)
        envelopes = [parse_canonical(b) for b in records.read_log_bodies(conn, log_id)]
        read = moves(envelopes, link.seat)
        caught = Caught()
        state = state_at(conn, row.id, row.state_version)
        for at, move in enumerate(read):
            if move.seq <= link.through_seq:
                continue
            source_ref = f"{link.protocol}:{link.negotiation_id}#{move.seq}"
            one = self._one(conn, row, state, read, at, source_ref, link.id)
            if one is not None:
                state = one.document
                caught.add(one.caught)
                row = rows.find_case(conn, row.id) or row
        through = int(envelopes[-1]["seq"]) if envelopes else link.through_seq
        if through != link.through_seq:
            rows.read_through(conn, link.id, through)
        return caught

    def _one(
        self,
        conn: Connection,
        row: rows.CaseRow,
        state: dict[str, Any],
        read: Sequence[TableMove],
        at: int,
        source_ref: str,
        link_id: str,
    ) -> "_Made | None":
        """F09 on one envelope, with F08 on the counterpart's terms it put on the table, as one
        `table_update` version; None when nothing changed."""
        now = self._adviser.now()
        blank = version_one(row.id, row.title, now)
        seen = NegotiationState.model_validate(view(state, FOLLOWER.reads, blank))
        made = update(seen, read, at, source_ref=source_ref, link_id=link_id)
        if not made.patches:
            return None
        verdicts = validate(SetContext(state, row.state_version, FOLLOWER.author), made.patches)
        assert not verdicts.refused, verdicts.refused  # F09 writes only what it declares
        recommendation = None
        applied = list(made.patches)
        if made.review is not None:
            reviewed = NegotiationState.model_validate(
                view(verdicts.document, REVIEWER.reads, blank)
            )
            patches = review_patches(reviewed, made.review, source_ref)
            applied += patches
            more = validate(
                SetContext(verdicts.document, row.state_version, REVIEWER.author), patches
            )
            assert not more.refused, more.refused
            verdicts.document = more.document
            verdicts.applied += more.applied
            recommendation = verdicts.document["deal_review"]["recommendation"]
        version = next_version(
            state,
            verdicts,
            now,
            cause="table_update",
            summary="Offer received" if made.review is not None else "The linked table moved",
            source_ref=source_ref,
        )
        if version is None:
            return None
        result = self._adviser.record(conn, row, verdicts, version)
        if recommendation is not None:
            event = adviser_event(
                row.principal_id, "deal_review", row.id, recommendation=recommendation
            )
            self._adviser.emit(conn, [event])
        return _Made(version.document, Caught(1, applied, result))

    # -- the tables --------------------------------------------------------------------------

    def _log_id(
        self,
        conn: Connection,
        protocol: str,
        negotiation_id: str,
        principal_id: str | None,
        *,
        lock: bool = False,
    ) -> str:
        """The id of the table's log: a room's or a session's own id, an opportunity's
        negotiation (the principal's own opportunity, when `principal_id` is given); `lock`
        locks the log's row for this write."""
        if protocol == "intro":
            found = opportunity_rows.find_opportunity(conn, negotiation_id)
            if found is None or (principal_id is not None and seat_of(found, principal_id) is None):
                raise refuse(RefusalCode.NOT_FOUND, NO_TABLE[protocol])
            if lock:
                records.length_of(conn, found.negotiation_id, lock=True)
            return found.negotiation_id
        table = records.length_of(conn, negotiation_id, lock=lock)
        if table is None or table.protocol != protocol:
            raise refuse(RefusalCode.NOT_FOUND, NO_TABLE[protocol])
        return negotiation_id

    def _length(self, conn: Connection, link: rows.LinkRow) -> records.Length | None:
        """How far a linked table's log runs: one read for a room or a session, whose link
        was checked when it was made."""
        if link.protocol == "intro":
            log_id = self._log_id(conn, link.protocol, link.negotiation_id, None)
            return records.length_of(conn, log_id)
        return records.length_of(conn, link.negotiation_id)

    def _seat(self, conn: Connection, body: LinkInput, principal_id: str) -> str:
        """The seat the credential opens (never kept): `forbidden` when it opens none."""
        if body.protocol == "intro":
            found = opportunity_rows.find_opportunity(conn, body.negotiation_id)
            assert found is not None, "found as the table"
            seat = seat_of(found, principal_id)
            assert seat is not None, "the principal's own opportunity"
            return str(seat)
        who = resolve(conn, body.credential, self._credentials)
        if getattr(who, "negotiation_id", None) == body.negotiation_id:
            if body.protocol == "rooms" and isinstance(who, SeatCaller):
                return who.party
            if body.protocol == "arbitrated" and isinstance(who, SessionCaller):
                return "buyer"
        raise refuse(RefusalCode.FORBIDDEN, NOT_A_SEAT[body.protocol])


@dataclass(frozen=True)
class _Made:
    document: dict[str, Any]
    caught: Caught

"""F09, the linked table (adviser-api.md, Linked tables): what one envelope of a table's log does
to the case. An offer or counter becomes a proposal and its party's current offer; a mapped term
moved in the other side's favour is a concession of its party, reciprocal when the other side
conceded since this party's previous offer; the counterpart's terms on the table put the case
at OFFER_RECEIVED (the caller has F08 review them in the same version), anything else at ENGAGED.

Everything here is read from the log up to the envelope, so running it again on the same
envelope proposes the same patches: a run is idempotent per envelope."""

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from accord.adviser.deal import Topic
from accord.adviser.enums import LifecycleStage
from accord.adviser.patches import Patch
from accord.adviser.review import MAX_TEXT_LENGTH, MAX_VALUE_LENGTH, Offer
from accord.adviser.skills.common import patch
from accord.adviser.state import NegotiationState
from accord.adviser.values import Money, better, write_money
from accord.core.money import is_amount_minor

Party = Literal["user", "counterpart"]
Kind = Literal["offer", "turn", "withdrawn", "ended"]

SEATS: Final = {
    "rooms": ("opener", "joiner"),
    "arbitrated": ("buyer",),
    "intro": ("initiator", "responder"),
}
"""The seats a case may follow, by table."""
OFFERS: Final = frozenset({"move.offer", "move.counter", "offer.propose", "offer.counter"})
WITHDRAWN: Final = frozenset({"arbitration.reject"})
"""The terms on the table left it; the table goes on."""
ENDED: Final = frozenset(
    {
        "room.agreed",
        "room.expired",
        "move.reject",
        "move.cancel",
        "session.agree",
        "session.close",
        "negotiation.agreed",
        "negotiation.closed",
    }
)
"""The table is final: nothing is on it to review any more."""


@dataclass(frozen=True)
class TableMove:
    """One envelope of a table's log as the case reads it."""

    seq: int
    kind: Kind
    party: Party | None
    terms: Mapping[str, str] = field(default_factory=dict)
    """The offer's terms by the table's field names, each written as the adviser writes
    values (money `CCC 1,250.00`)."""
    message: str | None = None
    ts: str | None = None


def moves(log: Sequence[Mapping[str, Any]], seat: str) -> list[TableMove]:
    """The envelopes of a table's public log that the case reads, from `seat`'s side; the others
    (approvals, questions, the arbiter's scores) are kept as seqs that change nothing."""
    read = []
    for envelope in log:
        kind = envelope["type"]
        role = envelope.get("sender", {}).get("role")
        party: Party | None = None if role in (None, "server", "arbiter") else _party(role, seat)
        payload = envelope.get("payload") or {}
        message = payload.get("message") if isinstance(payload.get("message"), str) else None
        seq, ts = envelope["seq"], envelope.get("ts")
        if kind in OFFERS and party is not None:
            terms = {name: written(value) for name, value in sorted(payload["terms"].items())}
            read.append(TableMove(seq, "offer", party, terms, message, ts))
        elif kind.startswith("turn.") and party is not None:
            read.append(TableMove(seq, "turn", party, {}, message, ts))
        elif kind in WITHDRAWN:
            read.append(TableMove(seq, "withdrawn", None, ts=ts))
        elif kind in ENDED:
            read.append(TableMove(seq, "ended", None, ts=ts))
    return read


def _party(role: str, seat: str) -> Party:
    return "user" if role == seat else "counterpart"


def written(value: Any) -> str:
    """A table's term value as the adviser writes values: money `CCC 1,250.00`, a date or text
    as it is, a number in digits, anything else as compact JSON."""
    if isinstance(value, dict) and set(value) == {"amount_minor", "currency"}:
        amount, currency = value["amount_minor"], value["currency"]
        if isinstance(amount, int) and isinstance(currency, str) and is_amount_minor(amount):
            try:
                return write_money(Money(amount, currency))
            except ValueError:
                pass
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def proposal_text(terms: Mapping[str, str]) -> str:
    return "; ".join(f"{name}: {value}" for name, value in terms.items())


@dataclass(frozen=True)
class Concession:
    party: Party
    topic: str
    before: str
    after: str
    reciprocal: bool | Literal["unknown"]


def terms_of(topics: Sequence[Topic]) -> list[tuple[Topic, str]]:
    """Each topic mapped to a term of the table (`x_accord.term`), with that term."""
    return [(t, t.x_accord.term) for t in topics if t.x_accord is not None and t.x_accord.term]


def concessions(topics: Sequence[Topic], log: Sequence[TableMove], at: int) -> list[Concession]:
    """The concessions of the log's `at`-th move: the log walked to it, each offer against its
    party's previous one (reciprocity asks what the other side gave in between)."""
    mapped = terms_of(topics)
    offers: dict[Party, Mapping[str, str]] = {}
    last_offer_at: dict[Party, int] = {}
    conceded_at: dict[Party, list[int]] = {"user": [], "counterpart": []}
    found: list[Concession] = []
    for index, move in enumerate(log[: at + 1]):
        found = []
        if move.kind == "offer" and move.party is not None:
            party, other = move.party, _other(move.party)
            previous = offers.get(party, {})
            for topic, term in mapped:
                before, after = previous.get(term), move.terms.get(term)
                if before is None or after is None or before == after:
                    continue
                worse, better_ = (before, after) if party == "counterpart" else (after, before)
                if better(topic, better_, worse):
                    reciprocal = _reciprocal(
                        conceded_at[other], last_offer_at.get(party), other, offers
                    )
                    found.append(Concession(party, topic.topic_id, before, after, reciprocal))
            if found:
                conceded_at[party].append(index)
            offers[party], last_offer_at[party] = move.terms, index
    return found


def _reciprocal(
    other_conceded: Sequence[int],
    previous: int | None,
    other: Party,
    offers: Mapping[Party, Mapping[str, str]],
) -> bool | Literal["unknown"]:
    if other not in offers:
        return "unknown"
    since = -1 if previous is None else previous
    return any(index > since for index in other_conceded)


def _other(party: Party) -> Party:
    return "counterpart" if party == "user" else "user"


STAGE: Final[Mapping[Kind, str]] = {
    "offer": LifecycleStage.ENGAGED.value,
    "turn": LifecycleStage.ENGAGED.value,
    "withdrawn": LifecycleStage.ENGAGED.value,
}
"""The lifecycle after a move (the counterpart's offer: OFFER_RECEIVED); the table's end leaves
it to the user, who closes the case."""


@dataclass(frozen=True)
class TableUpdate:
    patches: Sequence[Patch]
    review: Offer | None
    """The counterpart's terms this envelope put on the table, for F08 in the same version."""


def update(
    state: NegotiationState, log: Sequence[TableMove], at: int, *, source_ref: str, link_id: str
) -> TableUpdate:
    """F09 on the `at`-th move of the log (its view of the state: `/proposals`, `/concessions`
    and the topics). An offer or turn already in the proposal history changes nothing."""
    move = log[at]
    topics = state.topics_targets_tradeoffs.topics
    patches: list[Patch] = []
    proposal_id = f"{link_id}-{move.seq}"
    if move.kind in ("offer", "turn") and move.party is not None:
        text = proposal_text(move.terms) if move.kind == "offer" else (move.message or "")
        if not text or proposal_id in {p.proposal_id for p in state.proposals.proposal_history}:
            return TableUpdate((), None)
        basis = f"{source_ref}: the {move.party}'s {move.kind}"
        entry = {
            "proposal_id": proposal_id,
            "party": move.party,
            "proposal": text,
            "timestamp": move.ts,
            "source_ref": source_ref,
        }
        patches.append(
            patch(f"F09-{proposal_id}", "ADD", "/proposals/proposal_history/-", entry, basis)
        )
        current = f"current_{move.party}_offer"
        if move.kind == "offer" and getattr(state.proposals, current) != text:
            patches.append(
                patch(
                    f"F09-{current}", "UPDATE_WITH_EVIDENCE", f"/proposals/{current}", text, basis
                )
            )
        patches += [
            _concession(c, index, move, source_ref, proposal_id)
            for index, c in enumerate(concessions(topics, log, at), 1)
        ]
    reviewing = move.kind == "offer" and move.party == "counterpart"
    stage = LifecycleStage.OFFER_RECEIVED.value if reviewing else STAGE.get(move.kind)
    if stage is not None and (reviewing or stage != state.meta.lifecycle_stage):
        why = "their terms are on the table" if reviewing else "the negotiation goes on"
        patches.append(
            patch(
                "F09-stage",
                "UPDATE_WITH_EVIDENCE",
                "/meta/lifecycle_stage",
                stage,
                f"{source_ref}: {why}",
            )
        )
    return TableUpdate(patches, _offer(topics, move) if reviewing else None)


def _concession(
    concession: Concession, index: int, move: TableMove, source_ref: str, proposal_id: str
) -> Patch:
    concession_id = f"{proposal_id}-c{index}"
    return patch(
        f"F09-{concession_id}",
        "ADD",
        "/concessions/ledger/-",
        {
            "concession_id": concession_id,
            "timestamp": move.ts,
            "party": concession.party,
            "topic": concession.topic,
            "from": concession.before,
            "to": concession.after,
            "stated_reason": move.message,
            "requested_exchange": None,
            "received_exchange": None,
            "conditional": False,
            "reciprocal": concession.reciprocal,
            "strategic_assessment": None,
            "source_event_id": source_ref,
        },
        f"{source_ref}: {concession.topic} moved from {concession.before} to "
        f"{concession.after}, in the other side's favour",
    )


def _offer(topics: Sequence[Topic], move: TableMove) -> Offer:
    """The counterpart's terms as F08 reads an offer: each mapped term by its topic (a value
    too long to be one is left out)."""
    terms = {
        topic.topic_id: move.terms[term]
        for topic, term in terms_of(topics)
        if term in move.terms and len(move.terms[term]) <= MAX_VALUE_LENGTH
    }
    return Offer(terms=terms, text=proposal_text(move.terms)[:MAX_TEXT_LENGTH])

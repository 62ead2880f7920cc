"""Hash chains: linking envelopes and verifying a log (receipts.md, Envelopes and the chain)."""

from collections.abc import Sequence
from dataclasses import dataclass

from accord.core.commit import Hash, commit
from accord.core.envelope import Draft, Envelope
from accord.core.jsonio import JSON, JSONError


@dataclass(frozen=True)
class ChainHead:
    """Where a log ends: the next seq to write and the hash the next envelope links to."""

    next_seq: int = 0
    head: Hash | None = None


def link(head: ChainHead, draft: Draft, *, ts: str, message_id: str) -> Envelope:
    return Envelope(
        seq=head.next_seq,
        ts=ts,
        type=draft.type,
        sender=draft.sender,
        payload=draft.payload,
        message_id=message_id,
        prev_hash=head.head,
    )


def advance(envelope: Envelope) -> ChainHead:
    return ChainHead(envelope.seq + 1, commit(envelope.to_json()))


class ChainError(ValueError):
    """The log does not verify; the message names the first envelope that breaks it."""


def verify_chain(envelopes: Sequence[JSON]) -> Hash | None:
    """Check seq is contiguous from 0 and every envelope links to the one before.

    Returns the chain head (the commitment to the last envelope), or None for an empty log.
    """
    prev: Hash | None = None
    for index, envelope in enumerate(envelopes):
        if not isinstance(envelope, dict):
            raise ChainError(f"envelope {index} is not an object")
        seq = envelope.get("seq")
        if type(seq) is not int or seq != index:
            raise ChainError(f"envelope {index} has seq {envelope.get('seq')!r}, expected {index}")
        if index == 0 and "prev_hash" in envelope:
            raise ChainError("envelope 0 must not carry prev_hash")
        if index > 0 and envelope.get("prev_hash") != prev:
            raise ChainError(f"envelope {index} does not link to envelope {index - 1}")
        try:
            prev = commit(envelope)
        except JSONError as exc:
            raise ChainError(f"envelope {index} cannot be canonicalized: {exc.reason}") from None
    return prev


def links_on(run: Sequence[Envelope], *, seq: int) -> bool:
    """Whether envelopes appended after `seq - 1` are numbered on from there, each linked to
    the one before: a step's part of the hash chain. The first one's link to the stored log
    is the store's to keep (the ledger links it to the head it holds); `accord check`
    verifies every chain end to end."""
    previous: Hash | None = None
    for index, envelope in enumerate(run):
        if envelope.seq != seq + index:
            return False
        if index == 0:
            linked = (envelope.prev_hash is None) == (seq == 0)
        else:
            linked = envelope.prev_hash == previous
        if not linked:
            return False
        try:
            previous = commit(envelope.to_json())
        except JSONError:
            return False
    return True

"""The one envelope every protocol's log is made of (DESIGN principle 3)."""

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from accord.core.commit import Hash
from accord.core.jsonio import JSON, JSONError

HASH_PATTERN: Final = re.compile(r"sha256:[0-9a-f]{64}")


@dataclass(frozen=True)
class Draft:
    """An envelope a protocol decided to append, before the store numbers and links it."""

    type: str
    sender: Mapping[str, str]
    payload: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Envelope:
    seq: int
    ts: str
    type: str
    sender: Mapping[str, str]
    payload: Mapping[str, Any]
    message_id: str
    prev_hash: Hash | None = None

    def to_json(self) -> dict[str, JSON]:
        """The wire and hashing form; envelope 0 has no `prev_hash` member."""
        out: dict[str, JSON] = {
            "seq": self.seq,
            "ts": self.ts,
            "type": self.type,
            "sender": dict(self.sender),
            "payload": dict(self.payload),
            "message_id": self.message_id,
        }
        if self.prev_hash is not None:
            out["prev_hash"] = self.prev_hash
        return out

    @classmethod
    def from_json(cls, value: JSON) -> "Envelope":
        """Read an envelope, refusing any that lacks a member or carries an unknown one."""
        if not isinstance(value, dict):
            raise JSONError("an envelope must be a JSON object")
        required = {"seq", "ts", "type", "sender", "payload", "message_id"}
        allowed = required | {"prev_hash"}
        if missing := required - value.keys():
            raise JSONError(f"envelope lacks {sorted(missing)}")
        if unknown := value.keys() - allowed:
            raise JSONError(f"envelope has unknown members {sorted(unknown)}")
        seq, ts, type_, sender, payload, message_id = (
            value["seq"],
            value["ts"],
            value["type"],
            value["sender"],
            value["payload"],
            value["message_id"],
        )
        prev_hash = value.get("prev_hash")
        if "prev_hash" in value and not (
            isinstance(prev_hash, str) and HASH_PATTERN.fullmatch(prev_hash)
        ):
            raise JSONError("envelope prev_hash must be sha256: and 64 lowercase hex digits")
        if not (isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0):
            raise JSONError("envelope seq must be a non-negative integer")
        if not all(isinstance(x, str) for x in (ts, type_, message_id)):
            raise JSONError("envelope ts, type and message_id must be strings")
        if not isinstance(sender, dict) or not isinstance(payload, dict):
            raise JSONError("envelope sender and payload must be objects")
        if not all(isinstance(v, str) for v in sender.values()):
            raise JSONError("envelope sender members must be strings")
        return cls(
            seq, ts, type_, sender, payload, message_id, Hash(prev_hash) if prev_hash else None
        )

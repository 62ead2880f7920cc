"""`accord agent run --case`: Accord's own agent for a seat a case follows (adviser-api.md,
Linked tables) takes its limits from the case and keeps to the person's own review: it approves
or accepts no terms the case's deal review says reject, unless the person overrode it. A buyer's
session, opened by the agent itself, is linked to the case as it opens."""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from accord.adviser.brief import held_back, room_fields, session_ceiling
from accord.adviser.disclosure import never_reveal
from accord.adviser.state import NegotiationState
from accord.agents.room_agent import Step
from accord.agents.session_agent import SessionStep
from accord.cli.adviser_client import adviser
from accord.cli.errors import Failure


@dataclass(frozen=True)
class CaseLimits:
    case_id: str
    server: str
    key: str
    state: dict[str, Any]

    @classmethod
    def read(cls, case_id: str, server: str, key: str | None) -> "CaseLimits":
        if key is None:
            raise Failure(
                "--case reads your case: give a key of its principal with --case-key",
                exit_code=2,
            )
        with adviser(server, key) as you:
            found = you.case(case_id)
        return cls(case_id, server, key, found.state)

    def brief(self, schema: Mapping[str, Any], document: Mapping[str, Any]) -> dict[str, Any]:
        """The brief given, with each field the case maps taken from the case."""
        fields = room_fields(NegotiationState.model_validate(self.state), schema)
        if not fields:
            raise Failure(
                f"case {self.case_id} maps no topic to a field of this room: set a topic's "
                "x_accord.term to the room's field name",
                exit_code=2,
            )
        return {**document, "fields": {**(document.get("fields") or {}), **fields}}

    @property
    def never_say(self) -> frozenset[str]:
        return never_reveal(self.state)

    def ceiling(self, document: Mapping[str, Any]) -> dict[str, Any]:
        """A session brief: the one given, its ceiling taken from the case."""
        state = NegotiationState.model_validate(self.state)
        return {**document, "ceiling_minor": session_ceiling(state)}

    def follow(self, session_id: str, token: str) -> None:
        """Link the case to the session the agent just opened, with its buyer token."""
        with adviser(self.server, self.key) as you:
            you.link(self.case_id, "arbitrated", session_id, credential=token)

    def veto(self, step: Step | SessionStep) -> str | None:
        """Before an approve or an accept: the case as it stands now (it has read the table's
        last move), and its review of the other side's terms."""
        if step.kind not in ("approve", "accept"):
            return None
        with adviser(self.server, self.key) as you:
            return held_back(you.case(self.case_id).state["deal_review"])

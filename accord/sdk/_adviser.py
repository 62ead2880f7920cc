"""A principal's adviser cases (spec/adviser-api.md), with its owner key (writes) or an agent key
(reads): cases and their versions, history and brief, patches, answers, deal reviews, skill runs,
red-team reconciliation, linked tables and the skill registry. What a key may do is the server's
to say: an agent key's write is refused (`forbidden`), another principal's case is `not_found`."""

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from accord.sdk import _operations as ops
from accord.sdk._adviser_models import (
    AnswerResult,
    Brief,
    Case,
    CaseHistory,
    CaseLink,
    CaseList,
    CaseVersion,
    ChangeSeen,
    Result,
    RunResult,
    Skill,
    SkillList,
)

if TYPE_CHECKING:
    from accord.sdk._client import Accord, AsyncAccord

Outcome = Literal["closed", "no_deal"]
Reconciliation = Literal["ACCEPT", "TEST", "REJECT", "DEFER"]
Protocol = Literal["rooms", "arbitrated", "intro"]


def _case(case_id: str, **more: str) -> dict[str, str]:
    return {"case_id": case_id, **more}


def _members(**members: Any) -> dict[str, Any]:
    return {name: value for name, value in members.items() if value is not None}


class _Cases:
    def __init__(self, key: str) -> None:
        self.key = key

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"  # the key stays out of logs


class Adviser(_Cases):
    """A principal's adviser cases (`Principal.adviser`)."""

    def __init__(self, client: "Accord", key: str) -> None:
        super().__init__(key)
        self._client = client

    def open(
        self, title: str, *, description: str | None = None, analysis_depth: str | None = None
    ) -> Case:
        """A new case at version 1, its intake questions asked (owner key)."""
        body = _members(title=title, description=description, analysis_depth=analysis_depth)
        return self._client._call(ops.OPEN_CASE, token=self.key, body=body)

    def cases(self) -> CaseList:
        return self._client._call(ops.LIST_CASES, token=self.key)

    def case(self, case_id: str) -> Case:
        """The case as it stands, with what its linked tables appended read into it."""
        return self._client._call(ops.SHOW_CASE, token=self.key, path=_case(case_id))

    def version(self, case_id: str, number: int) -> CaseVersion:
        path = _case(case_id, number=str(number))
        return self._client._call(ops.CASE_VERSION, token=self.key, path=path)

    def history(self, case_id: str) -> CaseHistory:
        return self._client._call(ops.CASE_HISTORY, token=self.key, path=_case(case_id))

    def export(self, case_id: str, *, version: int | None = None) -> str:
        """The one-page brief in Markdown (of `version`, the current one by default)."""
        params = {"version": version} if version is not None else None
        brief: Brief = self._client._call(
            ops.EXPORT_CASE, token=self.key, path=_case(case_id), params=params
        )
        return brief.markdown

    def patch(self, case_id: str, patches: Sequence[Mapping[str, Any]], *, based_on: int) -> Result:
        """The person's own edits, validated in order; the valid ones make one version."""
        body = {"based_on_state_version": based_on, "patches": list(patches)}
        return self._client._call(ops.PATCH_CASE, token=self.key, path=_case(case_id), body=body)

    def answer(self, case_id: str, question_id: str, answer: Any) -> AnswerResult:
        body = {"question_id": question_id, "answer": answer}
        return self._client._call(ops.ANSWER_CASE, token=self.key, path=_case(case_id), body=body)

    def review(self, case_id: str, offer: Mapping[str, Any]) -> RunResult:
        """F08 on `{terms: {topic_id: value}, text?, conditions?}`: the eight tests and a
        recommendation, as a version."""
        body = {"offer": dict(offer)}
        return self._client._call(ops.REVIEW_OFFER, token=self.key, path=_case(case_id), body=body)

    def override(self, case_id: str, reason: str, *, new_evidence: str | None = None) -> Result:
        """Accept against the last review's recommendation, on the record."""
        body = _members(decision="accept", reason=reason, new_evidence=new_evidence)
        return self._client._call(
            ops.OVERRIDE_REVIEW, token=self.key, path=_case(case_id), body=body
        )

    def seen(self, case_id: str, change_id: str) -> ChangeSeen:
        path = _case(case_id, change_id=change_id)
        return self._client._call(ops.SEE_CHANGE, token=self.key, path=path, body={})

    def close(self, case_id: str, outcome: Outcome, reason: str) -> Result:
        """The only way a case closes; it is read-only after."""
        body = {"outcome": outcome, "reason": reason}
        return self._client._call(ops.CLOSE_CASE, token=self.key, path=_case(case_id), body=body)

    def run(
        self,
        case_id: str,
        skill_id: str,
        *,
        request: Any = None,
        response: Mapping[str, Any] | None = None,
    ) -> RunResult:
        """A built-in skill (with its `request`), or your own skill's SKILL_RESPONSE."""
        body = _members(request=request, response=response)
        path = _case(case_id, skill_id=skill_id)
        return self._client._call(ops.RUN_SKILL, token=self.key, path=path, body=body)

    def reconcile(self, case_id: str, finding_id: str, decision: Reconciliation) -> Result:
        path = _case(case_id, finding_id=finding_id)
        body = {"reconciliation": decision}
        return self._client._call(ops.RECONCILE, token=self.key, path=path, body=body)

    def link(
        self,
        case_id: str,
        protocol: Protocol,
        negotiation_id: str,
        *,
        credential: str | None = None,
    ) -> CaseLink:
        """Follow a seat: a room's seat or owner token, a session's buyer token, or (intro)
        your own opportunity, without one."""
        body = _members(protocol=protocol, negotiation_id=negotiation_id, credential=credential)
        return self._client._call(ops.LINK_CASE, token=self.key, path=_case(case_id), body=body)

    def skills(self) -> SkillList:
        return self._client._call(ops.LIST_SKILLS, token=self.key)

    def declare(self, skill: Mapping[str, Any]) -> Skill:
        """`{skill_id: x-…, name, reads, writes, red_team?}`; the same id replaces it."""
        return self._client._call(ops.DECLARE_SKILL, token=self.key, body=skill)


class AsyncAdviser(_Cases):
    """`Adviser` for an event loop."""

    def __init__(self, client: "AsyncAccord", key: str) -> None:
        super().__init__(key)
        self._client = client

    async def open(
        self, title: str, *, description: str | None = None, analysis_depth: str | None = None
    ) -> Case:
        body = _members(title=title, description=description, analysis_depth=analysis_depth)
        return await self._client._call(ops.OPEN_CASE, token=self.key, body=body)

    async def cases(self) -> CaseList:
        return await self._client._call(ops.LIST_CASES, token=self.key)

    async def case(self, case_id: str) -> Case:
        return await self._client._call(ops.SHOW_CASE, token=self.key, path=_case(case_id))

    async def version(self, case_id: str, number: int) -> CaseVersion:
        path = _case(case_id, number=str(number))
        return await self._client._call(ops.CASE_VERSION, token=self.key, path=path)

    async def history(self, case_id: str) -> CaseHistory:
        return await self._client._call(ops.CASE_HISTORY, token=self.key, path=_case(case_id))

    async def export(self, case_id: str, *, version: int | None = None) -> str:
        params = {"version": version} if version is not None else None
        brief: Brief = await self._client._call(
            ops.EXPORT_CASE, token=self.key, path=_case(case_id), params=params
        )
        return brief.markdown

    async def patch(
        self, case_id: str, patches: Sequence[Mapping[str, Any]], *, based_on: int
    ) -> Result:
        body = {"based_on_state_version": based_on, "patches": list(patches)}
        path = _case(case_id)
        return await self._client._call(ops.PATCH_CASE, token=self.key, path=path, body=body)

    async def answer(self, case_id: str, question_id: str, answer: Any) -> AnswerResult:
        body = {"question_id": question_id, "answer": answer}
        path = _case(case_id)
        return await self._client._call(ops.ANSWER_CASE, token=self.key, path=path, body=body)

    async def review(self, case_id: str, offer: Mapping[str, Any]) -> RunResult:
        body = {"offer": dict(offer)}
        path = _case(case_id)
        return await self._client._call(ops.REVIEW_OFFER, token=self.key, path=path, body=body)

    async def override(
        self, case_id: str, reason: str, *, new_evidence: str | None = None
    ) -> Result:
        body = _members(decision="accept", reason=reason, new_evidence=new_evidence)
        path = _case(case_id)
        return await self._client._call(ops.OVERRIDE_REVIEW, token=self.key, path=path, body=body)

    async def seen(self, case_id: str, change_id: str) -> ChangeSeen:
        path = _case(case_id, change_id=change_id)
        return await self._client._call(ops.SEE_CHANGE, token=self.key, path=path, body={})

    async def close(self, case_id: str, outcome: Outcome, reason: str) -> Result:
        body = {"outcome": outcome, "reason": reason}
        path = _case(case_id)
        return await self._client._call(ops.CLOSE_CASE, token=self.key, path=path, body=body)

    async def run(
        self,
        case_id: str,
        skill_id: str,
        *,
        request: Any = None,
        response: Mapping[str, Any] | None = None,
    ) -> RunResult:
        body = _members(request=request, response=response)
        path = _case(case_id, skill_id=skill_id)
        return await self._client._call(ops.RUN_SKILL, token=self.key, path=path, body=body)

    async def reconcile(self, case_id: str, finding_id: str, decision: Reconciliation) -> Result:
        path = _case(case_id, finding_id=finding_id)
        body = {"reconciliation": decision}
        return await self._client._call(ops.RECONCILE, token=self.key, path=path, body=body)

    async def link(
        self,
        case_id: str,
        protocol: Protocol,
        negotiation_id: str,
        *,
        credential: str | None = None,
    ) -> CaseLink:
        body = _members(protocol=protocol, negotiation_id=negotiation_id, credential=credential)
        path = _case(case_id)
        return await self._client._call(ops.LINK_CASE, token=self.key, path=path, body=body)

    async def skills(self) -> SkillList:
        return await self._client._call(ops.LIST_SKILLS, token=self.key)

    async def declare(self, skill: Mapping[str, Any]) -> Skill:
        return await self._client._call(ops.DECLARE_SKILL, token=self.key, body=skill)

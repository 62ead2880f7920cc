"""Skill runs, the registry and red-team reconciliation for adviser cases (adviser-api.md,
Skills and Red team): a built-in's SKILL_RESPONSE and a registered skill's are validated by the
same orchestrator, under the same authorship rules; a red-team skill's findings are recorded and
its patches under `/strategy` wait for the user."""

import copy
import logging
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError
from sqlalchemy import Connection

from accord.adviser.disclosure import guarded, never_reveal
from accord.adviser.patches import ROOT, Author, Patch, SetContext, Verdicts, validate
from accord.adviser.pointers import PointerError, locate
from accord.adviser.questions import Question
from accord.adviser.requests import ReconcileInput, RunInput
from accord.adviser.review import Offer
from accord.adviser.skills import llm
from accord.adviser.skills.llm import LLM_ID
from accord.adviser.skills.output import Output, respond, unheeded_block
from accord.adviser.skills.registry import BUILTINS, Declaration, Skill, view
from accord.adviser.skills.response import SkillResponse, SkillWarning
from accord.adviser.skills.runs import BadRequest, compute
from accord.adviser.versions import next_version, version_one
from accord.agents.llm import Model
from accord.app.adviser import Adviser, JSONBody, ensure_open, own, state_at
from accord.app.adviser_links import AdviserLinks
from accord.app.identity import PrincipalCaller
from accord.app.intents import check_may, invalid_unless
from accord.app.principals import Action
from accord.app.tokens import new_id
from accord.core.problems import problems
from accord.core.refusals import RefusalCode, refuse
from accord.core.times import format_time
from accord.store import adviser as rows

log = logging.getLogger("accord.adviser")

NO_SKILL = "No skill by this id; GET /v1/adviser/skills lists the built-ins and yours."
FINAL = ("ACCEPT", "REJECT")


class AdviserSkills:
    def __init__(self, adviser: Adviser, links: AdviserLinks, model: Model | None = None) -> None:
        self._adviser = adviser
        self._links = links
        self._model = model
        """The configured language model: with one, the registry holds `LLM`."""

    # -- the registry ------------------------------------------------------------------------

    def list(self, caller: PrincipalCaller) -> JSONBody:
        def read(conn: Connection) -> JSONBody:
            check_may(conn, caller, Action.READ)
            return {
                "skills": [s.as_json() for s in self._skills(conn, caller.principal_id).values()]
            }

        return self._adviser.read(read)

    def declare(self, caller: PrincipalCaller, body: Declaration) -> tuple[JSONBody, bool]:
        """The skill as kept, and whether it is new (a declaration again replaces it)."""

        def txn(conn: Connection) -> tuple[JSONBody, bool]:
            check_may(conn, caller, Action.WRITE)
            skill = body.skill()
            now = format_time(self._adviser.now())
            new = rows.save_skill(conn, caller.principal_id, skill.skill_id, skill.as_json(), now)
            return skill.as_json(), new

        return self._adviser.write(txn)

    # -- runs --------------------------------------------------------------------------------

    def run(self, caller: PrincipalCaller, case_id: str, skill_id: str, body: RunInput) -> JSONBody:
        asked = self._ask_model(caller, case_id, body) if skill_id == LLM_ID else None

        def txn(conn: Connection) -> JSONBody:
            row = own(conn, caller, case_id, Action.WRITE, lock=True)
            skill = self._skills(conn, row.principal_id).get(skill_id)
            if skill is None:
                raise refuse(RefusalCode.NOT_FOUND, NO_SKILL)
            state = state_at(conn, case_id, row.state_version)
            known = {q.question_id: q for q in rows.questions(conn, case_id)}
            if skill.builtin:
                invalid_unless(
                    body.response is None, {"response": "a built-in makes its own response"}
                )
            else:
                invalid_unless(
                    body.response is not None, {"response": "the SKILL_RESPONSE your skill made"}
                )
            if skill_id == "F08":
                offer = _offer(body.request)
                ensure_open(row)
                return self._adviser.reviewed(conn, row, offer)
            if skill_id == "F09":
                invalid_unless(body.request in (None, {}), {"request": "F09 takes no request"})
                ensure_open(row)
                return self._follow(conn, row)
            request_id = new_id("run")
            if asked is not None:
                response = _guarded(asked, state)
            elif skill.builtin:
                response = self._computed(skill, state, row, body, known, request_id)
            else:
                response = _registered(skill, body.response, state, known)
            ensure_open(row)
            return self._apply(conn, row, skill, state, response, known)

        return self._adviser.write(txn)

    def _follow(self, conn: Connection, row: rows.CaseRow) -> JSONBody:
        """F09 run by hand: the linked tables read to their last envelope now (what the
        follower would read a moment later), one `table_update` version per envelope."""
        if not rows.case_links(conn, row.id):
            raise refuse(
                RefusalCode.NOT_LINKED,
                "F09 reads a linked table, and this case has none: POST …/links links one.",
            )
        caught = self._links.caught_up(conn, row)
        versions = caught.versions
        conclusion = (
            f"Read the linked tables: {versions} new version{'s' if versions != 1 else ''}"
            if versions
            else "The linked tables have nothing new"
        )
        output = Output(conclusion, "high", patches=caught.patches)
        request_id = new_id("run")
        response = respond("F09", request_id, row.state_version, output, {})
        last = caught.last or {
            "applied": [],
            "refused": [],
            "held": [],
            "warnings": [],
            "state_version": row.state_version,
            "material_change": None,
        }
        applied = [{"patch_id": p.patch_id, "path": p.path} for p in caught.patches]
        return {**last, "applied": applied, "response": response.model_dump(mode="json")}

    def _computed(
        self,
        skill: Skill,
        state: dict[str, Any],
        row: rows.CaseRow,
        body: RunInput,
        known: Mapping[str, Question],
        request_id: str,
    ) -> SkillResponse:
        blank = version_one(row.id, row.title, self._adviser.now())
        try:
            output = compute(
                skill.skill_id,
                state,
                blank,
                body.request,
                depth_given=row.depth_given,
                known=known,
                request_id=request_id,
            )
        except BadRequest as error:
            raise refuse(
                RefusalCode.INVALID_REQUEST,
                "Fix the request: see fields for what is wrong.",
                fields={"request": str(error)},
            ) from None
        response = respond(skill.skill_id, request_id, row.state_version, output, known)
        return _guarded(response, state)

    def _apply(
        self,
        conn: Connection,
        row: rows.CaseRow,
        skill: Skill,
        state: dict[str, Any],
        response: SkillResponse,
        known: Mapping[str, Question],
    ) -> JSONBody:
        """Validate the response's patches as the skill's, record a red-team skill's findings
        and hold its patches under them, and make one version."""
        findings = {f.finding_id for f in response.findings} if skill.red_team else set()
        recorded = {f["finding_id"] for f in state["roleplay"]["red_team_findings"]}
        invalid_unless(
            not findings & recorded,
            {"response.findings": "a finding id this case has already recorded"},
        )
        context = SetContext(
            state, response.based_on_state_version, skill.author, frozenset(findings)
        )
        verdicts = validate(context, response.proposed_state_patch)
        extra: list[str] = []
        if findings:
            verdicts.document["roleplay"]["red_team_findings"] += [
                {"finding_id": f.finding_id, "finding": f.finding, "reconciliation_status": None}
                for f in response.findings
            ]
            extra.append("/roleplay/red_team_findings")
        now = self._adviser.now()
        made = next_version(
            state,
            verdicts,
            now,
            cause="skill_run",
            summary=f"{skill.name}: {response.summary.conclusion}"[:500],
            source_ref=f"{skill.skill_id}:{response.request_id}",
            extra_changes=extra,
        )
        version = row.state_version if made is None else row.state_version + 1
        rows.hold(
            conn,
            row.id,
            [
                rows.HeldRow(finding, skill.skill_id, version, patch.model_dump(mode="json"))
                for patch, finding in verdicts.held
            ],
        )
        result = self._adviser.record(conn, row, verdicts, made)
        asked = [q.kept(skill.skill_id) for q in response.questions if q.question_id not in known]
        self._adviser.ask(conn, row.principal_id, row.id, asked, len(known), format_time(now))
        return {**result, "response": response.model_dump(mode="json")}

    # -- red team ----------------------------------------------------------------------------

    def reconcile(
        self, caller: PrincipalCaller, case_id: str, finding_id: str, body: ReconcileInput
    ) -> JSONBody:
        """ACCEPT applies the finding's held patches, validated again as a set based on the
        version they were held at; REJECT drops them; TEST and DEFER keep them waiting."""

        def txn(conn: Connection) -> JSONBody:
            row = own(conn, caller, case_id, Action.WRITE, lock=True)
            state = state_at(conn, case_id, row.state_version)
            found = [
                f for f in state["roleplay"]["red_team_findings"] if f["finding_id"] == finding_id
            ]
            if not found:
                raise refuse(RefusalCode.NOT_FOUND, "This case has no finding by this id.")
            ensure_open(row)
            if found[0]["reconciliation_status"] in FINAL:
                raise refuse(
                    RefusalCode.FINDING_FINAL,
                    f"This finding was reconciled {found[0]['reconciliation_status']} for good.",
                )
            decision = body.reconciliation
            document = copy.deepcopy(state)
            for finding in document["roleplay"]["red_team_findings"]:
                if finding["finding_id"] == finding_id:
                    finding["reconciliation_status"] = decision
            changes = [f"/roleplay/red_team_findings/{finding_id}/reconciliation_status"]
            if decision in FINAL:
                into = "accepted_findings" if decision == "ACCEPT" else "rejected_findings"
                document["roleplay"][into].append(finding_id)
                changes.append(f"/roleplay/{into}")
            verdicts = Verdicts(document)
            if decision == "ACCEPT":
                waiting = [h for h in rows.held(conn, case_id) if h.finding_id == finding_id]
                skills = self._skills(conn, row.principal_id)
                verdicts = _released(document, waiting, skills)
            made = next_version(
                state,
                verdicts,
                self._adviser.now(),
                cause="finding_reconciled",
                summary=f"Finding {finding_id}: {decision}",
                source_ref=f"finding:{finding_id}",
                extra_changes=changes,
            )
            return self._adviser.record(conn, row, verdicts, made)

        return self._adviser.write(txn)

    def _skills(self, conn: Connection, principal_id: str) -> dict[str, Skill]:
        own_skills = [Skill.from_json(body) for body in rows.skills(conn, principal_id)]
        served = [*BUILTINS, llm.SKILL] if self._model is not None else BUILTINS
        return {s.skill_id: s for s in [*served, *own_skills]}

    def _ask_model(
        self, caller: PrincipalCaller, case_id: str, body: RunInput
    ) -> SkillResponse | None:
        """The language model's answer on its view of the case, asked outside any write (it
        takes seconds); the run validates it against the version it read. None without a
        model: `LLM` is then no skill of the registry."""
        if self._model is None:
            return None

        def read(conn: Connection) -> tuple[dict[str, Any], rows.CaseRow]:
            row = own(conn, caller, case_id, Action.WRITE)
            return state_at(conn, case_id, row.state_version), row

        state, row = self._adviser.read(read)
        invalid_unless(body.request in (None, {}), {"request": "LLM takes no request"})
        invalid_unless(body.response is None, {"response": "a built-in makes its own response"})
        ensure_open(row)
        blank = version_one(row.id, row.title, self._adviser.now())
        seen = view(state, llm.SKILL.reads, blank)
        try:
            call = self._model(llm.messages(seen), llm.TOOLS)
        except Exception:  # unreachable, slow or malformed: the run concludes nothing
            log.warning("the language model did not answer for %s", case_id, exc_info=True)
            call = None
        arguments = call.arguments if call is not None and call.name == llm.TOOL_NAME else None
        return llm.response(arguments, new_id("run"), row.state_version)


def _released(
    document: dict[str, Any], waiting: list[rows.HeldRow], skills: Mapping[str, Skill]
) -> Verdicts:
    """The accepted finding's patches validated as one set based on the version they were held
    at, by their skill, no longer held."""
    if not waiting:
        return Verdicts(document)
    skill = skills.get(waiting[0].skill_id)
    writes = skill.writes if skill is not None else ()
    author = Author(waiting[0].skill_id, writes, red_team=True, releasing=True)
    patches = [Patch.model_validate(h.patch) for h in waiting]
    return validate(SetContext(document, min(h.held_at for h in waiting), author), patches)


def _offer(request: Any) -> Offer:
    if not isinstance(request, dict) or set(request) != {"offer"}:
        invalid_unless(False, {"request": "F08 takes {offer}"})
    try:
        return Offer.model_validate(request["offer"])
    except ValidationError as error:
        raise _invalid("request.offer", error) from None


def _invalid(member: str, error: ValidationError) -> Exception:
    """A nested body's errors as `invalid_request`, each field named from `member` down."""
    fields = problems(error, within=member)
    return refuse(
        RefusalCode.INVALID_REQUEST, "Fix the request: see fields for what is wrong.", fields=fields
    )


def _registered(
    skill: Skill, body: Any, state: dict[str, Any], known: Mapping[str, Question]
) -> SkillResponse:
    """A registered skill's SKILL_RESPONSE, checked as the contract says."""
    try:
        response = SkillResponse.model_validate(body)
    except ValidationError as error:
        raise _invalid("response", error) from None
    current = int(state["meta"]["state_version"])
    invalid_unless(
        response.skill_id == skill.skill_id,
        {"response.skill_id": f"the run's skill, {skill.skill_id}"},
    )
    invalid_unless(
        response.based_on_state_version <= current,
        {"response.based_on_state_version": f"at most the current version, {current}"},
    )
    for question in response.questions:
        try:
            locate(copy.deepcopy(state), ROOT, question.path)
        except PointerError as error:
            invalid_unless(False, {f"response.questions.{question.question_id}.path": str(error)})
    problem = unheeded_block(response, known)
    invalid_unless(problem is None, {"response.summary": problem})
    return response


def _guarded(response: SkillResponse, state: dict[str, Any]) -> SkillResponse:
    """A drafted deliverable without the lines that would say a never-reveal value."""
    deliverable = response.deliverable
    if deliverable is None:
        return response
    offer = state["proposals"]["current_user_offer"]
    content, dropped = guarded(deliverable.content, never_reveal(state), offer)
    if not dropped:
        return response
    warning = SkillWarning(
        warning_id="W-never-reveal",
        warning=f"Left out {dropped} line(s) that would say a value you never reveal.",
        severity="high",
    )
    return response.model_copy(
        update={
            "deliverable": deliverable.model_copy(update={"content": content}),
            "warnings": [*response.warnings, warning],
        }
    )

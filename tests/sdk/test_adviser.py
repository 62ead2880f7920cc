"""A principal's adviser cases through `Accord.principal(key).adviser` and its async twin,
against a real server on 127.0.0.1: a case prepared, a skill run, a room linked and its offer
reviewed, the brief exported; an agent key reads but never writes; refusals as AccordError. Over
a scripted transport: the brief is asked for, and read, only as Markdown."""

import httpx
import pytest

from accord.app.principals import Principals
from accord.sdk import Accord, AccordError, AsyncAccord
from accord.store.database import Database
from tests.adviser.test_links_http import SALARY, SCHEMA, terms
from tests.conftest import FakeClock, LiveServer
from tests.principals.conftest import Principal, make_principal
from tests.sdk.conftest import Script


@pytest.fixture
def kim(db: Database, clock: FakeClock) -> Principal:
    return make_principal(Principals(db, clock=clock), "kim")


def test_a_case_from_preparation_to_a_linked_offer(accord: Accord, kim: Principal) -> None:
    owner = accord.principal(kim.owner_key).adviser
    agent = accord.principal(kim.agent_key).adviser
    assert "acc_" not in repr(owner)
    case = owner.open("Northwind offer", description="A senior role")
    assert (case.state_version, case.questions[0]["question_id"]) == (1, "Q-batna")
    answered = owner.answer(case.case_id, "Q-batna", "Stay at Contoso")
    assert answered.question["status"] == "answered"
    topic = {"patch_id": "t", "operation": "ADD", "path": "/topics_targets_tradeoffs/topics/-",
             "proposed_value": SALARY}  # fmt: skip
    patched = owner.patch(case.case_id, [topic], based_on=answered.state_version)
    assert patched.refused == [] and patched.material_change is not None
    ran = owner.run(case.case_id, "F04")
    assert ran.response["skill_id"] == "F04"
    assert [s.skill_id for s in agent.skills().skills][:2] == ["F01", "F02"]

    opened = accord.rooms.open(SCHEMA, subject=terms(120_000))
    joined = accord.rooms.join(opened.invite.token)
    link = owner.link(case.case_id, "rooms", opened.room.room_id, credential=joined.seat.token)
    assert (link.protocol, link.seat) == ("rooms", "joiner")
    now = agent.case(case.case_id)
    assert now.links == [link]
    assert now.state["meta"]["lifecycle_stage"] == "DEAL_REVIEW"
    assert now.state["proposals"]["current_counterpart_offer"].startswith("salary: USD 120,000.00")
    change = now.material_changes[-1]["change_id"]
    assert owner.seen(case.case_id, change).seen is True
    assert agent.version(case.case_id, 1).state_version == 1
    assert agent.history(case.case_id).events[0]["type"] == "case_created"
    brief = agent.export(case.case_id)
    assert brief.startswith("# Northwind offer\n") and "USD 120,000.00" in brief
    assert agent.export(case.case_id, version=1).startswith("# Northwind offer\n")
    assert [c.case_id for c in agent.cases().cases] == [case.case_id]

    with pytest.raises(AccordError) as written:
        agent.patch(case.case_id, [topic], based_on=1)
    assert (written.value.code, written.value.status) == ("forbidden", 403)
    with pytest.raises(AccordError) as unknown:
        owner.case("case_00000000000000000000")
    assert unknown.value.code == "not_found"
    closed = owner.close(case.case_id, "no_deal", "Stayed at Contoso")
    assert closed.state_version == agent.case(case.case_id).state_version
    with pytest.raises(AccordError) as after:
        owner.run(case.case_id, "F04")
    assert after.value.code == "case_closed"


@pytest.mark.anyio
async def test_the_async_twin(server: LiveServer, kim: Principal) -> None:
    async with AsyncAccord(server.url) as accord:
        owner = accord.principal(kim.owner_key).adviser
        case = await owner.open("A lease")
        reviewed = await owner.review(case.case_id, {"terms": {}, "text": "12 months, EUR 900"})
        assert reviewed.deal_review is not None
        assert reviewed.deal_review["recommendation"] in ("get_information", "counter")
        mine = await accord.principal(kim.agent_key).adviser.case(case.case_id)
        assert mine.state_version == reviewed.state_version
        assert (await owner.export(case.case_id)).startswith("# A lease\n")


@pytest.mark.parametrize(
    ("content_type", "brief"),
    [
        pytest.param("text/markdown; charset=utf-8", "# A lease\n", id="markdown"),
        pytest.param("text/html", None, id="a_page_is_not_a_brief"),
        pytest.param("application/json", None, id="json_is_not_a_brief"),
    ],
)
def test_the_brief_is_asked_for_and_read_only_as_markdown(
    content_type: str, brief: str | None
) -> None:
    script = Script(
        [httpx.Response(200, text="# A lease\n", headers={"content-type": content_type})]
    )
    with Accord("http://accord.test", transport=script.transport, max_retries=0) as accord:
        adviser = accord.principal("acc_ak_x").adviser
        if brief is None:
            with pytest.raises(AccordError) as refused:
                adviser.export("case_1")
            assert (refused.value.code, refused.value.status) == ("invalid_response", 200)
        else:
            assert adviser.export("case_1", version=2) == brief
    assert script.requests[0].headers["accept"] == "text/markdown"

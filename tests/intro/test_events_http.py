"""A principal's event stream through a real server (spec/intro-api.md, Events): each event
reaches exactly its audience (both seats' principals or the other seat's, the owner key or
every key, never a third principal), resumes after Last-Event-ID, refuses one no stream could
have sent, and holds nothing private. Reads wait on the stream itself, with a read timeout;
each stream is read up to a fence (an opportunity opened afterwards, or an event written
last), so that "nothing else" is seen, not waited for."""

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any, Final

import httpx
import pytest

from accord.app.principals import Principals
from tests.http.support import EventStream, Frame, assert_error
from tests.intro.conftest import JSONBody, key, post_intent
from tests.principals.conftest import Principal, make_principal

READ_TIMEOUT: Final = 10.0
CELLIST: Final = "A cellist for a string quartet in Lyon on Saturdays"
QUARTET: Final = "A string quartet in Lyon wants a cellist on Saturdays"
CONTEXT: Final = "Ada's note to her agent: she would pay up to 900 a month"
CHAT: Final = "Between us: Saturdays only if the pay is right"
QUESTION: Final = "May I say you have played with the Lyon opera?"
WHY: Final = "It would open the Constraints layer sooner"
ANSWER: Final = "Yes, but not the years"
PRIVATE: Final = (CONTEXT, CHAT, QUESTION, WHY, ANSWER)

KEYS: Final[dict[str, frozenset[str]]] = {
    "opportunity.changed": frozenset({"type", "opportunity_id", "status"}),
    "negotiation.turn": frozenset({"type", "negotiation_id", "opportunity_id", "turn"}),
    "negotiation.changed": frozenset(
        {"type", "negotiation_id", "opportunity_id", "turn_count", "round", "awaiting", "outcome"}
    ),
    "negotiation.round_over": frozenset(
        {"type", "negotiation_id", "opportunity_id", "round", "reason"}
    ),
    "negotiation.settled": frozenset({"type", "negotiation_id", "opportunity_id", "outcome"}),
    "principal.message": frozenset({"type", "intent_id", "message_id", "paused"}),
    "questions.asked": frozenset({"type", "negotiation_id", "opportunity_id", "question_ids"}),
    "questions.answered": frozenset({"type", "negotiation_id", "opportunity_id", "question_ids"}),
}
"""Every member each type may hold: anything more would be a leak."""


@pytest.fixture
def dan(principals: Principals) -> Principal:
    """The fences' other side."""
    return make_principal(principals, "dan")


@contextmanager
def events(
    client: httpx.Client,
    token: str,
    last_event_id: str | None = None,
    *,
    header: str = "Authorization",
) -> Iterator[EventStream]:
    headers = {"Authorization": f"Bearer {token}"} if header == "Authorization" else {header: token}
    if last_event_id is not None:
        headers["Last-Event-ID"] = last_event_id
    with client.stream("GET", "/api/events", headers=headers, timeout=READ_TIMEOUT) as response:
        yield EventStream(response)


def open_pair(
    client: httpx.Client, opener: Principal, other: Principal, context: str | None = None
) -> JSONBody:
    mine = post_intent(client, opener, CELLIST)["intent_id"]
    theirs = post_intent(client, other, QUARTET)["intent_id"]
    body: JSONBody = {"candidates": [theirs]} | ({"context": context} if context else {})
    answer = client.post(
        f"/api/intents/{mine}/opportunities", json=body, headers=key(opener.owner_key)
    )
    assert answer.status_code == 200, answer.text
    opened: JSONBody = answer.json()["opportunities"][0]
    return opened


def took(client: httpx.Client, who: Principal, opportunity_id: str, **body: Any) -> None:
    url = f"/api/opportunities/{opportunity_id}/negotiation/turns"
    answer = client.post(url, json=body, headers=key(who.agent_key))
    assert answer.status_code == 200, answer.text


def decided(client: httpx.Client, who: Principal, opportunity_id: str, status: str) -> None:
    answer = client.patch(
        f"/api/opportunities/{opportunity_id}/status",
        json={"status": status},
        headers=key(who.owner_key),
    )
    assert answer.status_code == 200, answer.text


def until(stream: EventStream, opportunity_id: str) -> list[Frame]:
    """The frames before the fence: the first one of `opportunity_id`, a fence's."""
    frames = []
    while (frame := stream.next_frame()).data.get("opportunity_id") != opportunity_id:
        frames.append(frame)
    return frames


def until_message(stream: EventStream, message_id: str) -> list[Frame]:
    frames = []
    while (frame := stream.next_frame()).data.get("message_id") != message_id:
        frames.append(frame)
    return frames


def kinds(frames: list[Frame]) -> list[str]:
    return [frame.event for frame in frames]


def assert_well_formed(frames: list[Frame]) -> None:
    """Named for their type, in the store's order, holding only what their type may."""
    ids = [frame.id for frame in frames]
    assert ids == sorted(set(ids)), ids
    for frame in frames:
        assert frame.event == frame.data["type"], frame.raw
        assert set(frame.data) == KEYS[frame.event], frame.raw
        assert not any(text in frame.raw for text in PRIVATE), frame.raw


def test_each_event_reaches_both_principals_or_the_other_seat_and_no_one_else(
    client: httpx.Client, ada: Principal, bob: Principal, cy: Principal, dan: Principal
) -> None:
    with ExitStack() as stack:
        streams = {
            (who.name, level): stack.enter_context(events(client, getattr(who, f"{level}_key")))
            for who in (ada, bob, cy)
            for level in ("owner", "agent")
        }
        opened = open_pair(client, ada, bob, context=CONTEXT)
        opportunity_id = opened["opportunity_id"]
        chat = client.post(
            f"/api/intents/{opened['your_intent_id']}/chat",
            json={"message": CHAT},
            headers=key(ada.owner_key),
        )
        assert chat.status_code == 201, chat.text
        took(client, ada, opportunity_id, action="propose", message="Saturdays?",
             expected_turn_count=0)  # fmt: skip
        took(client, bob, opportunity_id, action="accept", message="Yes",
             expected_turn_count=1)  # fmt: skip
        decided(client, ada, opportunity_id, "accepted")  # still pending: nothing to tell
        decided(client, bob, opportunity_id, "accepted")
        fences = {who.name: open_pair(client, who, dan)["opportunity_id"] for who in (ada, bob, cy)}

        seen = {
            audience: until(stream, fences[audience[0]]) for audience, stream in streams.items()
        }
    for frames in seen.values():
        assert_well_formed(frames)
        assert {frame.data.get("opportunity_id") for frame in frames} <= {opportunity_id, None}
    assert kinds(seen["ada", "owner"]) == [
        "opportunity.changed",
        "principal.message",  # ada wrote in her intent's chat: no pair waits between rounds
        "negotiation.changed",  # ada's propose; its turn goes to bob only
        "negotiation.turn",
        "negotiation.settled",
        "negotiation.changed",
        "opportunity.changed",  # pending: the agents agreed
        "opportunity.changed",  # accepted: bob accepted too (ada's own acceptance told none)
    ]
    assert kinds(seen["bob", "owner"]) == [
        "opportunity.changed",
        "negotiation.turn",
        "negotiation.changed",
        "negotiation.settled",
        "negotiation.changed",
        "opportunity.changed",
        "opportunity.changed",
    ]
    for who in ("ada", "bob"):
        statuses = [
            f.data["status"] for f in seen[who, "owner"] if f.event == "opportunity.changed"
        ]
        assert statuses == ["negotiating", "pending", "accepted"]
        assert [f.data for f in seen[who, "agent"]] == [f.data for f in seen[who, "owner"]]
    turns = [f.data["turn"] for f in seen["bob", "owner"] if f.event == "negotiation.turn"]
    assert [(t["seat"], t["action"], t["message"]) for t in turns] == [
        ("initiator", "propose", "Saturdays?")
    ]
    assert seen["cy", "owner"] == seen["cy", "agent"] == []


def test_a_round_over_and_a_rejection_while_the_agents_talk_reach_both(
    client: httpx.Client, ada: Principal, bob: Principal, dan: Principal
) -> None:
    opportunity_id = open_pair(client, ada, bob)["opportunity_id"]
    took(client, ada, opportunity_id, action="propose", message="Saturdays?",
         expected_turn_count=0)  # fmt: skip
    took(client, bob, opportunity_id, action="decline", message="No",
         expected_turn_count=1)  # fmt: skip
    decided(client, bob, opportunity_id, "rejected")
    fences = {who.name: open_pair(client, who, dan)["opportunity_id"] for who in (ada, bob)}
    for who in (ada, bob):
        with events(client, who.agent_key) as stream:
            frames = until(stream, fences[who.name])
        assert_well_formed(frames)
        told = [(f.event, f.data.get("reason"), f.data.get("outcome")) for f in frames]
        assert told[-5:] == [
            ("negotiation.round_over", "decline", None),
            ("negotiation.changed", None, None),
            ("negotiation.settled", None, "closed"),  # bob decided while they talked
            ("negotiation.changed", None, "closed"),
            ("opportunity.changed", None, None),
        ]
        assert frames[-1].data["status"] == "rejected"


def test_questions_reach_their_own_seat_and_the_asking_only_its_owner(
    client: httpx.Client, ada: Principal, bob: Principal, dan: Principal
) -> None:
    opportunity_id = open_pair(client, ada, bob)["opportunity_id"]
    url = f"/api/opportunities/{opportunity_id}/negotiation/questions"
    asked = client.post(
        url, json={"questions": [{"question": QUESTION, "why": WHY}]}, headers=key(ada.agent_key)
    )
    assert asked.status_code == 201, asked.text
    question_id = asked.json()["questions"][0]["question_id"]
    answered = client.post(
        f"{url}/{question_id}/answer", json={"answer": ANSWER}, headers=key(ada.owner_key)
    )
    assert answered.status_code == 200, answered.text
    fences = {who.name: open_pair(client, who, dan)["opportunity_id"] for who in (ada, bob)}
    seen: dict[tuple[str, str], list[Frame]] = {}
    for who in (ada, bob):
        for level in ("owner", "agent"):
            with events(client, getattr(who, f"{level}_key")) as stream:
                seen[who.name, level] = until(stream, fences[who.name])
    for frames in seen.values():
        assert_well_formed(frames)
    questions = {
        audience: [(f.event, f.data["question_ids"]) for f in frames if "question_ids" in f.data]
        for audience, frames in seen.items()
    }
    assert questions == {
        ("ada", "owner"): [
            ("questions.asked", [question_id]),
            ("questions.answered", [question_id]),
        ],
        ("ada", "agent"): [("questions.answered", [question_id])],
        ("bob", "owner"): [],
        ("bob", "agent"): [],
    }


def chat(client: httpx.Client, token: str, intent_id: str, message: str) -> str:
    said = client.post(
        f"/api/intents/{intent_id}/chat", json={"message": message}, headers=key(token)
    )
    assert said.status_code == 201, said.text
    message_id: str = said.json()["message"]["message_id"]
    return message_id


def test_a_principal_message_reaches_only_its_own_principal_at_every_level(
    client: httpx.Client, ada: Principal, bob: Principal, dan: Principal
) -> None:
    """The owner's chat message, never its text, naming the negotiations it may resume: those
    waiting between rounds. An agent's message tells nobody."""
    opened = open_pair(client, ada, bob)
    paused, intent_id = opened["opportunity_id"], opened["your_intent_id"]
    took(client, ada, paused, action="decline", message="Not now", expected_turn_count=0)
    talking = open_pair(client, ada, bob)
    chat(client, ada.agent_key, intent_id, "An agent's note")
    message_id = chat(client, ada.owner_key, intent_id, CHAT)
    assert talking["your_intent_id"] != intent_id  # the other pair follows another intent
    fences = {who.name: open_pair(client, who, dan)["opportunity_id"] for who in (ada, bob)}
    for level in ("owner", "agent"):
        with events(client, getattr(ada, f"{level}_key")) as stream:
            frames = until(stream, fences["ada"])
        assert_well_formed(frames)
        told = [(f.event, f.data) for f in frames if f.event == "principal.message"]
        assert told == [
            (
                "principal.message",
                {
                    "type": "principal.message",
                    "intent_id": intent_id,
                    "message_id": message_id,
                    "paused": [paused],
                },
            )
        ]
    with events(client, bob.owner_key) as stream:
        assert "principal.message" not in kinds(until(stream, fences["bob"]))


def test_an_archive_tells_both_principals_their_opportunity_expired(
    client: httpx.Client, ada: Principal, bob: Principal, dan: Principal
) -> None:
    opened = open_pair(client, ada, bob)
    archived = client.patch(
        f"/api/intents/{opened['your_intent_id']}",
        json={"status": "archived"},
        headers=key(ada.owner_key),
    )
    assert archived.status_code == 200, archived.text
    fences = {who.name: open_pair(client, who, dan)["opportunity_id"] for who in (ada, bob)}
    for who in (ada, bob):
        with events(client, who.agent_key) as stream:
            frames = until(stream, fences[who.name])
        assert_well_formed(frames)
        told = [(f.event, f.data.get("status"), f.data.get("outcome")) for f in frames]
        assert told[-3:] == [
            ("negotiation.settled", None, "closed"),
            ("negotiation.changed", None, "closed"),
            ("opportunity.changed", "expired", None),
        ]


def test_a_stream_resumes_after_its_last_event_id_and_takes_an_x_api_key(
    client: httpx.Client, ada: Principal, bob: Principal, dan: Principal
) -> None:
    opportunity_id = open_pair(client, ada, bob)["opportunity_id"]
    took(client, ada, opportunity_id, action="propose", message="Saturdays?",
         expected_turn_count=0)  # fmt: skip
    took(client, bob, opportunity_id, action="accept", message="Yes",
         expected_turn_count=1)  # fmt: skip
    fence = open_pair(client, ada, dan)["opportunity_id"]
    with events(client, ada.owner_key) as stream:
        every = until(stream, fence)
    assert len(every) == 6
    with events(client, ada.agent_key, str(every[2].id), header="x-api-key") as stream:
        rest = until(stream, fence)
    assert [(f.id, f.event, f.data) for f in rest] == [(f.id, f.event, f.data) for f in every[3:]]
    with events(client, ada.owner_key, str(every[-1].id)) as stream:
        assert until(stream, fence) == []


@pytest.mark.parametrize(
    "last_event_id",
    [
        pytest.param("abc", id="not_a_number"),
        pytest.param("-1", id="negative"),
        pytest.param("9223372036854775808", id="past_64_bits"),
    ],
)
def test_a_last_event_id_no_stream_could_have_sent_is_refused(
    client: httpx.Client, ada: Principal, last_event_id: str
) -> None:
    answer = client.get(
        "/api/events", headers=key(ada.owner_key) | {"Last-Event-ID": last_event_id}
    )
    assert assert_error(answer, "invalid_request")["fields"].keys() == {"Last-Event-ID"}


@pytest.mark.parametrize(
    ("headers", "code"),
    [
        pytest.param({}, "unauthenticated", id="no_key"),
        pytest.param({"Authorization": "Bearer acc_ok_unknown"}, "unauthenticated", id="unknown"),
    ],
)
def test_a_stream_needs_a_principals_key(
    client: httpx.Client, headers: dict[str, str], code: str
) -> None:
    assert_error(client.get("/api/events", headers=headers), code)


def test_a_replaced_agent_key_hears_nothing_more(
    client: httpx.Client, principals: Principals, ada: Principal, bob: Principal
) -> None:
    opportunity_id = open_pair(client, ada, bob)["opportunity_id"]
    with events(client, ada.agent_key) as stream:
        assert stream.next_frame().data["status"] == "negotiating"
        new_key = principals.agent_key(ada.name, "default")["agent_key"]
        answer = client.post(
            f"/api/opportunities/{opportunity_id}/negotiation/turns",
            json={"action": "propose", "message": "Saturdays?", "expected_turn_count": 0},
            headers=key(new_key),
        )
        assert answer.status_code == 200, answer.text
        with pytest.raises(AssertionError, match="the event stream ended"):
            stream.next_frame()
    assert_error(client.get("/api/events", headers=key(ada.agent_key)), "unauthenticated")
    with events(client, new_key) as stream:
        assert kinds(stream.take(2)) == ["opportunity.changed", "negotiation.changed"]

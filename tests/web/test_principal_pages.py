"""A principal's pages: sign in with the owner key, the introductions in words, the other side
layer by layer with the closed layers saying only what opens them, the agents' turns quoted as
text, the person's own decision, and the answer to their agent's question."""

import re

import httpx

from accord.app.principals import Principals
from accord.store.database import Database
from tests.conftest import LiveServer
from tests.intro.conftest import key, post_intent
from tests.intro.test_turns_http import opened, took
from tests.principals.conftest import Principal


def _principal(server: LiveServer, name: str) -> Principal:
    db = Database(server.settings.database, apply_migrations=False)
    try:
        made = Principals(db, clock=server.clock).create(name)
    finally:
        db.close()
    return Principal(made["principal_id"], name, made["owner_key"], made["agent_key"])


def test_a_person_reads_an_introduction_answers_and_decides(server: LiveServer) -> None:
    ada, bob = _principal(server, "ada-web"), _principal(server, "bob-web")
    with server.client() as api:
        opportunity_id = opened(api, ada, bob)
        took(
            api, ada.agent_key, opportunity_id,
            action="propose", message="<i>Saturday</i> rehearsals?", expected_turn_count=0,
        )  # fmt: skip
        asked = api.post(
            f"/api/opportunities/{opportunity_id}/negotiation/questions",
            json={"questions": [{"question": "Mornings?", "options": ["yes", "no"],
                                 "why": "They rehearse on Saturdays"}]},
            headers=key(ada.agent_key),
        )  # fmt: skip
        assert asked.status_code == 201, asked.text
        took(
            api, bob.agent_key, opportunity_id,
            action="accept", message="Yes", expected_turn_count=1,
        )  # fmt: skip
    with httpx.Client(base_url=server.url, headers={"Origin": server.url}, timeout=30) as person:
        assert person.get("/opportunities").status_code == 401
        assert person.post("/login", data={"secret": ada.agent_key}).status_code == 403
        signed = person.post("/login", data={"secret": ada.owner_key})
        assert signed.status_code == 303 and signed.headers["location"] == "/opportunities"
        listed = person.get("/opportunities").text
        assert f'href="/opportunities/{opportunity_id}"' in listed
        assert "The agents agree it is worth it" in listed
        page = person.get(f"/opportunities/{opportunity_id}").text
        assert "&lt;i&gt;Saturday&lt;/i&gt;" in page and "<i>Saturday</i>" not in page
        assert "A string quartet in Lyon" in page  # their statement: the pair was mutual
        assert "Who they are opens once you both accept the introduction." in page
        question = re.search(r'action="(/opportunities/[^"]+/questions/[^"]+)"', page)
        assert question is not None
        answered = person.post(question.group(1), data={"answer": "yes"})
        assert answered.status_code == 303, answered.text
        assert "Your agent asks you" not in person.get(f"/opportunities/{opportunity_id}").text
        decided = person.post(
            f"/opportunities/{opportunity_id}/decision", data={"status": "accepted"}
        )
        assert decided.status_code == 303
        assert "Your decision: accepted." in person.get(f"/opportunities/{opportunity_id}").text
        wrong = person.post(f"/opportunities/{opportunity_id}/decision", data={"status": "maybe"})
        assert wrong.status_code in (400, 409) and "error-summary" in wrong.text
    with httpx.Client(base_url=server.url, timeout=30) as stranger:
        stranger.cookies.set("acc_principal", bob.owner_key)
        theirs = stranger.get(f"/opportunities/{opportunity_id}")
        assert theirs.status_code == 200 and "Your decision: not yet." in theirs.text


def test_a_person_talks_to_their_agent_in_an_intents_chat(server: LiveServer) -> None:
    ada, bob = _principal(server, "ada-chat"), _principal(server, "bob-chat")
    with server.client() as api:
        intent_id = post_intent(api, ada, "A cellist for a quartet in Lyon")["intent_id"]
        theirs = post_intent(api, bob, "A quartet in Lyon")["intent_id"]
        said = api.post(
            f"/api/intents/{intent_id}/chat",
            json={"message": "Found two <b>quartets</b>"},
            headers=key(ada.agent_key),
        )
        assert said.status_code == 201, said.text
    with httpx.Client(base_url=server.url, headers={"Origin": server.url}, timeout=30) as person:
        assert person.get(f"/intents/{intent_id}/chat").status_code == 401  # not signed in
        person.post("/login", data={"secret": ada.owner_key})
        page = person.get(f"/intents/{intent_id}/chat").text
        assert "Your agent</strong>" in page and "Found two &lt;b&gt;quartets&lt;/b&gt;" in page
        sent = person.post(f"/intents/{intent_id}/chat", data={"message": "Saturdays only"})
        assert sent.status_code == 303 and sent.headers["location"] == f"/intents/{intent_id}/chat"
        page = person.get(f"/intents/{intent_id}/chat").text
        assert "You</strong>" in page and "Saturdays only" in page
        empty = person.post(f"/intents/{intent_id}/chat", data={"message": ""})
        assert empty.status_code == 400 and "error-summary" in empty.text
        assert person.get(f"/intents/{theirs}/chat").status_code == 404  # not hers
    with server.client() as api:
        listed = api.get(f"/api/intents/{intent_id}/chat", headers=key(ada.owner_key)).json()
        assert [m["author"] for m in listed["messages"]] == ["agent", "owner"]

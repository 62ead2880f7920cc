"""Disclosure and privacy as a property, through a real server (spec/intro-api.md, Disclosure,
Discovery, Opportunities, Decisions, Log and receipt).

Each example has three principals of its own on one server: two that may meet (`a`, `b`) and
one outside the pair (`e`), with random visibilities, networks and memberships, texts and
constraints, then random turns, edits, chat, questions, answers, resumes, pauses, archives and
decisions. Every private text carries a marker of its own, and after each step every body a
principal gets (views, lists, log, receipt, questions, errors, discovery, and at the end its
whole event stream) is searched for the markers it may not read. The layers are checked
against two oracles: a model of the rule fed by a mirror of discovery over the same intents,
and what the log's own checks and turns imply (Statement on `mutual`, for an incognito other
side also once both seats engaged; Constraints while Statement is open and `constraint_fit`
holds; Identity once `accepted`; open stays open).
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from accord.app.principals import Principals
from accord.app.settings import Settings
from accord.discovery import Discovery, IntentDoc, Ranking, constraint_fit, constraint_from_json
from accord.store.database import Database
from tests.conftest import FakeClock, _postgres_schema_url, serve_in_thread
from tests.http.support import EventStream
from tests.intro.conftest import JSONBody, key
from tests.principals.conftest import Principal, make_principal

SIDES = ("a", "b")
THEMES = {
    "a": (
        "Cellist wanted for a string quartet rehearsing in Lyon on Saturdays",
        "Python developer wanted to build a booking website",
    ),
    "b": (
        "String quartet in Lyon rehearsing Saturdays needs a cellist",
        "Python developer builds booking websites",
    ),
    "e": ("Violinist in Lyon for a string quartet", "Designer for booking websites"),
}
CONSTRAINTS: tuple[list[JSONBody], ...] = (
    [],
    [{"key": "city", "op": "eq", "value": "lyon"}],
    [{"key": "rate", "op": "between", "value": [40, 60]}],
    [{"key": "city", "op": "eq", "value": "paris"}, {"key": "rate", "op": "gte", "value": 70}],
)
FINAL = ("accepted", "rejected", "expired")
UNKNOWN_INTENT = "int_00000000000000000000"


@dataclass
class Markers:
    """Unique tokens in private texts, each with the principal that owns it."""

    owner: dict[str, str] = field(default_factory=dict)
    counter: itertools.count[int] = field(default_factory=itertools.count)

    def new(self, who: str) -> str:
        marker = f"mkq{next(self.counter):04d}z"
        self.owner[marker] = who
        return marker


@dataclass
class Side:
    principal: Principal
    intent_id: str = ""
    body: JSONBody = field(default_factory=dict)


@dataclass
class World:
    """What the test knows, to say what each principal may see."""

    client: httpx.Client
    people: dict[str, Principal]
    sides: dict[str, Side]
    mirror: Discovery
    networks: dict[str, frozenset[str]]
    markers: Markers
    docs: dict[str, IntentDoc]
    opportunity_id: str | None = None
    seats: dict[str, str] = field(default_factory=dict)
    """side → seat, once opened."""
    engaged: set[str] = field(default_factory=set)
    statement_open: dict[str, bool] = field(default_factory=lambda: dict.fromkeys(SIDES, False))
    constraints_open: dict[str, bool] = field(default_factory=lambda: dict.fromkeys(SIDES, False))
    outcome: str | None = None
    status: str = "negotiating"
    decisions: dict[str, str | None] = field(default_factory=lambda: dict.fromkeys(SIDES, None))
    shared_markers: set[str] = field(default_factory=set)
    """Turn messages in the log: both seats may read them."""
    turn_count: int = 0
    checks: list[JSONBody] = field(default_factory=list)
    """The `checks` the log must hold: at opening, then each change while it is open."""
    questions: dict[str, list[str]] = field(default_factory=lambda: {side: [] for side in SIDES})
    """Each seat's open questions, newest last."""

    def other(self, side: str) -> str:
        return "b" if side == "a" else "a"


# -- the model ------------------------------------------------------------------------------


def checks_now(world: World) -> tuple[bool, bool]:
    a, b = world.sides["a"].intent_id, world.sides["b"].intent_id
    mutual = world.mirror.mutual(a, b, world.networks)
    return mutual, constraint_fit(world.docs[a], world.docs[b])


def disclose(world: World) -> None:
    """One event of the log (checks or a turn): what has now ever held."""
    mutual, fit = checks_now(world)
    for viewer in SIDES:
        other = world.sides[world.other(viewer)].body
        incognito = other["visibility"] == "incognito"
        if mutual and (not incognito or world.engaged == set(SIDES)):
            world.statement_open[viewer] = True
        if world.statement_open[viewer] and fit:
            world.constraints_open[viewer] = True


def expected_counterparty(world: World, viewer: str) -> JSONBody:
    other = world.sides[world.other(viewer)].body
    opened = {
        "statement": world.statement_open[viewer],
        "constraints": world.constraints_open[viewer],
        "identity": world.status == "accepted",
    }
    shown = {name: other[name] for name, is_open in opened.items() if is_open}
    return {"layers": {n: "open" if o else "closed" for n, o in opened.items()}, **shown}


def allowed(world: World, viewer: str) -> set[str]:
    """The markers `viewer` may read now."""
    mine = {m for m, who in world.markers.owner.items() if who == _pid(world, viewer)}
    if viewer in SIDES and world.opportunity_id is not None:
        mine |= world.shared_markers
        if world.status == "accepted":
            other = world.sides[world.other(viewer)].body
            mine |= {m for m in world.markers.owner if m in str(other["identity"])}
    return mine


def hidden_statements(world: World, viewer: str) -> set[str]:
    """Statements of others' intents `viewer` may not read in an opportunity's views."""
    out = {doc.statement for doc in world.docs.values() if doc.principal_id != _pid(world, viewer)}
    if viewer in SIDES and world.statement_open[viewer]:
        out.discard(world.sides[world.other(viewer)].body["statement"])
    own = {d.statement for d in world.docs.values() if d.principal_id == _pid(world, viewer)}
    return out - own


def _pid(world: World, who: str) -> str:
    return world.people[who].principal_id


def assert_private(world: World, viewer: str, answer: httpx.Response, *, statements: bool) -> None:
    text = answer.text
    leaked = {m for m in world.markers.owner if m in text} - allowed(world, viewer)
    assert not leaked, (viewer, answer.request.url, leaked, text)
    if statements:
        shown = {s for s in hidden_statements(world, viewer) if s in text}
        assert not shown, (viewer, answer.request.url, shown, text)


# -- calls ------------------------------------------------------------------------------------


def call(
    world: World, who: str, method: str, url: str, *, owner: bool = False, **kw: Any
) -> httpx.Response:
    person = world.people[who]
    token = person.owner_key if owner else person.agent_key
    return world.client.request(method, url, headers=key(token), **kw)


def post_intent(world: World, who: str, body: JSONBody) -> str:
    made = call(world, who, "POST", "/api/intents", owner=True, json=body)
    assert made.status_code == 201, made.text
    intent: JSONBody = made.json()["intent"]
    world.docs[intent["intent_id"]] = doc_of(world, who, intent)
    world.mirror.upsert(world.docs[intent["intent_id"]])
    return str(intent["intent_id"])


def doc_of(world: World, who: str, intent: JSONBody) -> IntentDoc:
    return IntentDoc(
        intent_id=intent["intent_id"],
        principal_id=_pid(world, who),
        statement=intent["statement"],
        constraints=tuple(constraint_from_json(c) for c in intent["constraints"]),
        visibility=intent["visibility"],
        networks=frozenset(intent["networks"]),
        status=intent["status"],
    )


def check_discovery(world: World, who: str, intent_id: str) -> None:
    """The server's candidates are the mirror's, and none shows what it may not."""
    url = f"/api/intents/{intent_id}/discover"
    answer = call(world, who, "POST", url, json={"limit": 30})
    doc = world.docs[intent_id]
    if doc.visibility != "private" and doc.status != "active":
        assert answer.json()["error"]["code"] == "intent_inactive", answer.text
        assert_private(world, who, answer, statements=True)
        return
    if doc.visibility == "private":
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"]["reason"] == "private_intent"
        assert_private(world, who, answer, statements=True)
        return
    assert answer.status_code == 200, answer.text
    candidates = answer.json()["candidates"]
    assert candidates == world.mirror.candidates(intent_id, world.networks, limit=30)
    shown = set()
    for candidate in candidates:
        other = world.docs[candidate["intent_id"]]
        assert other.visibility != "private"
        assert other.principal_id != doc.principal_id
        if other.visibility == "incognito":
            assert candidate["mutual"] is True
        if "statement" in candidate:
            assert candidate["mutual"] and other.visibility != "incognito"
            assert candidate["statement"] == other.statement
            shown.add(other.statement)
        else:
            assert candidate["constraint_fit"] is None
    assert_private(world, who, answer, statements=False)
    queried = call(world, who, "POST", url, json={"limit": 30, "query": "quartet websites"})
    assert queried.json()["candidates"] == world.mirror.candidates(
        intent_id, world.networks, query="quartet websites", limit=30
    )
    # a query reorders only the candidates whose statement is shown
    blind = [c["intent_id"] for c in candidates if "statement" not in c]
    blind_queried = [c["intent_id"] for c in queried.json()["candidates"] if "statement" not in c]
    assert [i for i in blind if i in blind_queried] == [i for i in blind_queried if i in blind]
    others = {d.statement for d in world.docs.values() if d.principal_id != doc.principal_id}
    own = {d.statement for d in world.docs.values() if d.principal_id == doc.principal_id}
    assert not {s for s in others - shown - own if s in answer.text}


def check_strangers(world: World) -> None:
    """Another's intent is `not_found` exactly like an unknown id, on every intent route."""
    for who, target in (("b", "a"), ("e", "b")):
        for intent_id in (world.sides[target].intent_id, world.sides[f"p{target}"].intent_id):
            for method, tail, body in (
                ("GET", "", None),
                ("PATCH", "", {"statement": "x"}),
                ("GET", "/chat", None),
                ("POST", "/chat", {"message": "x"}),
                ("POST", "/discover", {}),
                ("POST", "/opportunities", {"candidates": [UNKNOWN_INTENT]}),
            ):
                answers = [
                    call(world, who, method, f"/api/intents/{i}{tail}", owner=True, json=body)
                    for i in (intent_id, UNKNOWN_INTENT)
                ]
                assert answers[0].status_code == 404, answers[0].text
                assert (answers[0].status_code, answers[0].json()) == (
                    answers[1].status_code,
                    answers[1].json(),
                )


def check_views(world: World, *, every_route: bool = False) -> None:
    """Each seat's view holds exactly its layers; the outsider reads nothing of the pair.
    `every_route` reads the other routes that show the pair too."""
    assert world.opportunity_id is not None
    base = f"/api/opportunities/{world.opportunity_id}"
    for side in SIDES:
        seat = world.seats[side]
        got = call(world, side, "GET", base)
        assert got.status_code == 200, got.text
        assert_private(world, side, got, statements=True)
        body = got.json()
        assert body["counterparty"] == expected_counterparty(world, side)
        opportunity = body["opportunity"]
        assert opportunity["status"] == world.status
        assert opportunity["decisions"] == {
            "yours": world.decisions[side],
            "theirs": world.decisions[world.other(side)] if world.status in FINAL else None,
        }
        assert ("context" in opportunity) == (seat == "initiator")
        if not every_route:
            continue
        for url in (
            base + "/negotiation",
            base + "/negotiation/questions",
            base + "/negotiation/log",
            base + "/negotiation/receipt",
            "/api/opportunities",
            "/api/negotiations",
        ):
            answer = call(world, side, "GET", url)
            assert answer.status_code in (200, 409), answer.text  # 409: a receipt while open
            assert_private(world, side, answer, statements=True)
        logs = [call(world, s, "GET", base + "/negotiation/log").json() for s in SIDES]
        assert logs[0] == logs[1]  # the whole chain, the same for both seats
        check_log(world, side, logs[0]["envelopes"], body["counterparty"]["layers"])
        assert call(world, side, "GET", base + "/negotiation").json()[
            "counterparty"
        ] == expected_counterparty(world, side)
    if not every_route:
        return
    for tail, method in (
        ("", "GET"),
        ("/negotiation", "GET"),
        ("/negotiation/log", "GET"),
        ("/negotiation/receipt", "GET"),
        ("/negotiation/questions", "GET"),
        ("/status", "PATCH"),
    ):
        answer = call(world, "e", method, base + tail, owner=True, json={"status": "accepted"})
        assert answer.status_code == 403, answer.text
        assert_private(world, "e", answer, statements=True)
    assert call(world, "e", "GET", "/api/opportunities").json() == {"opportunities": []}
    assert call(world, "e", "GET", "/api/negotiations").json() == {"negotiations": []}


def layers_from_log(envelopes: list[JSONBody], seat: str, other_incognito: bool) -> JSONBody:
    """Statement and Constraints as the log alone decides them for `seat`: the second
    oracle, independent of the mirror."""
    engaged: set[str] = set()
    mutual = fit = statement = constraints = False
    for envelope in envelopes:
        kind = envelope["type"]
        if kind == "checks":
            mutual, fit = envelope["payload"]["mutual"], envelope["payload"]["constraint_fit"]
        elif kind.startswith("turn."):
            if kind != "turn.decline":
                engaged.add(envelope["sender"]["role"])
        else:
            continue
        statement |= mutual and (not other_incognito or len(engaged) == 2)
        constraints |= statement and fit
    return {"statement": statement, "constraints": constraints}


def check_log(world: World, side: str, envelopes: list[JSONBody], layers: JSONBody) -> None:
    """The log's checks are the ones the rule asks for, its layers are the view's, and it holds
    no principal, intent or decision."""
    assert [e["payload"] for e in envelopes if e["type"] == "checks"] == world.checks
    other = world.sides[world.other(side)].body
    expected = layers_from_log(envelopes, world.seats[side], other["visibility"] == "incognito")
    assert {n: layers[n] == "open" for n in expected} == expected
    text = json.dumps(envelopes)
    ids = [p.principal_id for p in world.people.values()]
    ids += [world.sides[s].intent_id for s in SIDES]
    assert not [i for i in ids if i in text]
    assert not [d for d in FINAL if f'"{d}"' in text]


def check_events(world: World) -> None:
    """Each principal's whole event stream (owner level, every event it may get), read up to a
    fence it is sent last: its owner's message in its private intent's chat."""
    for who in ("a", "b", "e"):
        fenced = world.sides[f"p{who}"].intent_id
        message = f"fence {world.markers.new(_pid(world, who))}"
        url = f"/api/intents/{fenced}/chat"
        said = call(world, who, "POST", url, owner=True, json={"message": message})
        assert said.status_code == 201, said.text
        fence = said.json()["message"]["message_id"]
        headers = key(world.people[who].owner_key)
        seen: set[str] = set()
        with world.client.stream("GET", "/api/events", headers=headers, timeout=10) as answer:
            frames = EventStream(answer)
            while True:
                frame = frames.next_frame()
                seen.add(frame.data.get("opportunity_id") or "")
                leaked = {m for m in world.markers.owner if m in frame.raw} - allowed(world, who)
                assert not leaked, (who, frame)
                assert not {s for s in hidden_statements(world, who) if s in frame.raw}, frame
                if who == "e":
                    assert frame.data.get("opportunity_id") is None, frame
                if frame.data.get("message_id") == fence:
                    break
        assert (world.opportunity_id in seen) == (who in SIDES and world.opportunity_id is not None)


# -- the steps --------------------------------------------------------------------------------


def take_turn(world: World, side: str, action: str) -> None:
    message = f"{action} {world.markers.new(_pid(world, side))}"
    url = f"/api/opportunities/{world.opportunity_id}/negotiation/turns"
    body = {"action": action, "message": message, "expected_turn_count": world.turn_count}
    answer = call(world, side, "POST", url, json=body)
    assert_private(world, side, answer, statements=False)
    if answer.status_code != 200:
        return
    world.shared_markers.add(message.split()[-1])
    world.turn_count += 1
    if action != "decline":
        world.engaged.add(side)
    negotiation = answer.json()["negotiation"]
    world.outcome = negotiation["outcome"]
    if world.outcome == "agreed" and world.status == "negotiating":
        world.status = "pending"
    disclose(world)
    assert answer.json()["counterparty"] == expected_counterparty(world, side)


def edit(world: World, side: str, statement: int | None, constraints: int | None) -> None:
    current = world.sides[side]
    patch: JSONBody = {}
    if statement is not None:
        patch["statement"] = THEMES[side][statement]
    if constraints is not None:
        patch["constraints"] = CONSTRAINTS[constraints]
    url = f"/api/intents/{current.intent_id}"
    answer = call(world, side, "PATCH", url, owner=True, json=patch)
    if current.body["status"] == "archived":
        assert answer.status_code == 409, answer.text
        return
    assert answer.status_code == 200, answer.text
    following = world.opportunity_id is not None and world.outcome is None
    before = checks_now(world) if following else None
    take(world, side, answer.json()["intent"])
    # spec, Opportunities: rechecked after each edit while the negotiation is open
    if following and checks_now(world) != before:
        event("an edit changed the checks")
        world.checks.append(dict(zip(("mutual", "constraint_fit"), checks_now(world), strict=True)))
        disclose(world)


def take(world: World, side: str, intent: JSONBody) -> None:
    current = world.sides[side]
    current.body = intent
    world.docs[current.intent_id] = doc_of(world, side, intent)
    world.mirror.upsert(world.docs[current.intent_id])


def set_status(world: World, side: str, status: str) -> None:
    """Pausing changes nothing but discovery and turns; archiving closes the negotiation and
    expires an opportunity that is not final (spec, Intents)."""
    current = world.sides[side]
    url = f"/api/intents/{current.intent_id}"
    answer = call(world, side, "PATCH", url, owner=True, json={"status": status})
    assert_private(world, side, answer, statements=True)
    if current.body["status"] == "archived":
        assert answer.status_code == 409, answer.text
        return
    assert answer.status_code == 200, answer.text
    take(world, side, answer.json()["intent"])
    if status == "archived" and world.opportunity_id is not None:
        world.outcome = world.outcome or "closed"
        if world.status not in FINAL:
            world.status = "expired"


def ask(world: World, side: str) -> None:
    url = f"/api/opportunities/{world.opportunity_id}/negotiation/questions"
    q, why, *options = (world.markers.new(_pid(world, side)) for _ in range(4))
    question = {"question": f"q {q}", "why": f"why {why}", "options": options}
    answer = call(world, side, "POST", url, json={"questions": [question]})
    assert_private(world, side, answer, statements=True)
    if answer.status_code == 201:
        world.questions[side] += [q["question_id"] for q in answer.json()["questions"]]


def answer_question(world: World, side: str) -> None:
    if not world.questions[side]:
        return
    question_id = world.questions[side].pop()
    url = f"/api/opportunities/{world.opportunity_id}/negotiation/questions/{question_id}/answer"
    body = {"answer": f"a {world.markers.new(_pid(world, side))}"}
    answer = call(world, side, "POST", url, owner=True, json=body)
    assert_private(world, side, answer, statements=True)
    other = call(world, world.other(side), "POST", url, owner=True, json=body)
    unknown_url = url.replace(question_id, "q_unknown")
    unknown = call(world, world.other(side), "POST", unknown_url, owner=True, json=body)
    assert other.status_code == 404, other.text  # another seat's question, as an unknown one
    assert other.json() == unknown.json()
    assert_private(world, world.other(side), other, statements=True)


def resume(world: World, side: str) -> None:
    url = f"/api/opportunities/{world.opportunity_id}/negotiation/resume"
    body = {"brief": f"brief {world.markers.new(_pid(world, side))}"}
    answer = call(world, side, "POST", url, json=body)
    assert_private(world, side, answer, statements=True)
    if answer.status_code == 200:
        assert answer.json()["counterparty"] == expected_counterparty(world, side)


def chat(world: World, side: str) -> None:
    url = f"/api/intents/{world.sides[side].intent_id}/chat"
    message = f"note {world.markers.new(_pid(world, side))}"
    answer = call(world, side, "POST", url, owner=True, json={"message": message})
    archived = world.sides[side].body.get("status") == "archived"
    assert answer.status_code == (409 if archived else 201), answer.text


def decide(world: World, side: str, status: str) -> None:
    url = f"/api/opportunities/{world.opportunity_id}/status"
    answer = call(world, side, "PATCH", url, owner=True, json={"status": status})
    assert_private(world, side, answer, statements=True)
    if world.status in FINAL:
        assert answer.status_code == 409, answer.text
        return
    assert answer.status_code == 200, answer.text
    if world.outcome is None:
        world.outcome = "closed"
    repeated = status == "accepted" and world.decisions[side] == "accepted"
    if not repeated:
        world.decisions[side] = status
        other = world.decisions[world.other(side)]
        world.status = (
            status if status != "accepted" else "accepted" if other == "accepted" else "pending"
        )


# -- the example ------------------------------------------------------------------------------

visibilities = st.sampled_from(["public", "network", "incognito", "incognito", "private"])
steps = st.lists(
    st.one_of(
        st.tuples(
            st.just("turn"),
            st.sampled_from(SIDES),
            st.sampled_from(["propose", "counter", "accept", "decline"]),
        ),
        st.tuples(
            st.just("edit"),
            st.sampled_from(SIDES),
            st.none() | st.integers(0, 1),
            st.none() | st.integers(0, 3),
        ).filter(lambda step: step[2:] != (None, None)),
        st.tuples(st.sampled_from(["chat", "ask", "answer", "resume"]), st.sampled_from(SIDES)),
        st.tuples(
            st.just("decide"), st.sampled_from(SIDES), st.sampled_from(["accepted", *FINAL[1:]])
        ),
        st.tuples(
            st.just("status"),
            st.sampled_from(SIDES),
            st.sampled_from(["paused", "active", "archived"]),
        ),
    ),
    max_size=6,
)


@dataclass(frozen=True)
class Scenario:
    visibility: dict[str, str]
    joined: dict[str, bool]
    """Whether b and e joined a's network."""
    theme: dict[str, int]
    constraints: dict[str, int]
    opener: str
    steps: list[tuple[Any, ...]]
    introduced: bool
    """Whether both people accept after the steps (an introduction is rare by chance)."""


scenarios = st.builds(
    Scenario,
    visibility=st.fixed_dictionaries(
        {"a": visibilities, "b": visibilities, "e": visibilities.filter(lambda v: v != "private")}
    ),
    joined=st.fixed_dictionaries({"b": st.booleans(), "e": st.booleans()}),
    theme=st.fixed_dictionaries({s: st.sampled_from([0, 0, 1]) for s in ("a", "b", "e")}),
    constraints=st.fixed_dictionaries({s: st.integers(0, 3) for s in ("a", "b", "e")}),
    opener=st.sampled_from(SIDES),
    steps=steps,
    introduced=st.booleans(),
)


@dataclass
class Corpus:
    """One server for the test, and what the test knows of every intent in its store (the
    mirror needs them all: each one changes the BM25 scores); each example has principals of
    its own."""

    client: httpx.Client
    principals: Principals
    mirror: Discovery = field(default_factory=Discovery)
    networks: dict[str, frozenset[str]] = field(default_factory=dict)
    markers: Markers = field(default_factory=Markers)
    docs: dict[str, IntentDoc] = field(default_factory=dict)
    examples: itertools.count[int] = field(default_factory=itertools.count)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Corpus]:
    data_dir = tmp_path_factory.mktemp("disclosure") / "data"
    base = os.environ.get("ACCORD_TEST_DATABASE_URL")
    urls = _postgres_schema_url(base) if base else iter([f"sqlite:///{data_dir}/accord.db"])
    live = Settings(data_dir=data_dir, database_url=next(urls), ranking=Ranking.LEXICAL)
    try:
        db = Database(live.database)
        with serve_in_thread(live, FakeClock()) as server, server.client() as client:
            yield Corpus(client, Principals(db, clock=FakeClock()))
        db.close()
    finally:
        for _ in urls:  # drops the PostgreSQL schema
            pass


def setup(corpus: Corpus, scenario: Scenario) -> World:
    n = next(corpus.examples)
    people = {who: make_principal(corpus.principals, f"{who}{n}") for who in ("a", "b", "e")}
    corpus.networks |= {p.principal_id: frozenset() for p in people.values()}
    world = World(
        client=corpus.client,
        people=people,
        sides={},
        mirror=corpus.mirror,
        networks=corpus.networks,
        markers=corpus.markers,
        docs=corpus.docs,
    )
    made = call(world, "a", "POST", "/api/networks", owner=True, json={"name": "quartets"})
    shared, code = made.json()["network_id"], made.json()["invite_code"]
    world.markers.owner[code] = _pid(world, "a")  # shown once, to the network's creator
    world.networks[_pid(world, "a")] = frozenset({shared})
    for who in ("b", "e"):
        if scenario.joined[who]:
            joined = call(
                world, who, "POST", "/api/networks/join", owner=True, json={"invite_code": code}
            )
            assert joined.status_code == 200, joined.text
            world.networks[_pid(world, who)] = frozenset({shared})
    for who in ("a", "b", "e"):
        network = [shared] if world.networks[_pid(world, who)] else []
        if not network and scenario.visibility[who] == "network":
            own = call(world, who, "POST", "/api/networks", owner=True, json={"name": who})
            network = [own.json()["network_id"]]
            world.networks[_pid(world, who)] |= frozenset(network)
        visibility = scenario.visibility[who]
        body = {
            "statement": THEMES[who][scenario.theme[who]],
            "constraints": CONSTRAINTS[scenario.constraints[who]],
            "identity": {"display_name": f"{who} {world.markers.new(_pid(world, who))}"},
            "visibility": visibility,
            "networks": network if visibility == "network" else [],
        }
        intent_id = post_intent(world, who, body)
        world.sides[who] = Side(
            people[who],
            intent_id,
            call(world, who, "GET", f"/api/intents/{intent_id}").json()["intent"],
        )
        private = {
            "statement": f"Private notes {world.markers.new(_pid(world, who))}",
            "constraints": [
                {"key": "floor", "op": "eq", "value": world.markers.new(_pid(world, who))}
            ],
            "identity": {"contact": world.markers.new(_pid(world, who))},
            "visibility": "private",
        }
        private_id = post_intent(world, who, private)
        world.sides[f"p{who}"] = Side(people[who], private_id, {})
        chat(world, who)
    return world


def open_pair(world: World, opener: str) -> None:
    responder = world.other(opener)
    mine, theirs = world.sides[opener].intent_id, world.sides[responder].intent_id
    url = f"/api/intents/{mine}/opportunities"
    context = f"context {world.markers.new(_pid(world, opener))}"
    answer = call(world, opener, "POST", url, json={"candidates": [theirs], "context": context})
    assert_private(world, opener, answer, statements=True)
    unknown = call(world, opener, "POST", url, json={"candidates": [UNKNOWN_INTENT]})
    private = world.sides[f"p{responder}"].intent_id
    hidden = call(world, opener, "POST", url, json={"candidates": [private]})
    if world.docs[mine].visibility == "private":
        assert answer.json()["error"]["reason"] == "private_intent", answer.text
        return
    assert (hidden.status_code, hidden.json()) == (unknown.status_code, unknown.json())
    may = world.mirror.opening(mine, theirs, world.networks) is not None
    if not may:
        assert (answer.status_code, answer.json()) == (unknown.status_code, unknown.json())
        return
    assert answer.status_code == 200, answer.text
    world.opportunity_id = answer.json()["opportunities"][0]["opportunity_id"]
    world.seats = {opener: "initiator", responder: "responder"}
    world.checks.append(dict(zip(("mutual", "constraint_fit"), checks_now(world), strict=True)))
    disclose(world)


@settings(max_examples=25, derandomize=True)
@given(scenario=scenarios)
def test_no_principal_reads_what_is_not_open_to_it(corpus: Corpus, scenario: Scenario) -> None:
    world = setup(corpus, scenario)
    for who in ("a", "b", "e"):
        check_discovery(world, who, world.sides[who].intent_id)
        check_discovery(world, who, world.sides[f"p{who}"].intent_id)
    check_strangers(world)
    open_pair(world, scenario.opener)
    if world.opportunity_id is None:
        open_pair(world, world.other(scenario.opener))
    if world.opportunity_id is None:
        check_events(world)
        return
    event(f"opened, {world.sides['a'].body['visibility']}/{world.sides['b'].body['visibility']}")
    check_views(world, every_route=True)
    for step in scenario.steps:
        match step:
            case ("turn", side, action):
                take_turn(world, side, action)
            case ("edit", side, statement, constraints):
                edit(world, side, statement, constraints)
            case ("chat", side):
                chat(world, side)
            case ("ask", side):
                ask(world, side)
            case ("answer", side):
                answer_question(world, side)
            case ("resume", side):
                resume(world, side)
            case ("decide", side, status):
                decide(world, side, status)
            case ("status", side, status):
                set_status(world, side, status)
        check_views(world)
    if scenario.introduced:
        for side in SIDES:
            decide(world, side, "accepted")
            check_views(world)
    check_views(world, every_route=True)
    for who in ("a", "b", "e"):
        check_discovery(world, who, world.sides[who].intent_id)
    check_events(world)
    event(f"layers open for a: {sorted(expected_counterparty(world, 'a'))}")
    event(f"final status {world.status}")

"""The candidate rules of the spec's Discovery table, one test per row."""

import pytest

from accord.discovery import Constraint, Discovery, IntentDoc

NETWORKS = {"me": frozenset({"club"}), "friend": frozenset({"club"})}
TEXT = "senior python developer job berlin"


def make(*docs: IntentDoc, threshold: float = 0.5) -> Discovery:
    discovery = Discovery(mutual_threshold=threshold)
    for doc in docs:
        discovery.upsert(doc)
    return discovery


def mine(text: str = TEXT, **kw) -> IntentDoc:
    return IntentDoc("a", "me", text, **kw)


def ids(discovery: Discovery, **kw) -> list[str]:
    return [c["intent_id"] for c in discovery.candidates("a", NETWORKS, **kw)]


def test_only_visible_intents_with_a_lexical_score_above_zero() -> None:
    discovery = make(
        mine(),
        IntentDoc("own", "me", TEXT),
        IntentDoc("paused", "other", TEXT, status="paused"),
        IntentDoc("archived", "other", TEXT, status="archived"),
        IntentDoc("private", "other", TEXT, visibility="private"),
        IntentDoc("stranger_net", "other", TEXT, visibility="network", networks=frozenset({"x"})),
        IntentDoc("club_net", "friend", TEXT, visibility="network", networks=frozenset({"club"})),
        IntentDoc("unrelated", "other", "selling used bike"),
        IntentDoc("public", "other", "python job"),
    )
    assert ids(discovery) == ["club_net", "public"]


def test_a_paused_intent_stays_in_the_statistics() -> None:
    paused = make(mine(), IntentDoc("b", "o", "python"), IntentDoc("p", "o", TEXT, status="paused"))
    removed = make(mine(), IntentDoc("b", "o", "python"))
    assert paused.lexical("a", "b") != removed.lexical("a", "b")


def test_best_first_ties_by_intent_id_and_limit() -> None:
    discovery = make(
        mine(),
        IntentDoc("z", "o", TEXT),
        IntentDoc("m", "o", TEXT),
        IntentDoc("c", "o", "python developer"),
        IntentDoc("b", "o", "python"),
    )
    assert ids(discovery) == ["m", "z", "c", "b"]
    assert ids(discovery, limit=2) == ["m", "z"]


def test_mutual_gives_statement_and_fit_else_neither() -> None:
    fit = (Constraint("city", "eq", "Berlin"),)
    discovery = make(
        mine(constraints=fit),
        IntentDoc("twin", "o", TEXT, (Constraint("city", "in", ("Berlin", "Rome")),)),
        IntentDoc("far", "o", "python"),
    )
    twin, far = discovery.candidates("a", NETWORKS)
    assert twin == {
        "intent_id": "twin",
        "score": twin["score"],
        "mutual": True,
        "constraint_fit": True,
        "statement": TEXT,
    }
    assert far == {
        "intent_id": "far",
        "score": far["score"],
        "mutual": False,
        "constraint_fit": None,
    }


def test_incognito_only_when_mutual_and_never_its_statement() -> None:
    discovery = make(
        mine(),
        IntentDoc("twin", "o", TEXT, visibility="incognito"),
        IntentDoc("far", "o", "python", visibility="incognito"),
    )
    assert discovery.candidates("a", NETWORKS) == [
        {"intent_id": "twin", "score": 1.0, "mutual": True, "constraint_fit": None}
    ]


def test_mutual_needs_each_to_reach_the_other() -> None:
    discovery = make(
        mine(visibility="network", networks=frozenset({"club"})), IntentDoc("b", "stranger", TEXT)
    )
    assert discovery.score("a", "b") == 1.0
    assert not discovery.mutual("a", "b", NETWORKS)
    assert discovery.mutual("a", "b", {**NETWORKS, "stranger": frozenset({"club"})})


def test_mutual_needs_both_directions_over_the_threshold() -> None:
    discovery = make(mine("python"), IntentDoc("b", "o", TEXT), threshold=0.5)
    assert discovery.score("a", "b") >= 0.5 > discovery.score("b", "a")
    assert not discovery.mutual("a", "b", NETWORKS)


def test_a_query_puts_given_statements_sharing_a_token_first() -> None:
    discovery = make(
        mine("python developer job berlin munich"),
        IntentDoc("b", "o", "python developer job berlin"),
        IntentDoc("c", "o", "python developer job munich"),
        IntentDoc("d", "o", "python"),
    )
    plain = discovery.candidates("a", NETWORKS)
    queried = discovery.candidates("a", NETWORKS, query="Munich")
    assert [c["intent_id"] for c in plain] == ["b", "c", "d"]
    assert [c["intent_id"] for c in queried] == ["c", "b", "d"]
    assert sorted(plain, key=lambda c: c["intent_id"]) == sorted(
        queried, key=lambda c: c["intent_id"]
    )
    assert [c["intent_id"] for c in discovery.candidates("a", NETWORKS, query="x", limit=1)] == [
        "b"
    ]
    assert [
        c["intent_id"] for c in discovery.candidates("a", NETWORKS, query="munich", limit=1)
    ] == ["c"]


def test_an_inactive_intent_does_not_discover() -> None:
    discovery = make(mine(status="paused"), IntentDoc("b", "o", TEXT))
    with pytest.raises(ValueError, match="paused"):
        discovery.candidates("a", NETWORKS)


def test_edits_and_archiving_update_the_index() -> None:
    discovery = make(mine(), IntentDoc("b", "o", "selling bike"))
    assert ids(discovery) == []
    discovery.upsert(IntentDoc("b", "o", "python job"))
    assert ids(discovery) == ["b"]
    discovery.upsert(IntentDoc("b", "o", "python job", status="archived"))
    assert ids(discovery) == [] and "b" not in discovery
    discovery.upsert(IntentDoc("c", "o", "python job"))
    discovery.remove("c")
    assert ids(discovery) == []

"""Invariants of discovery over random corpora."""

from hypothesis import given, settings
from hypothesis import strategies as st

from accord.discovery import Discovery, IntentDoc

WORDS = ["flat", "berlin", "rent", "python", "job", "bike", "tutor", "spanish", "the", "x"]
TEXTS = st.lists(st.sampled_from(WORDS), min_size=1, max_size=10).map(" ".join)
VISIBILITY = st.sampled_from(["public", "network", "incognito"])
DOCS = st.lists(st.tuples(TEXTS, VISIBILITY, st.sampled_from(["p", "q", "r"])), max_size=8)
NETWORKS = {"p": frozenset({"n"}), "q": frozenset({"n"}), "r": frozenset()}


def build(docs, threshold: float = 0.3) -> Discovery:
    discovery = Discovery(mutual_threshold=threshold)
    for i, (text, visibility, principal) in enumerate(docs):
        networks = frozenset({"n"}) if visibility == "network" else frozenset()
        discovery.upsert(IntentDoc(f"i{i}", principal, text, (), visibility, networks))
    return discovery


def all_scores(discovery: Discovery, n: int) -> dict[tuple[str, str], float]:
    return {
        (f"i{a}", f"i{b}"): discovery.score(f"i{a}", f"i{b}") for a in range(n) for b in range(n)
    }


@settings(max_examples=60, deadline=None)
@given(DOCS, TEXTS)
def test_identical_texts_score_one_and_every_score_is_in_0_1(docs, text) -> None:
    discovery = build([*docs, (text, "public", "p"), (text, "public", "q")])
    n = len(docs) + 2
    a, b = f"i{n - 2}", f"i{n - 1}"
    if discovery.index.score(discovery._entries[a].terms, a) > 0:
        assert discovery.score(a, b) == discovery.score(b, a) == 1.0
    assert all(0.0 <= s <= 1.0 for s in all_scores(discovery, n).values())


@settings(max_examples=60, deadline=None)
@given(DOCS, TEXTS, st.sampled_from(["private", "archived"]))
def test_a_private_or_archived_intent_is_no_candidate_and_changes_no_score(docs, text, kind):
    discovery = build(docs)
    before = all_scores(discovery, len(docs))
    hidden = IntentDoc(
        "hidden",
        "q",
        text,
        visibility="private" if kind == "private" else "public",
        status="archived" if kind == "archived" else "active",
    )
    discovery.upsert(hidden)
    assert all_scores(discovery, len(docs)) == before
    for i in range(len(docs)):
        found = discovery.candidates(f"i{i}", NETWORKS, limit=30)
        assert "hidden" not in {c["intent_id"] for c in found}


@settings(max_examples=60, deadline=None)
@given(DOCS, st.one_of(st.none(), TEXTS))
def test_an_incognito_intent_never_shows_its_statement(docs, query) -> None:
    discovery = build(docs, threshold=0.0)
    incognito = {f"i{i}" for i, (_, visibility, _) in enumerate(docs) if visibility == "incognito"}
    for i in range(len(docs)):
        for found in discovery.candidates(f"i{i}", NETWORKS, query=query, limit=30):
            if found["intent_id"] in incognito:
                assert "statement" not in found and found["constraint_fit"] is None
                assert found["mutual"]

"""The incremental index scores as a fresh `bm25s` index on the same corpus, after any changes."""

import bm25s
import numpy as np
from bm25s.tokenization import Tokenized
from hypothesis import given, settings
from hypothesis import strategies as st

from accord.discovery.bm25 import LexicalIndex

WORDS = st.sampled_from(["flat", "berlin", "rent", "python", "job", "bike", "tutor", "spanish"])
DOC_IDS = st.sampled_from([f"d{i}" for i in range(8)])
UPSERT = st.tuples(st.just("upsert"), DOC_IDS, st.lists(WORDS, max_size=12))
REMOVE = st.tuples(st.just("remove"), DOC_IDS, st.just(list[str]()))


def fresh_bm25s(corpus: dict[str, list[str]]) -> tuple[bm25s.BM25, list[str]]:
    vocab: dict[str, int] = {}
    ids = [[vocab.setdefault(t, len(vocab)) for t in tokens] for tokens in corpus.values()]
    retriever = bm25s.BM25()
    retriever.index(Tokenized(ids=ids, vocab=vocab), show_progress=False)
    return retriever, list(corpus)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(UPSERT, REMOVE), min_size=1, max_size=40))
def test_incremental_scores_equal_a_fresh_bm25s_index(ops) -> None:
    index = LexicalIndex()
    corpus: dict[str, list[str]] = {}
    for op, doc_id, tokens in ops:
        if op == "upsert":
            index.upsert(doc_id, tokens)
            corpus[doc_id] = tokens
        else:
            index.remove(doc_id)
            corpus.pop(doc_id, None)
    assert len(index) == len(corpus)
    if not any(corpus.values()):
        return
    retriever, order = fresh_bm25s(corpus)
    for tokens in corpus.values():
        terms = sorted(set(tokens))
        if not terms:
            continue
        expected = retriever.get_scores(terms)
        ours = index.scores(terms)
        scanned = index.scan(terms)
        for position, doc_id in enumerate(order):
            one = index.score(terms, doc_id)
            slot = index._slot_of[doc_id]
            assert np.isclose(ours[slot], expected[position], rtol=1e-5, atol=1e-6)
            assert np.isclose(one, ours[slot], rtol=1e-12, atol=1e-12)
            assert np.isclose(scanned[slot], ours[slot], rtol=1e-12, atol=1e-12)


def test_a_removed_document_leaves_no_trace() -> None:
    index = LexicalIndex()
    index.upsert("a", ["flat", "berlin"])
    index.upsert("b", ["flat"])
    before = index.scores(["flat", "berlin"])[index._slot_of["a"]]
    index.upsert("c", ["flat", "flat", "rent"])
    index.remove("c")
    assert index.scores(["flat", "berlin"])[index._slot_of["a"]] == before
    assert "c" not in index
    assert index.score(["flat"], "c") == 0.0

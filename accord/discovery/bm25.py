"""An incremental BM25 index with the formula of `bm25s.BM25()` (Lucene variant, k1 1.5, b 0.75).

Why not a `bm25s` index: `bm25s` builds its sparse matrix in one batch and bakes the corpus's
idf and average length into every stored weight, so each upsert, pause, archive or removal
would mean rebuilding the whole index before the next query (seconds at 100k intents), and a
lazy rebuild only moves that cost onto the first query after each change. Here the index keeps
the raw statistics instead (per-term postings of term frequencies, document lengths, the total
length), each change touches only the terms of the one document, and a query computes the
weights of its own terms at query time:

    idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5))
    BM25(q, d) = sum over t in q of idf(t) * tf / (tf + k1 * (1 - b + b * |d| / avgdl))

which is what `bm25s` computes (`_score_idf_lucene`, `_score_tfc_lucene`); the tests check the
scores equal those of a fresh `bm25s` index on random corpora after random changes. Documents
with no token still count in N and in the average length, as they do in `bm25s`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

K1 = 1.5
B = 0.75

Floats = npt.NDArray[np.float64]


class _Postings:
    """The slots holding one term, with its frequency in each; a removal swaps in the last."""

    __slots__ = ("size", "slots", "tfs", "where")

    def __init__(self) -> None:
        self.slots = np.empty(4, dtype=np.int64)
        self.tfs = np.empty(4, dtype=np.float64)
        self.size = 0
        self.where: dict[int, int] = {}

    def add(self, slot: int, tf: int) -> None:
        if self.size == len(self.slots):
            self.slots = np.resize(self.slots, 2 * self.size)
            self.tfs = np.resize(self.tfs, 2 * self.size)
        self.slots[self.size] = slot
        self.tfs[self.size] = tf
        self.where[slot] = self.size
        self.size += 1

    def discard(self, slot: int) -> None:
        at = self.where.pop(slot)
        last = self.size - 1
        if at != last:
            moved = int(self.slots[last])
            self.slots[at] = moved
            self.tfs[at] = self.tfs[last]
            self.where[moved] = at
        self.size = last


class LexicalIndex:
    """Documents by id, each a list of tokens; scores for a set of query terms."""

    def __init__(self, k1: float = K1, b: float = B) -> None:
        self.k1 = k1
        self.b = b
        self._slot_of: dict[str, int] = {}
        self._id_at: list[str | None] = []
        self._free: list[int] = []
        self._lengths: Floats = np.zeros(16)
        self._tfs: list[Counter[str]] = []
        self._postings: dict[str, _Postings] = {}
        self._total = 0

    def __len__(self) -> int:
        return len(self._slot_of)

    def __contains__(self, doc_id: object) -> bool:
        return doc_id in self._slot_of

    @property
    def capacity(self) -> int:
        """The number of slots: the length of the arrays `scores` returns."""
        return len(self._id_at)

    def id_at(self, slot: int) -> str | None:
        return self._id_at[slot]

    def upsert(self, doc_id: str, tokens: Iterable[str]) -> None:
        """Add the document, or replace its tokens: only its own terms' postings change."""
        self.remove(doc_id)
        tfs = Counter(tokens)
        slot = self._free.pop() if self._free else len(self._id_at)
        if slot == len(self._id_at):
            self._id_at.append(None)
            self._tfs.append(Counter())
            if slot == len(self._lengths):
                self._lengths = np.resize(self._lengths, 2 * slot)
        self._slot_of[doc_id] = slot
        self._id_at[slot] = doc_id
        self._tfs[slot] = tfs
        length = sum(tfs.values())
        self._lengths[slot] = length
        self._total += length
        for term, tf in tfs.items():
            self._postings.setdefault(term, _Postings()).add(slot, tf)

    def remove(self, doc_id: str) -> None:
        """Forget the document if present (its slot is reused)."""
        slot = self._slot_of.pop(doc_id, None)
        if slot is None:
            return
        for term in self._tfs[slot]:
            postings = self._postings[term]
            postings.discard(slot)
            if postings.size == 0:
                del self._postings[term]
        self._total -= int(self._lengths[slot])
        self._lengths[slot] = 0
        self._tfs[slot] = Counter()
        self._id_at[slot] = None
        self._free.append(slot)

    def idf(self, term: str) -> float:
        postings = self._postings.get(term)
        df = postings.size if postings else 0
        return math.log(1 + (len(self) - df + 0.5) / (df + 0.5))

    def _norm(self) -> float:
        """`k1 * b / avgdl`, the weight of a document's length (avgdl > 0 once any term exists)."""
        return self.k1 * self.b * len(self) / self._total if self._total else 0.0

    def score(self, terms: Iterable[str], doc_id: str) -> float:
        """BM25 of one document for the distinct `terms`; 0 for an unknown document."""
        slot = self._slot_of.get(doc_id)
        if slot is None:
            return 0.0
        tfs = self._tfs[slot]
        base = self.k1 * (1 - self.b) + self._norm() * self._lengths[slot]
        return math.fsum(
            self.idf(term) * tfs[term] / (tfs[term] + base) for term in terms if term in tfs
        )

    def scores(self, terms: Iterable[str]) -> Floats:
        """BM25 of every slot for the distinct `terms`, through the postings of those terms only."""
        scores = np.zeros(self.capacity)
        base = self.k1 * (1 - self.b)
        norm = self._norm()
        for term in terms:
            postings = self._postings.get(term)
            if postings is None:
                continue
            slots = postings.slots[: postings.size]
            tfs = postings.tfs[: postings.size]
            scores[slots] += self.idf(term) * tfs / (tfs + base + norm * self._lengths[slots])
        return scores

    def scan(self, terms: Iterable[str]) -> Floats:
        """The same scores by visiting every document: the brute force the benchmark compares."""
        terms = list(terms)
        scores = np.zeros(self.capacity)
        for doc_id, slot in self._slot_of.items():
            scores[slot] = self.score(terms, doc_id)
        return scores

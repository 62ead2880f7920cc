"""Discovery over the intents of every principal: scores, mutuality and the candidate list.

The one stateful piece of the package: it holds the indexed intents and keeps the lexical
index current on every change (`upsert` for a create, an edit, a pause or an archive,
`remove` for a deletion), so a query never rebuilds anything. Network membership lives in
the store, so each call is handed it (`networks_of`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import NotRequired, TypedDict

import numpy as np

from accord.discovery.bm25 import Floats, LexicalIndex
from accord.discovery.fit import constraint_fit
from accord.discovery.intents import IntentDoc
from accord.discovery.reach import NetworksOf, networks_lookup, reaches, visible
from accord.discovery.semantic import Embedder
from accord.discovery.text import intent_text, tokenize
from accord.discovery.threshold import MUTUAL_THRESHOLD, MUTUAL_THRESHOLD_SEMANTIC


class Candidate(TypedDict):
    intent_id: str
    score: float
    mutual: bool
    constraint_fit: bool | None
    statement: NotRequired[str]


@dataclass(frozen=True, slots=True)
class _Entry:
    doc: IntentDoc
    terms: frozenset[str]
    statement_terms: frozenset[str]
    embedding: Floats | None


def rounded(value: float) -> float:
    """Scores are rounded to 4 decimals and compared rounded."""
    return float(np.round(value, 4))


class Discovery:
    """The indexed intents (every one neither `private` nor `archived`) and their scores."""

    def __init__(
        self, *, mutual_threshold: float | None = None, embed: Embedder | None = None
    ) -> None:
        default = MUTUAL_THRESHOLD_SEMANTIC if embed else MUTUAL_THRESHOLD
        self.mutual_threshold = default if mutual_threshold is None else mutual_threshold
        self.embed = embed
        self.index = LexicalIndex()
        self._entries: dict[str, _Entry] = {}

    def __contains__(self, intent_id: object) -> bool:
        return intent_id in self._entries

    def upsert(self, doc: IntentDoc) -> None:
        """Take the intent as it now is; a `private` or `archived` one leaves the index."""
        if not doc.indexed:
            self.remove(doc.intent_id)
            return
        tokens = tokenize(intent_text(doc))
        embedding = self.embed([intent_text(doc)])[0] if self.embed else None
        self._entries[doc.intent_id] = _Entry(
            doc, frozenset(tokens), frozenset(tokenize(doc.statement)), embedding
        )
        self.index.upsert(doc.intent_id, tokens)

    def remove(self, intent_id: str) -> None:
        self._entries.pop(intent_id, None)
        self.index.remove(intent_id)

    def lexical(self, a_id: str, b_id: str) -> float:
        """`min(1, BM25(a, b) / BM25(a, a))`, over a's distinct tokens (0 if undefined)."""
        terms = self._entries[a_id].terms
        own = self.index.score(terms, a_id)
        return min(1.0, self.index.score(terms, b_id) / own) if own > 0 else 0.0

    def _semantic(self, a: _Entry, b: _Entry, lexical: float) -> float:
        if a.embedding is None or b.embedding is None:
            return lexical
        return (lexical + max(0.0, float(a.embedding @ b.embedding))) / 2

    def score(self, a_id: str, b_id: str) -> float:
        """`score(a→b)`, rounded: lexical, or its mean with the cosine when a model is set."""
        lexical = self.lexical(a_id, b_id)
        return rounded(self._semantic(self._entries[a_id], self._entries[b_id], lexical))

    def mutual(
        self, a_id: str, b_id: str, networks_of: NetworksOf | Mapping[str, frozenset[str]]
    ) -> bool:
        """Each reaches the other's principal, and both scores are at least the threshold."""
        lookup = networks_lookup(networks_of)
        a, b = self._entries[a_id].doc, self._entries[b_id].doc
        return self._mutual(a, b, lookup, self.score(a_id, b_id))

    def _mutual(self, a: IntentDoc, b: IntentDoc, lookup: NetworksOf, a_to_b: float) -> bool:
        return (
            a_to_b >= self.mutual_threshold
            and reaches(a, lookup(b.principal_id))
            and reaches(b, lookup(a.principal_id))
            and self.score(b.intent_id, a.intent_id) >= self.mutual_threshold
        )

    def opening(
        self, a_id: str, b_id: str, networks_of: NetworksOf | Mapping[str, frozenset[str]]
    ) -> tuple[bool, bool] | None:
        """`(mutual, constraint_fit)` of a pair `a` may open; None when `b` is not indexed, not
        visible to a's principal, or `incognito` and not mutual (spec, Opportunities)."""
        if a_id not in self._entries or b_id not in self._entries:
            return None
        lookup = networks_lookup(networks_of)
        a, b = self._entries[a_id].doc, self._entries[b_id].doc
        if not visible(b, a.principal_id, lookup(a.principal_id)):
            return None
        mutual = self._mutual(a, b, lookup, self.score(a_id, b_id))
        if b.visibility == "incognito" and not mutual:
            return None
        return mutual, constraint_fit(a, b)

    def checks(
        self, a_id: str, b_id: str, networks_of: NetworksOf | Mapping[str, frozenset[str]]
    ) -> tuple[bool, bool] | None:
        """`(mutual, constraint_fit)` of an opened pair as the two intents now are, whatever
        their status; None when either has left the index."""
        if a_id not in self._entries or b_id not in self._entries:
            return None
        lookup = networks_lookup(networks_of)
        a, b = self._entries[a_id].doc, self._entries[b_id].doc
        return self._mutual(a, b, lookup, self.score(a_id, b_id)), constraint_fit(a, b)

    def doc(self, intent_id: str) -> IntentDoc | None:
        entry = self._entries.get(intent_id)
        return None if entry is None else entry.doc

    def _ranked(self, a: _Entry) -> Iterator[tuple[float, str]]:
        """Every indexed intent with a lexical score above 0, best first, ties by intent_id.

        Lazy: numpy sorts the scores, and ids are looked up (and ties sorted) only as far as
        the caller walks.
        """
        terms = a.terms
        own = self.index.score(terms, a.doc.intent_id)
        if own <= 0:
            return
        raw = self.index.scores(terms)
        slots = np.flatnonzero(raw > 0)
        values = np.minimum(1.0, raw[slots] / own)
        if self.embed is not None:
            values = np.array(
                [
                    self._semantic(a, self._entries[self.index.id_at(int(slot)) or ""], float(v))
                    for slot, v in zip(slots, values, strict=True)
                ]
            )
        values = np.round(values, 4)
        order = np.argsort(-values, kind="stable")
        slots, values = slots[order], values[order]
        bounds = [0, *(np.flatnonzero(values[1:] != values[:-1]) + 1).tolist(), len(values)]
        for start, end in itertools.pairwise(bounds):
            score = float(values[start])
            for intent_id in sorted(self.index.id_at(int(slot)) or "" for slot in slots[start:end]):
                yield score, intent_id

    def candidates(
        self,
        intent_id: str,
        networks_of: NetworksOf | Mapping[str, frozenset[str]],
        query: str | None = None,
        limit: int = 10,
    ) -> list[Candidate]:
        """The visible intents with a lexical score above 0, best first (spec, Discovery).

        An `incognito` intent only when mutual; `constraint_fit` and `statement` only when mutual
        and not `incognito`. A query changes no score: the candidates whose statement is given
        and shares a token with it come first. Only a mutual candidate can join that first
        group, and mutual needs a score at or above the threshold, so the walk down the ranking
        stops once the list is full and the scores have fallen below the threshold.
        """
        entry = self._entries[intent_id]
        a = entry.doc
        if a.status != "active":
            raise ValueError(f"intent {intent_id} is {a.status}: it does not discover")
        lookup = networks_lookup(networks_of)
        own_networks = lookup(a.principal_id)
        wanted = frozenset(tokenize(query)) if query else frozenset()
        first: list[Candidate] = []
        rest: list[Candidate] = []
        for score, b_id in self._ranked(entry):
            if len(first) + len(rest) >= limit and (not wanted or score < self.mutual_threshold):
                break
            other = self._entries[b_id]
            b = other.doc
            if not visible(b, a.principal_id, own_networks):
                continue
            mutual = self._mutual(a, b, lookup, score)
            if b.visibility == "incognito" and not mutual:
                continue
            candidate = Candidate(intent_id=b_id, score=score, mutual=mutual, constraint_fit=None)
            if mutual and b.visibility != "incognito":
                candidate["constraint_fit"] = constraint_fit(a, b)
                candidate["statement"] = b.statement
                if not wanted.isdisjoint(other.statement_terms):
                    first.append(candidate)
                    continue
            rest.append(candidate)
        return [*first, *rest][:limit]

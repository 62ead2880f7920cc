"""The labelled discovery set is what the benchmark and the default threshold rely on."""

import json
from pathlib import Path

from accord.discovery import IntentDoc, constraint_fit, constraint_from_json

DATA = Path(__file__).parent / "data"
INTENTS = json.loads((DATA / "intents.json").read_text())["intents"]
LABELS = json.loads((DATA / "labels.json").read_text())
DOCS = {
    i["intent_id"]: IntentDoc(
        i["intent_id"],
        i["principal_id"],
        i["statement"],
        tuple(constraint_from_json(c) for c in i["constraints"]),
    )
    for i in INTENTS
}
LANG = {i["intent_id"]: i["lang"] for i in INTENTS}


def test_the_set_is_large_many_marketed_and_multilingual() -> None:
    assert len(DOCS) == len(INTENTS) >= 200
    assert len({i["market"] for i in INTENTS}) >= 9
    assert {"en", "es", "de", "fr"} <= set(LANG.values())
    cross = [p for p in LABELS["matches"] if LANG[p[0]] != LANG[p[1]]]
    assert len(cross) >= 10


def test_labels_name_known_distinct_intents_and_never_both_kinds() -> None:
    matches = {frozenset(p) for p in LABELS["matches"]}
    near = {frozenset(p) for p in LABELS["near_misses"]}
    assert all(len(p) == 2 and p <= DOCS.keys() for p in matches | near)
    assert not matches & near


def test_every_labelled_match_fits_its_constraints() -> None:
    assert all(constraint_fit(DOCS[a], DOCS[b]) for a, b in LABELS["matches"])
    conflicts = [p for p in LABELS["near_misses"] if not constraint_fit(DOCS[p[0]], DOCS[p[1]])]
    assert len(conflicts) >= 40

"""The semantic extension point: any embedder blends its cosine into the score."""

import numpy as np

from accord.discovery import MUTUAL_THRESHOLD, MUTUAL_THRESHOLD_SEMANTIC, Discovery, IntentDoc


def by_first_word(texts):
    """Unit vectors: texts starting with the same word point the same way, others orthogonally."""
    axes = {"python": 0, "hiring": 1}
    out = np.zeros((len(texts), 3))
    for row, text in enumerate(texts):
        out[row, axes.get(text.split()[0].lower(), 2)] = 1.0
    return out


def test_score_is_the_mean_of_lexical_and_the_positive_cosine() -> None:
    plain, blended = Discovery(), Discovery(embed=by_first_word)
    for discovery in (plain, blended):
        discovery.upsert(IntentDoc("a", "p", "python developer berlin"))
        discovery.upsert(IntentDoc("b", "q", "python job"))
        discovery.upsert(IntentDoc("c", "q", "hiring python developer"))
    assert blended.score("a", "b") == round((plain.lexical("a", "b") + 1) / 2, 4)
    assert blended.score("a", "c") == round(plain.lexical("a", "c") / 2, 4)
    assert [c["intent_id"] for c in blended.candidates("a", {})] == ["b", "c"]
    assert [c["intent_id"] for c in plain.candidates("a", {})] == ["c", "b"]


def test_each_ranking_has_its_calibrated_default_threshold() -> None:
    assert Discovery().mutual_threshold == MUTUAL_THRESHOLD
    assert Discovery(embed=by_first_word).mutual_threshold == MUTUAL_THRESHOLD_SEMANTIC

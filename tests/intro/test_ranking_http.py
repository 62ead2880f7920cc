"""`--ranking` through a real server (spec/intro-api.md, Discovery): `lexical` scores exactly
lexically and never loads the model, even where it is installed; `auto` re-ranks with the model
where it is installed and falls back to the lexical score where it is not.

The model is the one outside edge here, so a stand-in package of its name is put on the import
path: texts about a cellist point one way, others another (cosine 1 or 0), and it counts how
often it is loaded.
"""

import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from accord.app.settings import Settings
from accord.discovery import MUTUAL_THRESHOLD, MUTUAL_THRESHOLD_SEMANTIC, Discovery, IntentDoc
from accord.discovery.semantic import MODEL, Ranking
from tests.conftest import FakeClock, serve_in_thread
from tests.intro.conftest import discover, post_intent
from tests.principals.conftest import Principal

MINE = "A cellist for a string quartet in Lyon on Saturdays"
NEAR = "A string quartet in Lyon wants a cellist"
FAR = "Saturdays in Lyon"

STAND_IN = """
LOADS = []


class _Model:
    def encode(self, texts, normalize_embeddings, show_progress_bar):
        return [[1.0, 0.0] if "cellist" in text else [0.0, 1.0] for text in texts]


def load_model(device):
    LOADS.append(device)
    return _Model()
"""


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The model's package, installed for one test."""
    package = tmp_path / "site" / MODEL
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(STAND_IN)
    monkeypatch.syspath_prepend(str(package.parent))
    yield
    sys.modules.pop(MODEL, None)


def model_loads() -> int:
    """How often the stand-in was loaded; 0 when it was never even imported."""
    module = sys.modules.get(MODEL)
    return len(module.LOADS) if module else 0


def like_the_stand_in(texts: Sequence[str]) -> npt.NDArray[np.float64]:
    return np.array([[1.0, 0.0] if "cellist" in text else [0.0, 1.0] for text in texts])


def expected(blended: bool) -> tuple[dict[str, tuple[float, bool]], float]:
    """`(score, mutual)` of NEAR and FAR for MINE, and the threshold in effect, as Discovery
    computes them over the same texts, lexically or blended with the stand-in's cosines."""
    discovery = Discovery(embed=like_the_stand_in if blended else None)
    for intent_id, principal_id, text in (
        ("mine", "p", MINE),
        ("near", "q", NEAR),
        ("far", "q", FAR),
    ):
        discovery.upsert(IntentDoc(intent_id, principal_id, text))
    found = {
        text: (discovery.score("mine", i), discovery.mutual("mine", i, {}))
        for i, text in (("near", NEAR), ("far", FAR))
    }
    return found, discovery.mutual_threshold


@pytest.mark.parametrize(
    ("ranking", "model", "loads", "blended"),
    [
        pytest.param(Ranking.LEXICAL, True, 0, False, id="lexical_with_the_model_never_loads_it"),
        pytest.param(Ranking.LEXICAL, False, 0, False, id="lexical_without_the_model"),
        pytest.param(Ranking.AUTO, False, 0, False, id="auto_without_the_model_is_lexical"),
        pytest.param(Ranking.AUTO, True, 1, True, id="auto_with_the_model_re_ranks"),
    ],
)
def test_the_ranking_decides_the_scores(
    ranking: Ranking,
    model: bool,
    loads: int,
    blended: bool,
    settings: Settings,
    clock: FakeClock,
    ada: Principal,
    bob: Principal,
    request: pytest.FixtureRequest,
) -> None:
    if model:
        request.getfixturevalue("installed")
    live = settings.model_copy(update=dict(ranking=ranking))
    with serve_in_thread(live, clock) as server, server.client() as client:
        mine = post_intent(client, ada, MINE)["intent_id"]
        by_id = {post_intent(client, bob, text)["intent_id"]: text for text in (NEAR, FAR)}
        found = {by_id[c["intent_id"]]: c for c in discover(client, ada, mine)}
    scores, threshold = expected(blended)
    assert {text: (c["score"], c["mutual"]) for text, c in found.items()} == scores
    assert threshold == (MUTUAL_THRESHOLD_SEMANTIC if blended else MUTUAL_THRESHOLD)
    assert model_loads() == loads


@pytest.mark.parametrize("raw", ["semantic", "AUTO", ""])
def test_a_bad_ranking_is_refused_by_name(raw: str) -> None:
    with pytest.raises(ValueError, match="ranking"):
        Settings(ranking=raw)

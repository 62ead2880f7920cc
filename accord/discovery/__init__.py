"""Discovery for intro negotiations: text, BM25 scores, reach, mutuality and constraint fit.

Pure of the store and the HTTP surface (an import-linter contract holds it so): the caller
feeds it intents as they change and tells it who belongs to which network.
"""

from accord.discovery.discovery import Candidate, Discovery
from accord.discovery.fit import constraint_fit
from accord.discovery.intents import Constraint, IntentDoc, constraint_from_json
from accord.discovery.reach import reaches, visible
from accord.discovery.semantic import Ranking, embedder_for
from accord.discovery.text import intent_text, tokenize
from accord.discovery.threshold import MUTUAL_THRESHOLD, MUTUAL_THRESHOLD_SEMANTIC

__all__ = [
    "MUTUAL_THRESHOLD",
    "MUTUAL_THRESHOLD_SEMANTIC",
    "Candidate",
    "Constraint",
    "Discovery",
    "IntentDoc",
    "Ranking",
    "constraint_fit",
    "constraint_from_json",
    "embedder_for",
    "intent_text",
    "reaches",
    "tokenize",
    "visible",
]

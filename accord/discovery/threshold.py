"""The default `--mutual-threshold`.

The value that maximises the F1 of `mutual` against the labels of Accord's own discovery set
(`tests/discovery/data/`), as `benchmarks/discovery_quality.py` prints it under `--ranking
lexical`; `benchmarks/README.md` records its precision and recall. Re-run the benchmark and
update this constant whenever the scoring or the labelled set changes.
"""

MUTUAL_THRESHOLD = 0.3651

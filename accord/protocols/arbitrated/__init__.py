"""Arbitrated sessions: fairness profiles and the hosted merchant policy
(spec/arbitrated-rest.md)."""

"""Protocols: pure rules over frozen state, one package per table."""

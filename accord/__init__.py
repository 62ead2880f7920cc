"""Accord: an open negotiation server."""

__version__ = "0.1.0"

"""Application services: load, decide, append, notify. The one place adapters call."""

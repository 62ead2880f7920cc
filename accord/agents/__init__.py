"""Agents: negotiation strategies that act for a seat through the same calls any outside agent
makes. A strategy here is pure: it reads a seat's views and returns a move; the service that
runs it (`accord.app`) does the I/O."""

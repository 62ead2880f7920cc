"""The adviser's HTTP tests use the intro tests' principals (ada, bob) and client."""

from tests.intro.conftest import ada, bob, client, principals

__all__ = ["ada", "bob", "client", "principals"]

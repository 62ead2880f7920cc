"""The adviser's HTTP tests use the intro tests' principals (ada, bob) and client, and the
sessions tests' shop for a linked arbitrated session."""

from tests.intro.conftest import ada, bob, client, principals
from tests.sessions.conftest import shop

__all__ = ["ada", "bob", "client", "principals", "shop"]

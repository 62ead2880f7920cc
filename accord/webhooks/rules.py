"""The delivery rules: which events an endpoint receives, when a failed attempt is tried again,
and what makes a URL one Accord may call."""

import ipaddress
import random
from collections.abc import Sequence
from typing import Final
from urllib.parse import urlsplit

# Standard Webhooks' schedule: the delay before each attempt, the first sent at once.
SCHEDULE: Final[tuple[int, ...]] = (0, 5, 300, 1_800, 7_200, 18_000, 36_000, 50_400, 72_000, 86_400)
ATTEMPTS: Final = len(SCHEDULE)
JITTER: Final = 0.10
FAILING_DISABLE_SECONDS: Final = 5 * 86_400
TEST_EVENT: Final = "webhook.test"


def event_type(kind: str, inner_type: str) -> str:
    """`envelope.<envelope type>` or `notification.<notification type>`."""
    return f"{kind}.{inner_type}"


def wanted(event_types: Sequence[str] | None, kind: str) -> bool:
    """Whether an endpoint asked for events of `kind`: every one when it named none."""
    if not event_types:
        return True
    return any(kind.startswith(t[:-1]) if t.endswith(".*") else kind == t for t in event_types)


def next_delay(failed: int, rng: random.Random) -> float | None:
    """Seconds until the attempt after the `failed`-th failure, ±10 %; None after the last."""
    if failed >= ATTEMPTS:
        return None
    base = SCHEDULE[failed]
    return base * (1 + rng.uniform(-JITTER, JITTER))


def url_problem(url: str, *, allow_private: bool) -> str | None:
    """What makes `url` one Accord will not call, or None. Addresses are checked apart, on
    every attempt, since a name may resolve elsewhere later."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return "is not a URL"
    schemes = {"https", "http"} if allow_private else {"https"}
    if parts.scheme not in schemes:
        return "must be https" if not allow_private else "must be http or https"
    if parts.username is not None or parts.password is not None:
        return "must not hold a user name or password"
    if not parts.hostname:
        return "names no host"
    if port == 0:
        return "names port 0"
    if not allow_private and is_literal_private(parts.hostname):
        return "is a private address"
    return None


def is_literal_private(host: str) -> bool:
    """An IP literal that is not a public address (a name is resolved before each attempt)."""
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return host.lower() in {"localhost", "localhost."} or host.lower().endswith(".localhost")
    return not address.is_global


def is_address(host: str) -> bool:
    """An IP literal rather than a name."""
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return True


def all_public(addresses: Sequence[str]) -> bool:
    """Every address a name resolved to is a public one (and it resolved to some)."""
    if not addresses:
        return False
    return all(ipaddress.ip_address(a.split("%")[0]).is_global for a in addresses)

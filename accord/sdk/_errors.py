"""The SDK's one exception.

    AccordError
      code = a server's refusal code (`not_your_turn`, `raced`, `rate_limited`, …), or one of
             the SDK's own, which no server sends:
               network_error     the server could not be reached, or the connection broke
               timeout           the server did not answer in time
               invalid_response  the answer is not one an Accord server gives

Every refusal keeps the server's `code`, `message` and details, so a program branches on
`error.code` and shows `error.message` to a person.
"""

from collections.abc import Mapping
from typing import Any, Final

NETWORK_ERROR: Final = "network_error"
TIMEOUT: Final = "timeout"
INVALID_RESPONSE: Final = "invalid_response"
SDK_CODES: Final = frozenset({NETWORK_ERROR, TIMEOUT, INVALID_RESPONSE})


class AccordError(Exception):
    """A request that did not succeed: refused by the server, or never answered as one.

    `status` is the HTTP status (None when no answer came, or when the request was refused
    before it was sent); `details` holds the other members of the error object (`fields`,
    `allowed`, `reason`…); `retry_after` is in seconds, when the server said when to come back.
    """

    def __init__(
        self,
        code: str,
        message: str,
        *,
        status: int | None = None,
        details: Mapping[str, Any] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message
        self.status = status
        self.details: Mapping[str, Any] = dict(details or {})
        self.retry_after = retry_after

    def __str__(self) -> str:
        return f"{self.message} ({self.code})"

    def __repr__(self) -> str:
        return f"AccordError(code={self.code!r}, message={self.message!r}, status={self.status!r})"

    @property
    def is_refusal(self) -> bool:
        """Whether a server (or the strict model the server uses) refused the request, rather
        than the request failing on its way."""
        return self.code not in SDK_CODES

    def to_json(self) -> dict[str, Any]:
        """The error body, as the server sends it: `{"error": {"code", "message", ...}}`."""
        return {"error": {"code": self.code, "message": self.message, **self.details}}

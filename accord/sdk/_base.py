"""What `Accord` and `AsyncAccord` share, as httpx's `BaseClient` is shared by its two
clients: the configuration, a lifecycle, building a request from an operation, reading its
answer, and deciding whether to send it again.

Safe retries: a request is built once, so a retry sends the same bytes. A move without a
`message_id` gets `sdk_<32 hex>`, which the server answers a repeat of with its first answer.
Reads, PUTs and requests with a `message_id` are sent again after a connection error, a
timeout, 429, 502, 503 or 504, waiting `retry_after` when the server gives one (up to a
minute) and otherwise a full-jitter backoff of up to `min(8, 0.5 · 2ⁿ)` seconds before retry
n + 1. Opens, joins and confirmations are sent again only when they never left. No other
refusal is retried.
"""

import enum
import random
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Generic

import httpx
import orjson
from pydantic import BaseModel, TypeAdapter, ValidationError

from accord import __version__
from accord.core.problems import problems
from accord.sdk._errors import INVALID_RESPONSE, NETWORK_ERROR, TIMEOUT, AccordError
from accord.sdk._operations import Operation, ResultT, Retry

DEFAULT_TIMEOUT: Final = 30.0
DEFAULT_MAX_RETRIES: Final = 2
USER_AGENT: Final = f"accord-python/{__version__}"

BACKOFF_BASE_SECONDS: Final = 0.5
BACKOFF_CAP_SECONDS: Final = 8.0
MAX_RETRY_AFTER_SECONDS: Final = 60.0
RETRY_STATUSES: Final = frozenset({429, 502, 503, 504})
# No connection was made, so the server cannot have seen the request.
NEVER_SENT: Final = (httpx.ConnectError, httpx.ConnectTimeout, httpx.PoolTimeout)
# The request may have reached the server; only a request that cannot apply twice is resent.
MAY_HAVE_ARRIVED: Final = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
INVALID_BODY_MESSAGE: Final = "Fix the request: see fields for what is wrong."


class ClientState(enum.Enum):
    # UNOPENED:
    #   The client has been made, but has sent nothing and was not entered with `with`.
    UNOPENED = 1
    # OPENED:
    #   The client has sent a request, or is inside a `with` block.
    OPENED = 2
    # CLOSED:
    #   The `with` block ended or `close()` was called: the client sends nothing more.
    CLOSED = 3


@dataclass(frozen=True)
class Call(Generic[ResultT]):
    """One request, built once: every retry sends exactly this request again."""

    operation: Operation[ResultT]
    request: httpx.Request
    retry: Retry


def full_jitter(cap: float) -> float:
    """A wait drawn evenly from [0, cap] (AWS's "full jitter"): clients that failed together
    do not come back together."""
    return random.uniform(0.0, cap)


def new_message_id() -> str:
    return f"sdk_{secrets.token_hex(16)}"


class BaseClient:
    def __init__(
        self,
        base_url: str | httpx.URL,
        *,
        timeout: float,
        max_retries: int,
        jitter: Callable[[float], float] | None,
    ) -> None:
        if max_retries < 0:
            raise ValueError("max_retries is 0 or more")
        url = httpx.URL(str(base_url))
        if not url.is_absolute_url:
            raise ValueError(f"base_url must be absolute, like http://127.0.0.1:8000: {url}")
        # As httpx: a base URL's path is a prefix, so it ends with exactly one slash.
        self._base_url = url.copy_with(raw_path=url.raw_path.rstrip(b"/") + b"/")
        self._timeout = httpx.Timeout(timeout)
        self._max_retries = max_retries
        self._jitter = jitter or full_jitter
        self._state = ClientState.UNOPENED

    @property
    def base_url(self) -> httpx.URL:
        return self._base_url

    @property
    def timeout(self) -> httpx.Timeout:
        return self._timeout

    @property
    def max_retries(self) -> int:
        return self._max_retries

    @property
    def is_closed(self) -> bool:
        return self._state is ClientState.CLOSED

    @property
    def server(self) -> str:
        """The base URL as people write it, without the trailing slash."""
        return str(self._base_url).rstrip("/")

    # -- building ------------------------------------------------------------------------

    def _build(
        self,
        operation: Operation[ResultT],
        *,
        token: str | None = None,
        path: Mapping[str, str] | None = None,
        body: Mapping[str, Any] | BaseModel | None = None,
        params: Mapping[str, str | int] | None = None,
        headers: Mapping[str, str] | None = None,
        read_timeout: float | None = None,
    ) -> Call[ResultT]:
        """The request, its body checked by the operation's strict model and given a
        `message_id` where the model takes one; refused with `invalid_request` (status None,
        `fields` as the server names them) when the model refuses it."""
        retry = operation.retry
        content: Any = None
        if operation.request is not None:
            model = _checked(operation.request, body)
            if "message_id" in type(model).model_fields:
                if getattr(model, "message_id", None) is None:
                    model = model.model_copy(update={"message_id": new_message_id()})
                retry = Retry.SAFE
            content = operation.request.dump_python(model, mode="json", exclude_unset=True)
        sent_headers = {"Accept": operation.media_type, "User-Agent": USER_AGENT, **(headers or {})}
        if token:
            sent_headers["Authorization"] = f"Bearer {token}"
        timeout = self._timeout.as_dict()
        if read_timeout is not None:
            timeout["read"] = read_timeout
        url = self._base_url.copy_with(
            raw_path=self._base_url.raw_path + operation.url(path or {}).lstrip("/").encode()
        )
        request = httpx.Request(
            operation.method,
            url,
            params=dict(params) if params else None,
            json=content,
            headers=sent_headers,
            extensions={"timeout": timeout},
        )
        return Call(operation, request, retry)

    # -- reading -------------------------------------------------------------------------

    def _read(self, call: Call[ResultT], response: httpx.Response) -> ResultT:
        """The result model of a success; anything else raised as an AccordError."""
        data = json_of(response)
        if not response.is_success:
            raise self._refusal(response, data)
        if call.operation.text is not None:
            media_type = response.headers.get("content-type", "").partition(";")[0].strip()
            if media_type != call.operation.media_type:
                raise self._invalid(response)
            data = {call.operation.text: response.text}
        result = call.operation.results.get(response.status_code)
        if result is None or not isinstance(data, dict):
            raise self._invalid(response)
        try:
            return result.model_validate(data)
        except ValidationError as exc:
            raise self._invalid(response) from exc

    def _refusal(self, response: httpx.Response, data: Any) -> AccordError:
        error = data.get("error") if isinstance(data, dict) else None
        if not (isinstance(error, dict) and isinstance(error.get("code"), str)):
            return self._invalid(response)
        details = {k: v for k, v in error.items() if k not in ("code", "message")}
        return AccordError(
            error["code"],
            str(error.get("message", "")),
            status=response.status_code,
            details=details,
            retry_after=_retry_after(details.get("retry_after"), response.headers),
        )

    def _invalid(self, response: httpx.Response) -> AccordError:
        return AccordError(
            INVALID_RESPONSE,
            f"{self.server} answered HTTP {response.status_code} with a body an Accord server "
            "does not send; is it one?",
            status=response.status_code,
        )

    def _transport_error(self, exc: httpx.TransportError) -> AccordError:
        if isinstance(exc, httpx.TimeoutException):
            return AccordError(TIMEOUT, f"{self.server} did not answer in time: {exc}")
        return AccordError(NETWORK_ERROR, f"Cannot reach {self.server}: {exc}")

    # -- retrying ------------------------------------------------------------------------

    def _retry_delay(
        self,
        call: Call[Any],
        attempt: int,
        error: AccordError,
        cause: httpx.TransportError | None,
    ) -> float | None:
        """Seconds to wait before sending `call` again after its attempt number `attempt`
        (0 for the first) failed, or None when it must not be sent again."""
        if attempt >= self._max_retries:
            return None
        if cause is not None:
            if isinstance(cause, NEVER_SENT) or (
                call.retry is Retry.SAFE and isinstance(cause, MAY_HAVE_ARRIVED)
            ):
                return self._backoff(attempt)
            return None
        if call.retry is not Retry.SAFE or error.status not in RETRY_STATUSES:
            return None
        if error.retry_after is None:
            return self._backoff(attempt)
        return error.retry_after if error.retry_after <= MAX_RETRY_AFTER_SECONDS else None

    def _backoff(self, attempt: int) -> float:
        return self._jitter(min(BACKOFF_CAP_SECONDS, BACKOFF_BASE_SECONDS * 2**attempt))

    # -- lifecycle -----------------------------------------------------------------------

    def _opening(self) -> None:
        """Before a request: refused on a closed client, as httpx does."""
        if self._state is ClientState.CLOSED:
            raise RuntimeError("Cannot send a request, as the client has been closed.")
        self._state = ClientState.OPENED

    def _state_closed(self) -> None:
        self._state = ClientState.CLOSED

    def _entering(self) -> None:
        if self._state is not ClientState.UNOPENED:
            raise RuntimeError(
                {
                    ClientState.OPENED: "Cannot open a client instance more than once.",
                    ClientState.CLOSED: "Cannot reopen a client instance, once it has been closed.",
                }[self._state]
            )
        self._state = ClientState.OPENED


def _checked(adapter: TypeAdapter[Any], body: Mapping[str, Any] | BaseModel | None) -> BaseModel:
    """The body as the operation's strict model, or the refusal the server would give."""
    try:
        model: BaseModel = adapter.validate_python(
            body if isinstance(body, BaseModel) else dict(body or {})
        )
    except ValidationError as exc:
        fields = problems(exc)
        raise AccordError(
            "invalid_request", INVALID_BODY_MESSAGE, details={"fields": fields}
        ) from exc
    return model


def json_of(response: httpx.Response) -> Any:
    try:
        return orjson.loads(response.content)
    except ValueError:  # orjson.JSONDecodeError is one
        return None


def _retry_after(member: object, headers: httpx.Headers) -> float | None:
    """Seconds to wait, from the error's `retry_after` or the `Retry-After` header (seconds
    only: Accord never sends the date form)."""
    if isinstance(member, int | float) and not isinstance(member, bool) and member >= 0:
        return float(member)
    header = headers.get("Retry-After", "")
    return float(header) if header.isdigit() else None

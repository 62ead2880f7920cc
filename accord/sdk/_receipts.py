"""Receipts checked offline with `accord.trust`: the seven checks of spec/receipts.md, against
keys the caller pins. Only fetching the keys talks to a server."""

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from accord.sdk import _operations as ops
from accord.sdk._models import Jwks, Log, Receipt
from accord.trust.verify import Verification, load_trusted, verify_receipt

if TYPE_CHECKING:
    from accord.sdk._client import Accord, AsyncAccord


def verify(
    receipt: Receipt | Mapping[str, Any],
    *,
    jwks: Jwks | Mapping[str, Any],
    log: Log | Sequence[Mapping[str, Any]] | None = None,
    allow_test: bool = False,
) -> Verification:
    """`ok` only when the receipt is valid and signed by a key of `jwks`; with `log`, the
    whole chain is checked too. `raise_for_failure()` names the check that failed; a JWKS
    holding an unacceptable key raises ValueError."""
    body = receipt.to_json() if isinstance(receipt, Receipt) else dict(receipt)
    keys = jwks.to_json() if isinstance(jwks, Jwks) else dict(jwks)
    envelopes: list[Any] | None
    if isinstance(log, Log):
        envelopes = log.to_json()["envelopes"]
    else:
        envelopes = None if log is None else [dict(e) for e in log]
    return verify_receipt(body, trusted=load_trusted(keys), log=envelopes, allow_test=allow_test)


class Receipts:
    """`accord.receipts`: a server's signing keys, and offline verification."""

    def __init__(self, client: "Accord") -> None:
        self._client = client

    def jwks(self) -> Jwks:
        """This server's keys as it answers now; pin keys fetched over a channel you trust."""
        return self._client._call(ops.JWKS)

    verify = staticmethod(verify)


class AsyncReceipts:
    """`Receipts` for an event loop; `verify` needs no network, so it is not awaited."""

    def __init__(self, client: "AsyncAccord") -> None:
        self._client = client

    async def jwks(self) -> Jwks:
        return await self._client._call(ops.JWKS)

    verify = staticmethod(verify)

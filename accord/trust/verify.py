"""Verifying a receipt offline (receipts.md, Verification, as docs/receipts.md reads it), for
Accord's receipts and any other OANP arbiter's alike. The checks, in order; every check that
can run does:

1. header     EdDSA/Ed25519, detached, b64:false, crit exactly ["b64"], a kid.
2. key        exactly one acceptable Ed25519 key with that kid embedded in the receipt, with no
              member outside {kty, crv, x, kid, alg, use, mode} and none that contradicts it.
3. signature  it verifies over ASCII(protected) + "." + JCS(signed_payload).
4. signer     that key (kid and x, byte for byte) is one the verifier pins, and of the mode
              the embedded key states, if it states one.
5. mode       live only when the pinned key and the receipt are both live; a test receipt
              counts only when test receipts are allowed.
6. terms      final_terms and session_id equal what was signed.
7. chain      (with the log) every envelope links to the one before and seq runs from 0; the
              first envelope opens the negotiation that was signed; the last is the head the
              receipt names and the length matches. Signed: the signed chain_head is the
              envelope before the last, the signed agreement_hash (when signed) is the last,
              and the last is an agreement holding the signed terms. Unsigned: the last
              envelope is final and leaves the state the receipt names.
8. report     (signed receipts) the state is agreed; the report (every member but the
              signature's, the signed terms' copies and the reveals) commits to the signed
              report_hash; each reveal opens, or fails to open, the commitment signed for its
              party as its `matches` says, and I3 says whether all do. A receipt whose signed
              payload has no report_hash passes with its unsigned members named as unchecked.

`ok` only when every check that ran passed, the signature verified and the signer is pinned.
Only keys the caller passes in are trusted: never the receipt's own, never one found nearby.
"""

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import orjson
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from accord.core.chain import ChainError, verify_chain
from accord.core.commit import commit, is_opening
from accord.core.jsonio import JSON, JSONError, parse, same_json
from accord.trust.ed25519 import UnacceptableKey, check_public_key
from accord.trust.encoding import b64url_decode
from accord.trust.jws import signing_input
from accord.trust.receipts import JUDGED_ON_REVEALS, NOT_REPORTED, report_hash

ALGORITHMS: Final = frozenset({"EdDSA", "Ed25519"})
CHECKS: Final = ("header", "key", "signature", "signer", "mode", "terms", "chain", "report")
JWK_MEMBERS: Final = frozenset({"kty", "crv", "x", "kid", "alg", "use", "mode"})
REVEAL_MEMBERS: Final = frozenset({"party", "commitment", "matches", "private"})
# Where the first envelope of each protocol names its negotiation (receipts.md: envelopes
# carry their negotiation's id in the first envelope's payload).
OPENING_IDS: Final = ("session_id", "room_id", "negotiation_id")
# The envelope that ends an agreed log, and where its payload holds the agreed terms
# (rooms-api.md `room.agreed`; arbitrated-rest.md and the Valyzen gateway `session.agree`;
# intro-api.md `negotiation.agreed`).
AGREEMENTS: Final[Mapping[str, str]] = {
    "room.agreed": "terms",
    "session.agree": "final_terms",
    "negotiation.agreed": "final_terms",
}
# The state each final envelope leaves a negotiation in.
ENDINGS: Final[Mapping[str, str]] = {
    "room.agreed": "agreed",
    "session.agree": "agreed",
    "move.reject": "closed",
    "move.cancel": "closed",
    "session.close": "closed",
    "room.expired": "expired",
    "negotiation.agreed": "agreed",
    "negotiation.closed": "closed",
}
RECEIPT_MEMBERS: Final = ("artifact", "signed_payload")
_JSON_KINDS: Final[Mapping[type, str]] = {
    list: "an array",
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true or false",
    type(None): "null",
}
Status = Literal["valid", "invalid", "unverifiable", "unsigned"]


class VerificationError(Exception):
    """A receipt failed a check; `check` names it (one of CHECKS)."""

    def __init__(self, check: str, detail: str) -> None:
        super().__init__(f"{check}: {detail}")
        self.check = check
        self.detail = detail


@dataclass(frozen=True)
class TrustedKey:
    kid: str
    x: bytes
    mode: Literal["test", "live"]


def load_trusted(jwks: JSON) -> list[TrustedKey]:
    """The keys of a JWKS to pin; a small-order or non-canonical key refuses the whole set."""
    if not isinstance(jwks, dict) or not isinstance(jwks.get("keys"), list):
        raise ValueError("a JWKS is an object with a keys array")
    trusted = []
    for index, jwk in enumerate(jwks["keys"]):
        try:
            x = _public_key_bytes(jwk)
        except ValueError as exc:
            raise ValueError(f"key {index} of the JWKS: {exc}") from None
        mode = jwk.get("mode", "live")
        if mode not in ("test", "live"):
            raise ValueError(f"key {index} of the JWKS: mode must be test or live")
        trusted.append(TrustedKey(str(jwk["kid"]), x, mode))
    return trusted


def _public_key_bytes(jwk: object) -> bytes:
    if not isinstance(jwk, dict):
        raise ValueError("a JWK is an object")
    if jwk.get("kty") != "OKP" or jwk.get("crv") != "Ed25519":
        raise ValueError("not an Ed25519 key (kty OKP, crv Ed25519)")
    if not isinstance(jwk.get("kid"), str) or not jwk["kid"]:
        raise ValueError("the key has no kid")
    x = jwk.get("x")
    if not isinstance(x, str):
        raise ValueError("the key has no x")
    return _accept(x)


@functools.lru_cache(maxsize=1024)
def _accept(x: str) -> bytes:
    """The key's bytes once it is acceptable; the point check runs once per key."""
    raw = b64url_decode(x)
    try:
        check_public_key(raw)
    except UnacceptableKey as exc:
        raise ValueError(str(exc)) from None
    return raw


@functools.lru_cache(maxsize=1024)
def _public_key(x: bytes) -> Ed25519PublicKey:
    return Ed25519PublicKey.from_public_bytes(x)


@dataclass
class Check:
    id: str
    ok: bool = False
    skipped: bool = False
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "ok": self.ok, "skipped": self.skipped, "detail": self.detail}


@dataclass
class Verification:
    status: Status
    ok: bool
    kid: str | None
    signer: Literal["pinned", "unpinned"]
    checks: list[Check] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "status": self.status,
            "kid": self.kid,
            "signer": self.signer,
            "checks": [c.to_json() for c in self.checks],
        }

    def raise_for_failure(self) -> None:
        """Raise VerificationError naming the first failed check; return None when ok."""
        for check in self.checks:
            if not check.ok and not check.skipped:
                raise VerificationError(check.id, check.detail)
        if not self.ok:
            raise VerificationError("signature", "the receipt carries no signature")


class _Failed(Exception):
    pass


def not_a_receipt(value: JSON) -> str | None:
    """Why `value` is not a receipt at all, or None when it has a receipt's shape: an object
    with the members every receipt has, even one where nothing was agreed. Without them there
    is nothing to verify, which is not the same as a receipt that says nothing was signed."""
    if not isinstance(value, dict):
        return f"it is {_JSON_KINDS.get(type(value), 'not JSON')}, not a JSON object"
    missing = [name for name in RECEIPT_MEMBERS if name not in value]
    if missing:
        return (
            f"it has no {' or '.join(missing)} member (every receipt has artifact and "
            "signed_payload, both null when nothing was agreed)"
        )
    return None


def verify_receipt(
    receipt: JSON,
    *,
    trusted: Sequence[TrustedKey] = (),
    log: Sequence[JSON] | None = None,
    allow_test: bool = False,
) -> Verification:
    checks = {name: Check(name) for name in CHECKS}
    why = not_a_receipt(receipt)
    if why is not None or not isinstance(receipt, dict):
        for check in checks.values():
            check.detail = f"not a receipt: {why}"
        return Verification("invalid", False, None, "unpinned", list(checks.values()))
    artifact = receipt.get("artifact")
    header: dict[str, Any] | None = None
    x: bytes | None = None
    pinned: TrustedKey | None = None
    signature_ok = False

    def run(name: str, step: Any) -> Any:
        try:
            detail, value = step()
        except _Failed as exc:
            checks[name].detail = str(exc)
            return None
        checks[name].ok, checks[name].detail = True, detail
        return value

    def skip(name: str, why: str) -> None:
        checks[name].skipped, checks[name].detail = True, why

    unsigned = "unsigned receipt: nothing was agreed, so nothing was signed"
    if artifact is None:
        for name in CHECKS[:6]:
            skip(name, unsigned)
    else:
        # 1. header
        header = run("header", lambda: _check_header(artifact))
        # 2. key
        if header is None:
            skip("key", "no usable header")
        else:
            x = run("key", lambda: _check_key(receipt, header["kid"]))
        # 3. signature
        if header is None or x is None:
            skip("signature", "no usable header and key")
        else:
            signature_ok = bool(run("signature", lambda: _check_signature(receipt, artifact, x)))
        # 4. signer, 5. mode
        if header is None or x is None:
            skip("signer", "no usable key to compare")
            skip("mode", "no pinned key")
        else:
            pinned = run("signer", lambda: _check_signer(trusted, receipt, header["kid"], x))
            if pinned is None:
                skip("mode", "the signer is not pinned")
            else:
                run("mode", lambda: _check_mode(receipt, pinned, allow_test))
        # 6. terms
        run("terms", lambda: _check_terms(receipt))
    # 7. chain
    if log is None:
        skip("chain", "no log given")
    else:
        run("chain", lambda: _check_chain(receipt, log))
    # 8. report
    if artifact is None:
        skip("report", unsigned)
    else:
        run("report", lambda: _check_report(receipt))

    ran = [c for c in checks.values() if not c.skipped]
    all_passed = all(c.ok for c in ran)
    ok = artifact is not None and all_passed and signature_ok and pinned is not None
    integrity = ("header", "key", "signature", "terms", "chain", "report")
    status: Status
    if ok:
        status = "valid"
    elif any(not checks[n].ok and not checks[n].skipped for n in integrity):
        status = "invalid"
    elif artifact is None:
        status = "unsigned"
    else:
        status = "unverifiable"
    kid = header["kid"] if header else None
    return Verification(status, ok, kid, "pinned" if pinned else "unpinned", list(checks.values()))


@functools.lru_cache(maxsize=256)
def _decode_header(protected: str) -> Any:
    """Receipts from one arbiter share their header; decoding it once is enough."""
    try:
        return parse(b64url_decode(protected))
    except (ValueError, JSONError) as exc:
        raise _Failed(f"the protected header is not base64url JSON: {exc}") from None


def _check_header(artifact: object) -> tuple[str, dict[str, Any]]:
    if not isinstance(artifact, dict) or not isinstance(artifact.get("protected"), str):
        raise _Failed("the artifact has no protected header")
    header = _decode_header(artifact["protected"])
    if not isinstance(header, dict):
        raise _Failed("the protected header is not a JSON object")
    if not isinstance(header.get("alg"), str) or header["alg"] not in ALGORITHMS:
        raise _Failed(f"alg {header.get('alg')!r} is not EdDSA or Ed25519")
    if header.get("b64") is not False:
        raise _Failed("the header must say b64: false (a detached, unencoded payload)")
    if header.get("crit") != ["b64"]:
        raise _Failed('crit must be exactly ["b64"]')
    if not isinstance(header.get("kid"), str) or not header["kid"]:
        raise _Failed("the header names no kid")
    return f"{header['alg']}, detached, b64:false, kid {header['kid']}", header


def _check_key(receipt: Mapping[str, Any], kid: str) -> tuple[str, bytes]:
    jwks = receipt.get("jwks")
    keys = jwks.get("keys") if isinstance(jwks, dict) else None
    if not isinstance(keys, list):
        raise _Failed("the receipt embeds no JWKS")
    matching = [k for k in keys if isinstance(k, dict) and k.get("kid") == kid]
    if len(matching) != 1:
        raise _Failed(f"the receipt embeds {len(matching)} keys with kid {kid}, not exactly one")
    (jwk,) = matching
    try:
        x = _public_key_bytes(jwk)
    except ValueError as exc:
        raise _Failed(f"the embedded key is refused: {exc}") from None
    if not set(jwk) <= JWK_MEMBERS:
        extra = sorted(set(jwk) - JWK_MEMBERS)
        raise _Failed(f"the embedded key has members outside the profile: {extra}")
    if str(jwk.get("alg", "EdDSA")) not in ALGORITHMS or jwk.get("use", "sig") != "sig":
        raise _Failed("the embedded key is not a signing key (alg EdDSA or Ed25519, use sig)")
    if jwk.get("mode", "live") not in ("test", "live"):
        raise _Failed("the embedded key's mode must be test or live")
    return "one acceptable Ed25519 key with that kid is embedded", x


def _check_signature(
    receipt: Mapping[str, Any], artifact: Mapping[str, Any], x: bytes
) -> tuple[str, bool]:
    try:
        signature = b64url_decode(artifact.get("signature", ""))
        message = signing_input(artifact["protected"], receipt.get("signed_payload"))
    except (ValueError, JSONError) as exc:
        raise _Failed(f"cannot rebuild the signing input: {exc}") from None
    if len(signature) != 64:
        raise _Failed("an Ed25519 signature is 64 bytes")
    try:
        _public_key(x).verify(signature, message)
    except InvalidSignature:
        raise _Failed("the signature does not verify over the signed payload") from None
    return "the signature verifies over the canonical signed payload", True


def _check_signer(
    trusted: Sequence[TrustedKey], receipt: Mapping[str, Any], kid: str, x: bytes
) -> tuple[str, TrustedKey]:
    for key in trusted:
        if key.kid == kid and key.x == x:
            if _embedded_mode(receipt, kid) not in (None, key.mode):
                raise _Failed(f"the key {kid} is pinned as a {key.mode} key, embedded as another")
            return f"the key {kid} is pinned", key
    if any(key.kid == kid for key in trusted):
        raise _Failed(f"a different key is pinned under kid {kid}: the signer is unknown")
    raise _Failed(f"the key {kid} is not pinned: a valid signature proves nothing about who")


def _embedded_mode(receipt: Mapping[str, Any], kid: str) -> object:
    """The mode the embedded key states, if it states one (other arbiters' keys may not);
    the key check found exactly one."""
    keys = receipt["jwks"]["keys"]
    return next(k.get("mode") for k in keys if isinstance(k, dict) and k.get("kid") == kid)


def _check_mode(
    receipt: Mapping[str, Any], pinned: TrustedKey, allow_test: bool
) -> tuple[str, bool]:
    if pinned.mode == "live" and receipt.get("mode") == "live":
        return "a live receipt under a live key", True
    if allow_test:
        return "a test receipt, and test receipts are allowed", True
    raise _Failed("a test receipt (test key or test mode); allow test receipts to accept it")


def _check_terms(receipt: Mapping[str, Any]) -> tuple[str, bool]:
    signed = receipt.get("signed_payload")
    if not isinstance(signed, dict) or not isinstance(signed.get("session"), dict):
        raise _Failed("the receipt has no signed payload with a session")
    if not _same_terms(receipt.get("final_terms"), signed.get("final_terms")):
        raise _Failed("final_terms differ from the signed terms")
    if receipt.get("session_id") != signed["session"].get("session_id"):
        raise _Failed("session_id differs from the signed session")
    return "final_terms and session_id equal what was signed", True


def _same_terms(a: JSON, b: JSON) -> bool:
    """Equal as JSON: `==` alone would take `true` for `1`; sorted dumps tell them apart."""
    try:
        return a == b and orjson.dumps(a, option=_SORTED) == orjson.dumps(b, option=_SORTED)
    except TypeError:  # what orjson cannot write (huge integers): compare member by member
        return same_json(a, b)


_SORTED: Final = orjson.OPT_SORT_KEYS | orjson.OPT_PASSTHROUGH_SUBCLASS


def _check_chain(receipt: Mapping[str, Any], log: Sequence[JSON]) -> tuple[str, bool]:
    try:
        head = verify_chain(log)
    except ChainError as exc:
        raise _Failed(f"the log does not verify: {exc}") from None
    if not log:
        raise _Failed("the log is empty")
    chain = receipt.get("chain")
    if not isinstance(chain, dict):
        raise _Failed("the receipt names no chain")
    if head != chain.get("head") or len(log) != chain.get("length"):
        raise _Failed("the log's head or length is not the one the receipt names")
    first, last = log[0], log[-1]
    assert isinstance(first, dict) and isinstance(last, dict)  # verify_chain checked each
    signed = receipt.get("signed_payload")
    session = signed.get("session") if isinstance(signed, dict) else None
    named = session.get("session_id") if isinstance(session, dict) else receipt.get("session_id")
    _check_opening(first, named)
    if not isinstance(signed, dict):
        _check_ending(last, receipt.get("state"))
        return f"{len(log)} envelopes link up to the head the receipt names", True
    if not isinstance(session, dict):
        raise _Failed("the signed payload has no session to tie the log to")
    if len(log) < 2 or session.get("chain_head") != commit(log[-2]):
        raise _Failed("the signed chain_head is not the envelope before the agreement")
    if "agreement_hash" in session and session["agreement_hash"] != head:
        raise _Failed("the last envelope is not the agreement that was signed (agreement_hash)")
    _check_agreement(last, signed.get("final_terms"))
    bound = "the whole log" if "agreement_hash" in session else "all but the last envelope"
    return (
        f"{len(log)} envelopes link up to the head the receipt names; the signature covers "
        f"{bound}, and the last is the agreement of the signed terms",
        True,
    )


def _check_opening(first: Mapping[str, Any], named: object) -> None:
    payload = first.get("payload")
    payload = payload if isinstance(payload, dict) else {}
    opened = next((payload[m] for m in OPENING_IDS if m in payload), None)
    if opened is None:
        raise _Failed("the first envelope names no negotiation")
    if opened != named:
        raise _Failed(f"the log opens {opened!r}, not {named!r}: another negotiation's log")


def _check_agreement(last: Mapping[str, Any], signed_terms: JSON) -> None:
    member = AGREEMENTS.get(str(last.get("type")))
    if member is None:
        raise _Failed(f"the log ends with {last.get('type')!r}, not with an agreement")
    payload = last.get("payload")
    if not isinstance(payload, dict) or not _same_terms(payload.get(member), signed_terms):
        raise _Failed("the agreement at the end of the log holds other terms than were signed")


def _check_ending(last: Mapping[str, Any], state: object) -> None:
    ending = ENDINGS.get(str(last.get("type")))
    if ending is None:
        raise _Failed(f"the log ends with {last.get('type')!r}, not with a final envelope")
    if ending != state:
        raise _Failed(f"the log ends {ending} ({last.get('type')}), the receipt says {state!r}")


def _check_report(receipt: Mapping[str, Any]) -> tuple[str, bool]:
    if receipt.get("state") != "agreed":
        raise _Failed(f"a signed receipt is an agreement; this one says {receipt.get('state')!r}")
    signed = receipt.get("signed_payload")
    session = signed.get("session") if isinstance(signed, dict) else None
    if not isinstance(session, dict):
        raise _Failed("the receipt has no signed session to hold its report to")
    if "report_hash" not in session:
        unchecked = ", ".join(sorted(set(receipt) - NOT_REPORTED - {"state"})) or "nothing"
        return (
            f"state agreed; the arbiter signed no report, so these members are unsigned and "
            f"unchecked: {unchecked}",
            True,
        )
    try:
        reported = report_hash(receipt)
    except JSONError as exc:
        raise _Failed(f"the report cannot be canonicalized: {exc.reason}") from None
    if reported != session["report_hash"]:
        raise _Failed(
            "the report (state, protocol, chain, verdicts, invariants and the rest) is not "
            "the one signed"
        )
    revealed = _check_reveals(receipt, session)
    unchecked = ", ".join(m for m in ("signature",) if m in receipt) or "nothing"
    return (
        f"the report is the one signed; reveals checked against the commitments signed for "
        f"their parties: {revealed} (which parties revealed is not signed); "
        f"unsigned and unchecked: {unchecked} (the server's own note)",
        True,
    )


def _check_reveals(receipt: Mapping[str, Any], session: Mapping[str, Any]) -> int:
    """Reveals come after the signature: each must name the commitment signed for its party,
    and `matches` and I3 must say what opening it gives. Returns how many there are."""
    reveals = receipt.get("reveals", [])
    if not isinstance(reveals, list):
        raise _Failed("reveals is not a list")
    all_open = True
    for index, reveal in enumerate(reveals):
        if not isinstance(reveal, dict) or set(reveal) != REVEAL_MEMBERS:
            raise _Failed(f"reveal {index} is not {{party, commitment, matches, private}}")
        party = reveal["party"]
        signed = session.get(f"{party}_commitment") if isinstance(party, str) else None
        if not isinstance(signed, str) or reveal["commitment"] != signed:
            raise _Failed(f"reveal {index} names a commitment other than the one signed for it")
        try:
            opens = is_opening(signed, reveal["private"])
        except JSONError:
            opens = False
        if reveal["matches"] is not opens:
            raise _Failed(f"reveal {index} says matches {reveal['matches']!r}; it is {opens}")
        all_open = all_open and opens
    invariants = receipt.get("invariants")
    if (
        isinstance(invariants, dict)
        and JUDGED_ON_REVEALS in invariants
        and invariants[JUDGED_ON_REVEALS] is not all_open
    ):
        raise _Failed(f"{JUDGED_ON_REVEALS} must be {all_open}: what the reveals show")
    return len(reveals)

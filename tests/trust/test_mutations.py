"""Each change to a signed receipt or its log is caught, and by the check that should catch it
(receipts.md, Verification): the failing check ids are asserted, not just `ok is False`."""

import copy
import hashlib
import hmac
import string
from collections.abc import Iterator, Sequence
from typing import Any, Final

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from accord.core.commit import commit
from accord.core.jsonio import JSONError, canonical, parse
from accord.trust.ed25519 import UnacceptableKey, check_public_key
from accord.trust.encoding import b64url, b64url_decode
from accord.trust.keys import kid_for, public_bytes
from accord.trust.verify import CHECKS, Verification, load_trusted, verify_receipt
from tests.trust.conftest import Signed

B64URL: Final = string.ascii_letters + string.digits + "-_"
EXAMPLES: Final = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _verify(signed: Signed, receipt: Any, log: Sequence[Any] | None = None) -> Verification:
    agreement = signed.agreement
    trusted = load_trusted(agreement.jwks)
    return verify_receipt(receipt, trusted=trusted, log=agreement.log if log is None else log)


def _failed(verification: Verification) -> set[str]:
    return {c.id for c in verification.checks if not c.ok and not c.skipped}


def _first_failed(verification: Verification) -> str:
    return next(c.id for c in verification.checks if not c.ok and not c.skipped)


def _receipt(signed: Signed) -> dict[str, Any]:
    return copy.deepcopy(signed.agreement.receipt)


def test_the_untouched_receipt_passes_every_check(signed: Signed) -> None:
    verification = _verify(signed, _receipt(signed))
    assert verification.ok and verification.status == "valid"
    assert [c.id for c in verification.checks] == list(CHECKS)
    assert _failed(verification) == set()


# -- signed_payload --------------------------------------------------------------------------


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))
    elif isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        yield path, value


def _set(document: Any, path: tuple[Any, ...], value: Any) -> None:
    for step in path[:-1]:
        document = document[step]
    document[path[-1]] = value


@st.composite
def _payload_flip(draw: st.DrawFn, payload: dict[str, Any]) -> tuple[tuple[Any, ...], Any]:
    """A path to a string or number of the signed payload, and that value with one
    character (or digit) changed."""
    path, value = draw(st.sampled_from(list(_leaves(payload))))
    text = str(value)
    index = draw(st.integers(0, len(text) - 1))
    if isinstance(value, int):
        digit = draw(st.sampled_from([d for d in string.digits if d != text[index]]))
        return path, int(text[:index] + digit + text[index + 1 :])
    char = draw(st.characters(codec="utf-8", exclude_characters=[text[index]]))
    return path, text[:index] + char + text[index + 1 :]


@EXAMPLES
@given(data=st.data())
def test_a_changed_value_in_the_signed_payload_fails_the_signature(
    signed: Signed, data: st.DataObject
) -> None:
    receipt = _receipt(signed)
    path, value = data.draw(_payload_flip(receipt["signed_payload"]))
    _set(receipt["signed_payload"], path, value)
    expected = {"signature"}
    if path[0] == "final_terms" or path == ("session", "session_id"):
        expected.add("terms")  # the unsigned copies now differ from what was signed
    if path == ("session", "chain_head"):
        expected.add("chain")  # the signed head no longer names the envelope before agreement
    if path[0] == "final_terms" or path in (
        ("session", "session_id"),
        ("session", "agreement_hash"),
    ):
        expected.add("chain")  # the log no longer opens, ends or agrees as signed
    if path == ("session", "report_hash"):
        expected.add("report")  # the receipt's report is no longer the one signed
    verification = _verify(signed, receipt)
    assert _failed(verification) == expected, path
    assert verification.status == "invalid" and not verification.ok


# -- the artifact ----------------------------------------------------------------------------


def _expected_for_protected(protected: str, kid: str) -> str:
    """Which check a changed protected header should fail: header unless it still parses to
    an acceptable header; key when the kid changed (nothing is embedded under it); else the
    signature (the signing input changed)."""
    try:
        header = parse(b64url_decode(protected))
    except (ValueError, JSONError):
        return "header"
    if (
        not isinstance(header, dict)
        or header.get("alg") not in ("EdDSA", "Ed25519")
        or header.get("b64") is not False
        or header.get("crit") != ["b64"]
        or not isinstance(header.get("kid"), str)
        or not header["kid"]
    ):
        return "header"
    return "key" if header["kid"] != kid else "signature"


@EXAMPLES
@given(data=st.data())
def test_a_changed_character_in_the_protected_header_is_caught(
    signed: Signed, data: st.DataObject
) -> None:
    receipt = _receipt(signed)
    protected = receipt["artifact"]["protected"]
    index = data.draw(st.integers(0, len(protected) - 1))
    char = data.draw(st.sampled_from([c for c in B64URL if c != protected[index]]))
    changed = protected[:index] + char + protected[index + 1 :]
    receipt["artifact"]["protected"] = changed
    verification = _verify(signed, receipt)
    expected = _expected_for_protected(changed, receipt["jwks"]["keys"][0]["kid"])
    assert _failed(verification) == {expected}
    assert verification.status == "invalid" and not verification.ok


@EXAMPLES
@given(index=st.integers(0, 63), bit=st.integers(0, 7))
def test_a_flipped_bit_in_the_signature_fails_the_signature(
    signed: Signed, index: int, bit: int
) -> None:
    receipt = _receipt(signed)
    signature = bytearray(b64url_decode(receipt["artifact"]["signature"]))
    signature[index] ^= 1 << bit
    receipt["artifact"]["signature"] = b64url(bytes(signature))
    verification = _verify(signed, receipt)
    assert _failed(verification) == {"signature"}
    assert verification.status == "invalid"


def test_a_signature_with_non_canonical_trailing_bits_is_refused(signed: Signed) -> None:
    receipt = _receipt(signed)
    text = receipt["artifact"]["signature"]
    # 64 bytes are 86 characters; the last carries 2 bits of padding that must be zero.
    last = B64URL.index(text[-1])
    receipt["artifact"]["signature"] = text[:-1] + B64URL[last | 1]
    assert receipt["artifact"]["signature"] != text
    assert _failed(_verify(signed, receipt)) == {"signature"}


@EXAMPLES
@given(index=st.integers(0, 31), bit=st.integers(0, 7))
def test_a_flipped_bit_in_the_embedded_key_is_caught(signed: Signed, index: int, bit: int) -> None:
    receipt = _receipt(signed)
    x = bytearray(b64url_decode(receipt["jwks"]["keys"][0]["x"]))
    x[index] ^= 1 << bit
    receipt["jwks"]["keys"][0]["x"] = b64url(bytes(x))
    try:
        check_public_key(bytes(x))
        # An acceptable key that did not sign, and is not the key pinned under our kid.
        expected = {"signature", "signer"}
    except UnacceptableKey:
        expected = {"key"}  # refused on import: not on the curve, small order, non-canonical
    verification = _verify(signed, receipt)
    assert _failed(verification) == expected
    assert verification.status == "invalid"


# -- the log ---------------------------------------------------------------------------------


@st.composite
def _changed_envelope(draw: st.DrawFn, log: list[dict[str, Any]]) -> tuple[int, Any]:
    """An envelope of the log with one byte of its canonical form changed, still JSON."""
    index = draw(st.integers(0, len(log) - 1))
    data = canonical(log[index])
    positions = [i for i, byte in enumerate(data) if chr(byte).isalnum() and byte < 128]
    position = draw(st.sampled_from(positions))
    original = chr(data[position])
    pool = string.digits if original.isdigit() else string.ascii_letters
    replacement = draw(st.sampled_from([c for c in pool if c != original]))
    changed = data[:position] + replacement.encode() + data[position + 1 :]
    try:
        value = parse(changed)
    except JSONError:
        value = None
    assume(isinstance(value, dict))
    return index, value


@EXAMPLES
@given(data=st.data())
def test_any_changed_envelope_fails_the_chain(signed: Signed, data: st.DataObject) -> None:
    log = copy.deepcopy(signed.agreement.log)
    index, envelope = data.draw(_changed_envelope(log))
    assert envelope != log[index]
    log[index] = envelope
    verification = _verify(signed, _receipt(signed), log)
    assert _failed(verification) == {"chain"}
    assert verification.status == "invalid"


def _linked_extra(log: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The log with one more envelope, correctly linked, after the agreement."""
    extra = {**log[-1], "seq": len(log), "prev_hash": commit(log[-1]), "message_id": "msg_more"}
    return [*log, extra]


LOG_EDITS: Final = [
    pytest.param(lambda log: log[1:], id="first_dropped"),
    pytest.param(lambda log: log[:3] + log[4:], id="middle_dropped"),
    pytest.param(lambda log: log[:-1], id="last_dropped"),
    pytest.param(_linked_extra, id="linked_envelope_added"),
    pytest.param(lambda log: [*log[:3], log[3], *log[3:]], id="envelope_repeated"),
    pytest.param(lambda log: [log[0], log[2], log[1], *log[3:]], id="two_swapped"),
    pytest.param(lambda log: [*log[:-2], log[-1], log[-2]], id="last_two_swapped"),
    pytest.param(lambda log: list(reversed(log)), id="reversed"),
    pytest.param(lambda log: [], id="empty"),
]


@pytest.mark.parametrize("edit", LOG_EDITS)
def test_a_dropped_added_or_reordered_envelope_fails_the_chain(signed: Signed, edit: Any) -> None:
    log = edit(copy.deepcopy(signed.agreement.log))
    verification = _verify(signed, _receipt(signed), log)
    assert _failed(verification) == {"chain"}
    assert verification.status == "invalid"


# -- the unsigned copies ---------------------------------------------------------------------


def test_terms_changed_only_in_the_unsigned_copy_fail_the_terms(signed: Signed) -> None:
    receipt = _receipt(signed)
    receipt["final_terms"]["price"]["amount_minor"] = 1
    verification = _verify(signed, receipt)
    assert _failed(verification) == {"terms"}
    assert verification.status == "invalid"
    receipt = _receipt(signed)
    receipt["session_id"] = "room_someone_else"
    assert _failed(_verify(signed, receipt)) == {"terms"}


# -- keys and headers an attacker controls ---------------------------------------------------

ATTACKER: Final = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"attacker").digest())


def _our_kid(signed: Signed) -> str:
    kid: str = signed.agreement.receipt["jwks"]["keys"][0]["kid"]
    return kid


def _foreign_jwk(kid: str) -> dict[str, str]:
    x = b64url(public_bytes(ATTACKER))
    return {"kty": "OKP", "crv": "Ed25519", "x": x, "kid": kid, "alg": "EdDSA", "use": "sig"}


def test_a_foreign_key_under_our_kid_fails_the_signature_and_the_signer(signed: Signed) -> None:
    receipt = _receipt(signed)
    receipt["jwks"] = {"keys": [_foreign_jwk(_our_kid(signed))]}
    verification = _verify(signed, receipt)
    assert _failed(verification) == {"signature", "signer"}
    assert verification.status == "invalid" and verification.signer == "unpinned"
    # Without any pinned key the signer is unknown all the same.
    alone = verify_receipt(receipt, log=signed.agreement.log)
    assert _failed(alone) == {"signature", "signer"}


def test_a_forgery_re_signed_by_a_foreign_key_under_our_kid_fails_the_signer(
    signed: Signed,
) -> None:
    receipt = _receipt(signed)
    kid = _our_kid(signed)
    assert kid_for(public_bytes(ATTACKER)) != kid
    for terms in (receipt["final_terms"], receipt["signed_payload"]["final_terms"]):
        terms["price"]["amount_minor"] = 1
    protected = receipt["artifact"]["protected"]
    forged = ATTACKER.sign(protected.encode() + b"." + canonical(receipt["signed_payload"]))
    receipt["artifact"]["signature"] = b64url(forged)
    receipt["jwks"] = {"keys": [_foreign_jwk(kid)]}
    verification = verify_receipt(receipt, trusted=load_trusted(signed.agreement.jwks))
    assert _failed(verification) == {"signer"}
    assert (verification.status, verification.ok, verification.signer) == (
        "unverifiable",
        False,
        "unpinned",
    )
    with pytest.raises(Exception, match="signer"):
        verification.raise_for_failure()
    # With the log, the agreement at its end holds the real terms, not the forged ones.
    assert _failed(_verify(signed, receipt)) == {"signer", "chain"}


def _header(signed: Signed, **changes: Any) -> dict[str, Any]:
    header: dict[str, Any] = {
        "alg": "EdDSA",
        "b64": False,
        "crit": ["b64"],
        "kid": _our_kid(signed),
        "typ": "oanp-agreement+jws",
    }
    for name, value in changes.items():
        if value is None:
            header.pop(name)
        else:
            header[name] = value
    return header


def _resign(signed: Signed, header: dict[str, Any]) -> dict[str, Any]:
    """The receipt with `header`, and a signature that is correct for what the header says,
    made with our real live key (or, for HMAC, with our public key as the secret)."""
    receipt = _receipt(signed)
    protected = b64url(canonical(header))
    payload = canonical(receipt["signed_payload"])
    body = b64url(payload).encode() if header.get("b64", True) else payload
    message = protected.encode() + b"." + body
    alg = header.get("alg")
    if alg == "HS256":
        secret = b64url_decode(receipt["jwks"]["keys"][0]["x"])
        signature = hmac.new(secret, message, hashlib.sha256).digest()
    elif alg == "none":
        signature = b""
    elif alg == "RS256":
        rsa_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        signature = rsa_key.sign(message, padding.PKCS1v15(), hashes.SHA256())
    else:
        signature = signed.live_key.private.sign(message)
    receipt["artifact"] = {"protected": protected, "signature": b64url(signature)}
    return receipt


HEADER_ATTACKS: Final = [
    pytest.param({"b64": True}, id="b64_true"),
    pytest.param({"b64": None}, id="b64_missing"),
    pytest.param({"crit": None}, id="crit_missing"),
    pytest.param({"crit": ["b64", "exp"], "exp": 1}, id="crit_with_another_member"),
    pytest.param({"crit": []}, id="crit_empty"),
    pytest.param({"alg": "HS256"}, id="alg_HS256_keyed_with_our_public_key"),
    pytest.param({"alg": "none"}, id="alg_none"),
    pytest.param({"alg": "RS256"}, id="alg_RS256"),
    pytest.param({"alg": None}, id="alg_missing"),
    pytest.param({"alg": ["EdDSA"]}, id="alg_a_list"),
    pytest.param({"kid": None}, id="kid_missing"),
    pytest.param({"kid": ""}, id="kid_empty"),
]


@pytest.mark.parametrize("changes", HEADER_ATTACKS)
def test_a_header_outside_the_profile_fails_the_header(
    signed: Signed, changes: dict[str, Any]
) -> None:
    receipt = _resign(signed, _header(signed, **changes))
    verification = _verify(signed, receipt)
    assert _first_failed(verification) == "header"
    assert _failed(verification) == {"header"}
    skipped = {c.id for c in verification.checks if c.skipped}
    assert skipped == {"key", "signature", "signer", "mode"}
    assert verification.status == "invalid" and not verification.ok


def test_a_b64_true_header_with_a_detached_payload_and_our_own_signature_is_refused(
    signed: Signed,
) -> None:
    """Even a correct RFC 7515 JWS by our own key is refused when it is not the b64:false form,
    because b64:true signs base64url(payload) rather than the JCS bytes a verifier rebuilds."""
    receipt = _resign(signed, _header(signed, b64=True))
    protected, signature = receipt["artifact"]["protected"], receipt["artifact"]["signature"]
    message = protected.encode() + b"." + b64url(canonical(receipt["signed_payload"])).encode()
    signed.live_key.private.public_key().verify(b64url_decode(signature), message)
    assert _failed(_verify(signed, receipt)) == {"header"}


def test_alg_ed25519_of_rfc_9864_is_accepted(signed: Signed) -> None:
    receipt = _resign(signed, _header(signed, alg="Ed25519"))
    verification = _verify(signed, receipt)
    assert verification.ok and verification.status == "valid"


# -- malformed members -----------------------------------------------------------------------


def _put(path: tuple[Any, ...], value: Any) -> Any:
    def edit(receipt: dict[str, Any]) -> None:
        _set(receipt, path, value)

    return edit


MALFORMED: Final = [
    pytest.param(("artifact", "signature"), 123, "signature", id="signature_number"),
    pytest.param(("artifact", "signature"), None, "signature", id="signature_null"),
    pytest.param(("artifact", "signature"), "", "signature", id="signature_empty"),
    pytest.param(("artifact", "signature"), "a=", "signature", id="signature_padded"),
    pytest.param(("artifact", "protected"), 123, "header", id="protected_number"),
    pytest.param(("artifact", "protected"), "e30", "header", id="protected_empty_object"),
    pytest.param(("artifact",), "abc", "header", id="artifact_string"),
    pytest.param(("jwks", "keys", 0, "x"), 123, "key", id="x_number"),
    pytest.param(("jwks", "keys", 0, "x"), "a+b/", "key", id="x_not_base64url"),
    pytest.param(("jwks", "keys", 0, "kty"), "EC", "key", id="kty_EC"),
    pytest.param(("jwks", "keys"), "abc", "key", id="keys_string"),
    pytest.param(("jwks",), None, "key", id="jwks_null"),
]


@pytest.mark.parametrize(("path", "value", "check"), MALFORMED)
def test_a_malformed_member_fails_its_check_and_never_raises(
    signed: Signed, path: tuple[Any, ...], value: Any, check: str
) -> None:
    receipt = _receipt(signed)
    _set(receipt, path, value)
    verification = _verify(signed, receipt)
    assert _first_failed(verification) == check
    assert verification.status == "invalid" and not verification.ok


def test_two_embedded_keys_under_our_kid_fail_the_key(signed: Signed) -> None:
    receipt = _receipt(signed)
    ours = receipt["jwks"]["keys"][0]
    receipt["jwks"]["keys"] = [ours, _foreign_jwk(ours["kid"])]
    assert _failed(_verify(signed, receipt)) == {"key"}


def test_a_header_with_a_duplicate_member_fails_the_header(signed: Signed) -> None:
    kid = _our_kid(signed)
    text = f'{{"alg":"none","alg":"EdDSA","b64":false,"crit":["b64"],"kid":"{kid}"}}'
    receipt = _receipt(signed)
    receipt["artifact"]["protected"] = b64url(text.encode())
    assert _failed(_verify(signed, receipt)) == {"header"}


JSON_VALUES: Final = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**60), 2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if path:
        yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*path, index))


@EXAMPLES
@given(data=st.data(), value=JSON_VALUES)
def test_any_member_replaced_by_any_json_never_raises(
    signed: Signed, data: st.DataObject, value: Any
) -> None:
    receipt = _receipt(signed)
    path = data.draw(st.sampled_from(list(_paths(receipt))))
    _set(receipt, path, value)
    verification = _verify(signed, receipt)
    assert [c.id for c in verification.checks] == list(CHECKS)
    assert verification.ok == (verification.status == "valid")

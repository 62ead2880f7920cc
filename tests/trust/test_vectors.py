"""Conformance on the official vectors: RFC 8037 A.1 to A.5, RFC 8032 §7.1, RFC 7797 §4.2, the
derived receipt JWS, the Ed25519 speccheck edge cases, and a Valyzen OANP receipt."""

import hashlib
import hmac
import json
from typing import Any, Final, Literal

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from accord.core.jsonio import canonical, parse
from accord.trust.ed25519 import UnacceptableKey, check_public_key
from accord.trust.encoding import b64url, b64url_decode
from accord.trust.jws import TYP, protected_header, signing_input
from accord.trust.keys import kid_for, public_bytes
from accord.trust.verify import load_trusted, verify_receipt
from tests.trust.conftest import VECTORS


def _load(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


RFC8037: Final = _load("rfc8037/ed25519_appendix_a.json")
RFC8032: Final = _load("rfc8032/ed25519_section_7_1.json")["tests"]
RFC7797: Final = _load("rfc7797/examples.json")
DERIVED: Final = _load("derived/receipt_detached_jws.json")
SPECCHECK: Final = _load("ed25519_speccheck/cases.json")
VALYZEN: Final = _load("valyzen/dev-receipt.json")


# -- RFC 8037 Appendix A ---------------------------------------------------------------------


def _a1_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(b64url_decode(RFC8037["A.1_private_jwk"]["d"]))


def test_rfc8037_a1_a2_x_is_derived_from_d() -> None:
    d = b64url_decode(RFC8037["A.1_private_jwk"]["d"])
    assert d.hex() == RFC8037["seed_hex"]
    x = public_bytes(_a1_key())
    assert x.hex() == RFC8037["public_key_hex"]
    assert b64url(x) == RFC8037["A.1_private_jwk"]["x"] == RFC8037["A.2_public_jwk"]["x"]
    check_public_key(x)  # an ordinary key passes the import check


def test_rfc8037_a3_thumbprint() -> None:
    # RFC 7638: the required members in lexicographic order, no whitespace: exactly JCS.
    public = RFC8037["A.2_public_jwk"]
    members = {"crv": public["crv"], "kty": public["kty"], "x": public["x"]}
    assert canonical(members) == RFC8037["A.3_thumbprint_input"].encode()
    digest = hashlib.sha256(canonical(members)).digest()
    assert digest.hex() == RFC8037["A.3_thumbprint_sha256_hex"]
    assert b64url(digest) == RFC8037["A.3_thumbprint_b64u"]


def test_rfc8037_a4_signature_is_reproduced_from_the_seed() -> None:
    protected = b64url(RFC8037["A.4_protected_header_json"].encode())
    payload = b64url(RFC8037["A.4_payload_utf8"].encode())
    assert f"{protected}.{payload}" == RFC8037["A.4_signing_input"]
    signature = _a1_key().sign(RFC8037["A.4_signing_input"].encode("ascii"))
    assert signature.hex() == RFC8037["A.4_signature_hex"]
    assert f"{protected}.{payload}.{b64url(signature)}" == RFC8037["A.4_A.5_jws_compact"]


def test_rfc8037_a5_verification() -> None:
    protected, payload, signature = RFC8037["A.4_A.5_jws_compact"].split(".")
    x = b64url_decode(RFC8037["A.2_public_jwk"]["x"])
    key = Ed25519PublicKey.from_public_bytes(x)
    key.verify(b64url_decode(signature), f"{protected}.{payload}".encode("ascii"))
    assert b64url_decode(payload) == RFC8037["A.4_payload_utf8"].encode()
    with pytest.raises(InvalidSignature):
        key.verify(b64url_decode(signature), f"{protected}.{payload}x".encode("ascii"))


# -- RFC 8032 §7.1 ---------------------------------------------------------------------------


@pytest.mark.parametrize("vector", RFC8032, ids=[v["name"] for v in RFC8032])
def test_rfc8032_sign_and_verify(vector: dict[str, str]) -> None:
    private = Ed25519PrivateKey.from_private_bytes(bytes.fromhex(vector["secret_key_hex"]))
    public = public_bytes(private)
    assert public.hex() == vector["public_key_hex"]
    message = bytes.fromhex(vector["message_hex"])
    signature = private.sign(message)
    assert signature.hex() == vector["signature_hex"]
    check_public_key(public)
    Ed25519PublicKey.from_public_bytes(public).verify(signature, message)
    tampered = bytes([signature[0] ^ 1]) + signature[1:]
    with pytest.raises(InvalidSignature):
        Ed25519PublicKey.from_public_bytes(public).verify(tampered, message)


# -- RFC 7797 §4 and our detached form -------------------------------------------------------


def _hs256(signing_input_bytes: bytes) -> str:
    key = b64url_decode(RFC7797["hmac_key_jwk"]["k"])
    return b64url(hmac.new(key, signing_input_bytes, hashlib.sha256).digest())


def test_rfc7797_4_1_b64_true_for_contrast() -> None:
    case = RFC7797["4.1_b64_true"]
    protected = b64url(case["protected_header_json"].encode())
    encoded_input = f"{protected}.{b64url(RFC7797['payload_utf8'].encode())}".encode("ascii")
    assert encoded_input.decode() == case["signing_input"]
    assert f"{case['signing_input']}.{_hs256(encoded_input)}" == case["jws_compact"]


def test_rfc7797_4_2_detached_unencoded_payload_structure() -> None:
    """ASCII(base64url(protected)) "." raw payload bytes: the HS256 value of §4.2, rebuilt."""
    case = RFC7797["4.2_b64_false_detached"]
    protected = b64url(case["protected_header_json"].encode())
    assert protected == case["jws_flattened_json"]["protected"]
    raw_input = protected.encode("ascii") + b"." + RFC7797["payload_utf8"].encode()
    assert raw_input.decode() == case["signing_input_utf8"]
    signature = _hs256(raw_input)
    assert signature == case["jws_flattened_json"]["signature"]
    assert f"{protected}..{signature}" == case["jws_compact_detached"]
    # Ours has the same shape; the raw payload is the JCS bytes of the signed payload.
    payload = {"b": [1, 2.5, "€"], "a": {"z": None, "y": True}}
    assert signing_input(protected, payload) == protected.encode("ascii") + b"." + canonical(
        payload
    )


def test_our_protected_header_is_exactly_the_spec_one_and_canonical() -> None:
    kid = "ed25519-0123456789abcdef"
    header = protected_header(kid)
    assert header == (
        b'{"alg":"EdDSA","b64":false,"crit":["b64"],"kid":"ed25519-0123456789abcdef",'
        b'"typ":"oanp-agreement+jws"}'
    )
    assert TYP == "oanp-agreement+jws"
    assert canonical(parse(header)) == header


SIGNED_B64_FALSE: Final = [s for s in DERIVED["signatures"] if "form" not in s]
SIGNED_B64_TRUE: Final = [s for s in DERIVED["signatures"] if "form" in s]


@pytest.mark.parametrize("vector", SIGNED_B64_FALSE, ids=[s["alg"] for s in SIGNED_B64_FALSE])
def test_derived_b64_false_verifies_through_our_signing_input(vector: dict[str, str]) -> None:
    protected, empty, signature = vector["jws_detached"].split(".")
    assert empty == ""  # detached
    assert b64url_decode(protected) == vector["protected_header_json"].encode()
    payload = DERIVED["receipt_object"]
    assert canonical(payload) == DERIVED["jcs_bytes_utf8"].encode()
    assert hashlib.sha256(canonical(payload)).hexdigest() == DERIVED["jcs_sha256_hex"]
    message = signing_input(protected, payload)
    assert message == vector["signing_input_prefix"].encode("ascii") + canonical(payload)
    public = Ed25519PublicKey.from_public_bytes(b64url_decode(RFC8037["A.2_public_jwk"]["x"]))
    public.verify(b64url_decode(signature), message)
    # The signature is Ed25519's over the same bytes whichever alg name the header carries.
    assert _a1_key().sign(message) == b64url_decode(signature)


@pytest.mark.parametrize("vector", SIGNED_B64_TRUE, ids=[s["alg"] for s in SIGNED_B64_TRUE])
def test_derived_b64_true_is_valid_jws_but_refused_as_a_receipt(vector: dict[str, str]) -> None:
    protected, _, signature = vector["jws_detached"].split(".")
    encoded = b64url(canonical(DERIVED["receipt_object"]))
    public_x = RFC8037["A.2_public_jwk"]["x"]
    Ed25519PublicKey.from_public_bytes(b64url_decode(public_x)).verify(
        b64url_decode(signature), f"{protected}.{encoded}".encode("ascii")
    )
    kid = json.loads(vector["protected_header_json"])["kid"]
    receipt = {
        "artifact": {"protected": protected, "signature": signature},
        "signed_payload": DERIVED["receipt_object"],
        "jwks": {"keys": [{**RFC8037["A.2_public_jwk"], "kid": kid}]},
    }
    checks = {c.id: c for c in verify_receipt(receipt).checks}
    assert not checks["header"].ok and "b64: false" in checks["header"].detail


# -- Ed25519 speccheck edge cases ------------------------------------------------------------
#
# Policy (receipts.md, Keys; accord/trust/ed25519.py), as measured on these 12 cases with
# cryptography 50 (OpenSSL):
# - Public keys are checked when imported (`check_public_key`, used by `load_trusted` and by
#   the verifier's `key` check): a non-canonical encoding (y ≥ p, or x = 0 with the sign bit
#   set) or a point of small order ([8]A = identity) is refused. A key of large order with a
#   small torsion component ("mixed": cases 2, 3, 4, 5, 8, 9) is not small order: accepted.
# - Signatures are checked by OpenSSL through `cryptography`: the cofactorless equation
#   [S]B = R + [k]A, S must be < L (cases 6, 7), and a non-canonical R fails (cases 8, 9).
#   R is not checked for small order (case 2 verifies), and signatures that hold only under
#   the cofactored equation fail (cases 4, 5).
# - OpenSSL alone accepts cases 0, 1 (small-order A) and 11 (non-canonical A); it is the import
#   check that refuses them, which is why every key goes through it first.

Verdict = Literal["accept", "refuse"]
RefusedBy = Literal["check_public_key", "cryptography", None]

# case: (OpenSSL alone, our verdict, refused by, why)
SPECCHECK_TABLE: Final[dict[int, tuple[Verdict, Verdict, RefusedBy, str]]] = {
    0: ("accept", "refuse", "check_public_key", "A is of small order (S = 0, R small)"),
    1: ("accept", "refuse", "check_public_key", "A is of small order (R mixed)"),
    2: ("accept", "accept", None, "A mixed (not small), R small: cofactorless equation holds"),
    3: ("accept", "accept", None, "A and R mixed, equation holds cofactored and cofactorless"),
    4: ("refuse", "refuse", "cryptography", "A, R mixed: holds only cofactored"),
    5: ("refuse", "refuse", "cryptography", "A mixed, R prime-order: holds only cofactored"),
    6: ("refuse", "refuse", "cryptography", "A prime-order, S ≥ L (non-canonical scalar)"),
    7: ("refuse", "refuse", "cryptography", "A prime-order, S ≥ L far above (non-canonical)"),
    8: ("refuse", "refuse", "cryptography", "A mixed, R non-canonical (x = 0, sign bit set)"),
    9: ("refuse", "refuse", "cryptography", "A mixed, R non-canonical (x = 0, sign bit set)"),
    10: ("refuse", "refuse", "check_public_key", "A non-canonical (x = 0, sign bit set)"),
    11: ("accept", "refuse", "check_public_key", "A non-canonical; OpenSSL alone accepts"),
}


def _openssl(case: dict[str, str]) -> Verdict:
    public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(case["pub_key"]))
    try:
        public.verify(bytes.fromhex(case["signature"]), bytes.fromhex(case["message"]))
    except InvalidSignature:
        return "refuse"
    return "accept"


def _ours(case: dict[str, str]) -> tuple[Verdict, RefusedBy]:
    try:
        check_public_key(bytes.fromhex(case["pub_key"]))
    except UnacceptableKey:
        return "refuse", "check_public_key"
    if _openssl(case) == "refuse":
        return "refuse", "cryptography"
    return "accept", None


def test_speccheck_table_covers_every_case() -> None:
    assert len(SPECCHECK) == 12
    assert sorted(SPECCHECK_TABLE) == list(range(len(SPECCHECK)))


@pytest.mark.parametrize(("index", "row"), SPECCHECK_TABLE.items(), ids=lambda v: str(v))
def test_speccheck_case(index: int, row: tuple[Verdict, Verdict, RefusedBy, str]) -> None:
    openssl, verdict, refused_by, _reason = row
    case = SPECCHECK[index]
    assert _openssl(case) == openssl
    assert _ours(case) == (verdict, refused_by)
    if refused_by == "check_public_key":
        # The same key is refused by load_trusted, so no JWKS can pin it.
        jwk = {
            "kty": "OKP",
            "crv": "Ed25519",
            "kid": "k",
            "x": b64url(bytes.fromhex(case["pub_key"])),
        }
        with pytest.raises(ValueError, match="key 0 of the JWKS"):
            load_trusted({"keys": [jwk]})


# -- A Valyzen OANP receipt ------------------------------------------------------------------

VALYZEN_KEY: Final = {
    "kty": "OKP",
    "crv": "Ed25519",
    "kid": "ed25519-2f3286feb69fb953",
    "x": "Er_WT_nxhGzA8212gQp8dCBwvQRC4TmT1s8n185Znyg",
    "alg": "EdDSA",
    "use": "sig",
    "mode": "test",
}


def _statuses(verification: Any) -> dict[str, str]:
    return {
        c.id: "skipped" if c.skipped else "ok" if c.ok else "failed" for c in verification.checks
    }


def test_valyzen_kid_follows_our_kid_rule() -> None:
    assert kid_for(b64url_decode(VALYZEN_KEY["x"])) == VALYZEN_KEY["kid"]


def test_valyzen_receipt_is_valid_when_its_test_key_is_pinned_and_test_is_allowed() -> None:
    verification = verify_receipt(
        VALYZEN, trusted=load_trusted({"keys": [VALYZEN_KEY]}), allow_test=True
    )
    assert (verification.status, verification.ok, verification.signer) == ("valid", True, "pinned")
    assert verification.kid == VALYZEN_KEY["kid"]
    assert _statuses(verification) == {
        "header": "ok",
        "key": "ok",
        "signature": "ok",
        "signer": "ok",
        "mode": "ok",
        "terms": "ok",
        "chain": "skipped",
        "report": "ok",
    }
    verification.raise_for_failure()
    # The gateway signs no report: the verifier says which members nothing vouches for.
    (report,) = [c for c in verification.checks if c.id == "report"]
    assert "unsigned and unchecked: attested, chain, enforcement" in report.detail


def test_valyzen_receipt_signer_is_unpinned_when_its_key_is_not_pinned() -> None:
    verification = verify_receipt(VALYZEN, allow_test=True)
    assert (verification.status, verification.ok, verification.signer) == (
        "unverifiable",
        False,
        "unpinned",
    )
    statuses = _statuses(verification)
    assert statuses["signature"] == "ok" and statuses["signer"] == "failed"
    assert statuses["mode"] == "skipped"


def test_valyzen_receipt_fails_the_mode_check_when_test_receipts_are_not_allowed() -> None:
    verification = verify_receipt(VALYZEN, trusted=load_trusted({"keys": [VALYZEN_KEY]}))
    assert not verification.ok and verification.status == "unverifiable"
    statuses = _statuses(verification)
    assert statuses["signer"] == "ok" and statuses["mode"] == "failed"
    assert [id for id, s in statuses.items() if s == "failed"] == ["mode"]

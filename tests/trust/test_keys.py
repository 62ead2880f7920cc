"""Signing keys and commitments: the keyring file, kids, rotation, concurrent creation, what
a verifier refuses to pin, and private-set commitments (receipts.md, Keys and Commitments)."""

import hashlib
import multiprocessing
import re
import stat
import threading
from pathlib import Path
from typing import Any, Final

import pytest

from accord.trust.commitments import commit_set, private_set, verify_reveal
from accord.trust.encoding import b64url, b64url_decode
from accord.trust.keys import keyring_path, load_keyring, rotate
from accord.trust.verify import load_trusted
from tests.conftest import START

KID: Final = re.compile(r"ed25519-[0-9a-f]{16}")
NONCE: Final = b64url(bytes(range(16)))  # 128 bits: 22 characters


def _path(tmp_path: Path) -> Path:
    return keyring_path(None, tmp_path / "data")


def test_keyring_is_created_on_first_load_owner_only(tmp_path: Path) -> None:
    path = _path(tmp_path)
    assert path == tmp_path / "data" / "keys" / "keyring.json"
    assert not path.exists()
    keyring = load_keyring(path, now=START)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert sorted((k.use, k.mode) for k in keyring.keys) == [
        ("receipt", "live"),
        ("receipt", "test"),
        ("webhook", "live"),
    ]
    assert {k.status for k in keyring.keys} == {"active"}
    assert [j["kid"] for j in keyring.jwks()["keys"]] == [
        k.kid for k in keyring.keys if k.use == "receipt"
    ]


def test_a_loose_keyring_file_is_made_owner_only_again(tmp_path: Path) -> None:
    path = _path(tmp_path)
    load_keyring(path, now=START)
    path.chmod(0o644)
    load_keyring(path, now=START)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_kid_is_ed25519_and_16_hex_of_sha256_of_the_public_key(tmp_path: Path) -> None:
    keyring = load_keyring(_path(tmp_path), now=START)
    for key in keyring.keys:
        assert KID.fullmatch(key.kid)
        assert key.kid == "ed25519-" + hashlib.sha256(key.public).hexdigest()[:16]
        jwk = key.public_jwk()
        assert jwk == {
            "kty": "OKP",
            "crv": "Ed25519",
            "x": b64url(key.public),
            "kid": key.kid,
            "alg": "EdDSA",
            "use": "sig",
            "mode": key.mode,
        }
        assert b64url_decode(jwk["x"]) == key.public and len(key.public) == 32


def test_loading_twice_gives_the_same_keys(tmp_path: Path) -> None:
    first = load_keyring(_path(tmp_path), now=START)
    second = load_keyring(_path(tmp_path), now=START)
    assert [(k.kid, k.mode, k.status) for k in first.keys] == [
        (k.kid, k.mode, k.status) for k in second.keys
    ]
    assert [k.public for k in first.keys] == [k.public for k in second.keys]
    assert first.jwks() == second.jwks()


def test_rotate_retires_the_active_key_of_that_mode_and_keeps_it_published(
    tmp_path: Path,
) -> None:
    path = _path(tmp_path)
    before = load_keyring(path, now=START)
    old_live, test = before.active("live"), before.active("test")
    after = rotate(path, "live", now=START)
    assert after.active("live").kid != old_live.kid
    assert after.active("test").kid == test.kid  # the other mode is untouched
    statuses = {k.kid: k.status for k in after.keys}
    assert statuses[old_live.kid] == "retired" and statuses[test.kid] == "active"
    published = {k["kid"] for k in after.jwks()["keys"]}
    assert published == {old_live.kid, test.kid, after.active("live").kid}
    assert load_keyring(path, now=START).jwks() == after.jwks()  # what was written is read back
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def _load_kids(path: str) -> list[tuple[str, str]]:
    return [(k.kid, f"{k.use} {k.mode}") for k in load_keyring(Path(path), now=START).keys]


ONE_EACH: Final = ["receipt live", "receipt test", "webhook live"]


def _load_in_process(path: str, barrier: Any, results: Any) -> None:
    barrier.wait()
    results.put(_load_kids(path))


def test_concurrent_first_loads_in_processes_create_one_key_per_mode(tmp_path: Path) -> None:
    # fork: the children start with the keyring code loaded and meet at a barrier, so their
    # first loads race for real.
    context = multiprocessing.get_context("fork")
    path, count = str(_path(tmp_path)), 6
    barrier, results = context.Barrier(count), context.Queue()
    processes = [
        context.Process(target=_load_in_process, args=(path, barrier, results))
        for _ in range(count)
    ]
    for process in processes:
        process.start()
    kids = [results.get(timeout=30) for _ in processes]
    for process in processes:
        process.join(timeout=30)
        assert process.exitcode == 0
    assert all(result == kids[0] for result in kids)
    assert sorted(mode for _, mode in kids[0]) == ONE_EACH
    assert _load_kids(path) == kids[0]


def test_concurrent_first_loads_in_threads_create_one_key_per_mode(tmp_path: Path) -> None:
    path = _path(tmp_path)
    barrier = threading.Barrier(8)
    results: list[list[tuple[str, str]]] = []
    lock = threading.Lock()

    def run() -> None:
        barrier.wait()
        kids = _load_kids(str(path))
        with lock:
            results.append(kids)

    threads = [threading.Thread(target=run) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 8 and all(result == results[0] for result in results)
    assert sorted(mode for _, mode in results[0]) == ONE_EACH


# -- what a verifier pins --------------------------------------------------------------------


def _jwk(x: bytes, **changes: Any) -> dict[str, Any]:
    return {"kty": "OKP", "crv": "Ed25519", "kid": "ed25519-0000000000000000", "x": b64url(x)} | (
        changes
    )


GOOD_X: Final = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
P: Final = 2**255 - 19


def test_load_trusted_pins_a_good_key_with_its_mode() -> None:
    (live,) = load_trusted({"keys": [_jwk(GOOD_X)]})
    assert (live.x, live.mode) == (GOOD_X, "live")  # no mode means live
    (test,) = load_trusted({"keys": [_jwk(GOOD_X, mode="test")]})
    assert test.mode == "test"


REFUSED_KEYS: Final = [
    pytest.param(_jwk(bytes([1]) + bytes(31)), "small order", id="identity_small_order"),
    pytest.param(_jwk(bytes(32)), "small order", id="order_4_point_y0"),
    pytest.param(
        _jwk(bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa")),
        "small order",
        id="order_8_point",
    ),
    pytest.param(_jwk((P + 1).to_bytes(32, "little")), "not canonically", id="y_at_least_p"),
    pytest.param(
        _jwk(bytes([1]) + bytes(30) + bytes([0x80])), "not canonically", id="x0_with_sign_bit"
    ),
    pytest.param(_jwk(GOOD_X[:31]), "32 bytes", id="short"),
    pytest.param(_jwk(GOOD_X, kty="EC"), "not an Ed25519 key", id="kty_EC"),
    pytest.param(_jwk(GOOD_X, crv="X25519"), "not an Ed25519 key", id="crv_X25519"),
    pytest.param(_jwk(GOOD_X, crv="Ed448"), "not an Ed25519 key", id="crv_Ed448"),
    pytest.param(_jwk(GOOD_X, kid=""), "no kid", id="kid_empty"),
    pytest.param(_jwk(GOOD_X, mode="staging"), "mode", id="mode_unknown"),
]


@pytest.mark.parametrize(("jwk", "reason"), REFUSED_KEYS)
def test_load_trusted_refuses_the_whole_set_for_one_bad_key(
    jwk: dict[str, Any], reason: str
) -> None:
    with pytest.raises(ValueError, match=reason):
        load_trusted({"keys": [_jwk(GOOD_X), jwk]})


def test_load_trusted_refuses_what_is_not_a_jwks() -> None:
    values: list[Any] = [None, [], {"keys": {}}, {"nokeys": []}]
    for value in values:
        with pytest.raises(ValueError, match="JWKS"):
            load_trusted(value)


# -- commitments -----------------------------------------------------------------------------


def test_private_set_needs_a_nonce_of_at_least_128_bits() -> None:
    assert private_set({"min": 100}, nonce=NONCE) == {"nonce": NONCE, "min": 100}
    with pytest.raises(ValueError, match="128 bits"):
        private_set({"min": 100}, nonce=NONCE[:21])
    with pytest.raises(ValueError, match="128 bits"):
        private_set({"min": 100}, nonce="")


def test_private_set_refuses_values_that_already_carry_a_nonce() -> None:
    with pytest.raises(ValueError, match="nonce"):
        private_set({"min": 100, "nonce": "mine"}, nonce=NONCE)


def test_verify_reveal_is_true_only_for_the_exact_set() -> None:
    private = private_set({"min": {"amount_minor": 9000, "currency": "EUR"}, "qty": 3}, nonce=NONCE)
    commitment = commit_set(private)
    assert commitment.startswith("sha256:") and len(commitment) == 7 + 64
    assert verify_reveal(commitment, private)
    assert verify_reveal(commitment, dict(reversed(list(private.items()))))  # key order is JCS's
    other_nonce = b64url(bytes(range(1, 17)))
    for wrong in (
        {**private, "qty": 4},
        {**private, "nonce": other_nonce},
        {**private, "extra": True},
        {k: v for k, v in private.items() if k != "qty"},
        {k: v for k, v in private.items() if k != "nonce"},
        {"min": {"amount_minor": 9000, "currency": "EUR"}, "qty": 3.5},
        {},
    ):
        assert not verify_reveal(commitment, wrong), wrong
    assert not verify_reveal("sha256:" + "0" * 64, private)
    assert verify_reveal(commit_set({}), {})  # the server's explicit empty set

"""The delivery rules and signatures (docs/webhooks.md): which events an endpoint asked for, the
retry schedule, the URLs Accord refuses to call, and `v1` / `v1a` signatures as a receiver checks
them (`v1` with the `standardwebhooks` library itself)."""

import base64
import random
from datetime import datetime, timedelta
from pathlib import Path
from typing import Final

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from hypothesis import given
from hypothesis import strategies as st
from standardwebhooks import Webhook

from accord.app.webhook_delivery import signing_secrets
from accord.core.times import format_time
from accord.store.webhooks import SecretRow
from accord.trust.keys import keyring_path, load_keyring, rotate
from accord.trust.webhook_signatures import matches
from accord.webhooks import rules
from accord.webhooks.signatures import new_secret, public_key_text, sign_v1, sign_v1a
from tests.conftest import START

BODY: Final = b'{"data":{},"id":"evt_7","timestamp":"2026-11-30T10:00:00Z","type":"webhook.test"}'


@pytest.mark.parametrize(
    ("event_types", "kind", "wanted"),
    [
        (None, "envelope.move.counter", True),
        (["envelope.move.counter"], "envelope.move.counter", True),
        (["envelope.move.counter"], "envelope.move.approve", False),
        (["envelope.*"], "envelope.move.approve", True),
        (["envelope.move.*"], "envelope.session.agree", False),
        (["notification.*"], "notification.your_turn", True),
        (["notification.*"], "envelope.move.offer", False),
        (["notification.your_turn", "envelope.*"], "notification.agreed", False),
        (["envelope"], "envelope.move.offer", False),  # exact, not a prefix
    ],
)
def test_an_endpoint_gets_exactly_the_types_it_named(
    event_types: list[str] | None, kind: str, wanted: bool
) -> None:
    assert rules.wanted(event_types, kind) is wanted


def test_the_schedule_is_standard_webhooks_with_ten_per_cent_jitter() -> None:
    rng = random.Random(7)
    for failed, base in enumerate(rules.SCHEDULE):
        for _ in range(50):
            delay = rules.next_delay(failed, rng)
            assert delay is not None
            assert base * 0.9 <= delay <= base * 1.1
    assert rules.next_delay(rules.ATTEMPTS, rng) is None  # the tenth failure is the last
    assert sum(rules.SCHEDULE) == pytest.approx(3.3 * 86_400, rel=0.05)  # about three days


@pytest.mark.parametrize(
    ("url", "allow_private", "problem"),
    [
        ("https://hooks.example.com/accord", False, None),
        ("https://hooks.example.com:8443/accord?x=1", False, None),
        ("http://hooks.example.com/accord", False, "must be https"),
        ("ftp://hooks.example.com/", False, "must be https"),
        ("https://user:pw@hooks.example.com/", False, "must not hold a user name or password"),
        ("https:///nohost", False, "names no host"),
        ("https://127.0.0.1/", False, "is a private address"),
        ("https://10.1.2.3/", False, "is a private address"),
        ("https://[::1]/", False, "is a private address"),
        ("https://169.254.169.254/latest", False, "is a private address"),
        ("https://localhost/", False, "is a private address"),
        ("https://hooks.example.com:99999/", False, "is not a URL"),
        ("http://127.0.0.1:9000/hook", True, None),
        ("ftp://127.0.0.1/", True, "must be http or https"),
    ],
)
def test_urls_accord_will_not_call(url: str, allow_private: bool, problem: str | None) -> None:
    assert rules.url_problem(url, allow_private=allow_private) == problem


@pytest.mark.parametrize(
    ("addresses", "public"),
    [
        (["93.184.215.14"], True),
        (["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"], True),
        (["93.184.215.14", "10.0.0.1"], False),  # one private answer is enough to refuse
        (["fe80::1%eth0"], False),
        ([], False),  # a name that resolves to nothing
    ],
)
def test_a_name_must_resolve_to_public_addresses_only(addresses: list[str], public: bool) -> None:
    assert rules.all_public(addresses) is public


def test_v1_verifies_with_the_standardwebhooks_library() -> None:
    secret = new_secret()
    assert secret.startswith("whsec_") and len(base64.b64decode(secret[6:])) == 32
    now = int(datetime.now().timestamp())
    headers = {
        "webhook-id": "evt_7",
        "webhook-timestamp": str(now),
        "webhook-signature": sign_v1(secret, "evt_7", now, BODY),
    }
    assert Webhook(secret).verify(BODY, headers)["id"] == "evt_7"
    with pytest.raises(Exception, match="signature"):
        Webhook(new_secret()).verify(BODY, headers)
    with pytest.raises(Exception, match="signature"):
        Webhook(secret).verify(BODY.replace(b"evt_7", b"evt_8"), headers)


@given(st.binary(max_size=300), st.integers(0, 2**40))
def test_v1a_is_ed25519_over_the_same_content(body: bytes, timestamp: int) -> None:
    key = Ed25519PrivateKey.generate()
    public = key.public_key().public_bytes_raw()
    header = sign_v1a(key, "evt_1", timestamp, body)
    version, _, signature = header.partition(",")
    assert version == "v1a"
    Ed25519PublicKey.from_public_bytes(public).verify(
        base64.b64decode(signature), f"evt_1.{timestamp}.".encode() + body
    )
    assert matches(header, "evt_1", timestamp, body, public_keys=[public_key_text(public)])
    assert not matches(header, "evt_2", timestamp, body, public_keys=[public_key_text(public)])
    other = Ed25519PrivateKey.generate().public_key().public_bytes_raw()
    assert not matches(header, "evt_1", timestamp, body, public_keys=[public_key_text(other)])


def test_a_rotated_secret_signs_beside_the_new_one_for_its_overlap() -> None:
    made = START
    old = SecretRow(1, "whsec_old", format_time(made), 0)
    new = SecretRow(2, "whsec_new", format_time(made + timedelta(hours=1)), 3_600)
    assert signing_secrets([old], made) == ["whsec_old"]
    assert signing_secrets([old, new], made + timedelta(hours=1)) == ["whsec_new", "whsec_old"]
    assert signing_secrets([old, new], made + timedelta(hours=2)) == ["whsec_new"]
    oldest = SecretRow(0, "whsec_oldest", format_time(made - timedelta(days=1)), 0)
    assert "whsec_oldest" not in signing_secrets([oldest, old, new], made + timedelta(hours=1))


def test_the_webhook_key_is_no_receipt_key_and_overlaps_a_day_after_rotation(
    tmp_path: Path,
) -> None:
    path = keyring_path(None, tmp_path)
    keyring = load_keyring(path, now=START)
    (first,) = keyring.webhook_keys()
    assert first.kid not in {j["kid"] for j in keyring.jwks()["keys"]}
    assert keyring.webhook_signers(START) == (first,)
    later = START + timedelta(days=3)
    rotated = rotate(path, "live", now=later, use="webhook")
    old, new = rotated.webhook_keys()
    assert (old.kid, old.status, new.status) == (first.kid, "retired", "active")
    assert rotated.active("live").kid == keyring.active("live").kid  # receipts keep their key
    assert rotated.webhook_signers(later + timedelta(hours=23)) == (new, old)
    assert rotated.webhook_signers(later + timedelta(hours=25)) == (new,)

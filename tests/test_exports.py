"""The public surface of `accord.trust` is a decision: nothing leaks out, nothing is left out."""

import accord.trust


def test_trust_exports_exactly_its_public_names() -> None:
    public = {name for name in vars(accord.trust) if not name.startswith("_")}
    modules = {
        "commitments",
        "ed25519",
        "encoding",
        "jws",
        "keys",
        "receipts",
        "verify",
        "webhook_signatures",
    }
    assert public - modules == set(accord.trust.__all__)

"""Tampering with a signed receipt or its log, at both tables: every edit of what the signature
covers is caught, and by the check that should catch it, through `verify_receipt` and through
`accord verify` (exit 1, the check named). The checks are those of docs/receipts.md."""

import copy
import hashlib
import json
import re
import string
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from accord.cli.main import app
from accord.core.commit import commit
from accord.core.jsonio import JSONError, canonical, parse
from accord.trust.encoding import b64url
from accord.trust.jws import protected_header
from accord.trust.keys import kid_for, public_bytes
from accord.trust.receipts import report_hash
from accord.trust.verify import CHECKS, Verification, load_trusted, verify_receipt
from tests.trust.conftest import TABLES, Table

EXAMPLES: Final = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
ATTACKER: Final = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"mallory").digest())
FAILED_ROW: Final = re.compile(r"│ (\w+) +│ failed +│")
# Where each table's agreement envelope holds the terms (rooms-api.md; arbitrated-rest.md).
TERMS_MEMBER: Final = {"rooms": "terms", "arbitrated": "final_terms"}


@dataclass
class Forgery:
    """A copy of one table's agreement for an attacker to edit: the receipt, the log, and the
    other agreement at the same table to splice from."""

    table: Table
    receipt: dict[str, Any]
    log: list[dict[str, Any]]

    @property
    def other_log(self) -> list[dict[str, Any]]:
        return copy.deepcopy(self.table.other.log)

    def rehead(self) -> None:
        """The receipt's `chain` made to name the edited log, as anyone can: it is not signed."""
        self.receipt["chain"] |= {"head": commit(self.log[-1]), "length": len(self.log)}

    def relink(self) -> None:
        """seq and prev_hash recomputed over the whole log, so that the chain links again."""
        for index, envelope in enumerate(self.log):
            envelope["seq"] = index
            if index:
                envelope["prev_hash"] = commit(self.log[index - 1])

    def agreed_terms(self) -> dict[str, Any]:
        terms: dict[str, Any] = self.log[-1]["payload"][TERMS_MEMBER[self.table.name]]
        return terms


def forgery(table: Table) -> Forgery:
    return Forgery(table, copy.deepcopy(table.agreed.receipt), copy.deepcopy(table.agreed.log))


def verify(table: Table, receipt: Any, log: Any) -> Verification:
    return verify_receipt(receipt, trusted=load_trusted(table.jwks), log=log)


def failed(verification: Verification) -> set[str]:
    return {c.id for c in verification.checks if not c.ok and not c.skipped}


# -- the edits -------------------------------------------------------------------------------


def _flip(envelope: dict[str, Any]) -> dict[str, Any]:
    """The envelope with one byte of its canonical form changed (the first digit of its
    payload), still strict JSON."""
    data = canonical(envelope)
    start = data.index(b'"payload":')
    position = next(i for i in range(start, len(data)) if chr(data[i]).isdigit())
    digit = b"1" if data[position : position + 1] != b"1" else b"2"
    changed: dict[str, Any] = parse(data[:position] + digit + data[position + 1 :])
    assert changed != envelope
    return changed


def flip_opening(f: Forgery) -> None:
    f.log[0] = _flip(f.log[0])


def flip_agreement(f: Forgery) -> None:
    f.log[-1] = _flip(f.log[-1])


def flip_agreement_and_rehead(f: Forgery) -> None:
    flip_agreement(f)
    f.rehead()


def swap_two(f: Forgery) -> None:
    f.log[1], f.log[2] = f.log[2], f.log[1]


def swap_two_relinked(f: Forgery) -> None:
    swap_two(f)
    f.relink()
    f.rehead()


def swap_last_two_relinked(f: Forgery) -> None:
    f.log[-2], f.log[-1] = f.log[-1], f.log[-2]
    f.relink()
    f.rehead()


def splice_whole_log(f: Forgery) -> None:
    f.log = f.other_log


def splice_whole_log_and_rehead(f: Forgery) -> None:
    splice_whole_log(f)
    f.rehead()


def splice_opening_relinked(f: Forgery) -> None:
    f.log[0] = f.other_log[0]
    f.relink()
    f.rehead()


def splice_agreement_relinked(f: Forgery) -> None:
    """The other negotiation's agreement envelope, relinked onto this log."""
    f.log[-1] = f.other_log[-1]
    f.relink()
    f.rehead()


def agreement_terms_changed(f: Forgery) -> None:
    """The reported attack: the agreed price rewritten in the log, the chain head recomputed."""
    f.agreed_terms()["price"]["amount_minor"] = 1
    if f.table.name == "rooms":
        f.log[-1]["payload"]["subject_hash"] = commit(f.agreed_terms())
    f.rehead()


def agreement_terms_changed_everywhere_unsigned(f: Forgery) -> None:
    agreement_terms_changed(f)
    f.receipt["final_terms"] = copy.deepcopy(f.agreed_terms())


def agreement_replaced_by_a_close(f: Forgery) -> None:
    """room.agreed replaced by a cancel, session.agree by a close, relinked and re-headed."""
    last = f.log[-1]
    if f.table.name == "rooms":
        closing = {"type": "move.cancel", "sender": {"role": "joiner", "via": "owner"}}
        f.log[-1] = last | closing | {"payload": {}}
    else:
        f.log[-1] = last | {
            "type": "session.close",
            "payload": {"reason": "rejected", "detail": ""},
        }
    f.rehead()


def agreement_replaced_by_a_close_and_state_closed(f: Forgery) -> None:
    agreement_replaced_by_a_close(f)
    f.receipt["state"] = "closed"


def agreement_dropped(f: Forgery) -> None:
    f.log = f.log[:-1]
    f.rehead()


def envelope_appended_after_the_agreement(f: Forgery) -> None:
    f.log.append(f.log[-1] | {"message_id": "msg_more"})
    f.relink()
    f.rehead()


def terms_copy_changed(f: Forgery) -> None:
    f.receipt["final_terms"]["price"]["amount_minor"] = 1


def session_id_changed(f: Forgery) -> None:
    f.receipt["session_id"] = "ses_someone_else"


def state_closed(f: Forgery) -> None:
    f.receipt["state"] = "closed"


def protocol_swapped(f: Forgery) -> None:
    f.receipt["protocol"] = "rooms" if f.table.name == "arbitrated" else "arbitrated"


def chain_length_plus_one(f: Forgery) -> None:
    f.receipt["chain"]["length"] += 1


def chain_head_other(f: Forgery) -> None:
    f.receipt["chain"]["head"] = commit(f.other_log[-1])


def retention_changed(f: Forgery) -> None:
    f.receipt["chain"]["retention_days"] = 3650


def verdicts_edited(f: Forgery) -> None:
    verdicts = f.receipt["verdicts"]
    if verdicts:
        verdicts[0]["verdict"] = "unfair_to_buyer"
    else:
        verdicts.append({"round": 0, "verdict": "fair", "price_minor": 1, "outcome": "accepted"})


def verdicts_dropped(f: Forgery) -> None:
    f.receipt["verdicts"] = f.receipt["verdicts"][1:] or [{"round": 0}]


def invariant_false(f: Forgery) -> None:
    name = "hash_chain" if f.table.name == "rooms" else "I7_hash_chain"
    f.receipt["invariants"][name] = False


def invariant_dropped(f: Forgery) -> None:
    name = "single_final_state" if f.table.name == "rooms" else "I5_verdict_for_every_offer"
    del f.receipt["invariants"][name]


def invariant_added(f: Forgery) -> None:
    f.receipt["invariants"]["I8_audited_by_a_notary"] = True


def enforcement_changed(f: Forgery) -> None:
    f.receipt["enforcement"] = "bilateral" if f.table.name == "arbitrated" else "arbitrated"


def arbiter_changed(f: Forgery) -> None:
    f.receipt["arbiter"]["relationship"] = "affiliated"


def member_added(f: Forgery) -> None:
    f.receipt["hosted"] = {"note": "checked by the merchant's own auditor"}


def mode_test(f: Forgery) -> None:
    f.receipt["mode"] = "test"


def _resign(f: Forgery, key: Ed25519PrivateKey, kid: str) -> None:
    protected = b64url(protected_header(kid))
    message = protected.encode("ascii") + b"." + canonical(f.receipt["signed_payload"])
    f.receipt["artifact"] = {"protected": protected, "signature": b64url(key.sign(message))}


def _attacker_jwk() -> dict[str, str]:
    x = b64url(public_bytes(ATTACKER))
    kid = kid_for(public_bytes(ATTACKER))
    return {"kty": "OKP", "crv": "Ed25519", "x": x, "kid": kid, "alg": "EdDSA", "use": "sig"}


def signed_by_a_foreign_key(f: Forgery) -> None:
    jwk = _attacker_jwk()
    _resign(f, ATTACKER, jwk["kid"])
    f.receipt["jwks"] = {"keys": [jwk]}


def foreign_key_under_our_kid(f: Forgery) -> None:
    f.receipt["jwks"] = {"keys": [_attacker_jwk() | {"kid": f.receipt["jwks"]["keys"][0]["kid"]}]}


def embedded_key_edited(f: Forgery) -> None:
    f.receipt["jwks"]["keys"][0]["use"] = "enc"


def forged_throughout_and_signed_by_a_foreign_key(f: Forgery) -> None:
    """A consistent forgery: new terms in the log, the receipt and the signed payload, every
    signed hash recomputed, signed by a key nobody pinned. Only the signer check can tell."""
    agreement_terms_changed_everywhere_unsigned(f)
    session = f.receipt["signed_payload"]["session"]
    f.receipt["signed_payload"]["final_terms"] = copy.deepcopy(f.agreed_terms())
    if f.table.name == "rooms":
        session["subject_hash"] = f.log[-1]["payload"]["subject_hash"]
        for approval in session["approvals"]:
            approval["subject_hash"] = session["subject_hash"]
    session["agreement_hash"] = commit(f.log[-1])
    session["report_hash"] = report_hash(f.receipt)
    signed_by_a_foreign_key(f)


def reveal_matches_flipped(f: Forgery) -> None:
    f.receipt["reveals"][0]["matches"] = False


def reveal_private_changed(f: Forgery) -> None:
    f.receipt["reveals"][1]["private"]["floor_minor"] = 1


def reveal_commitment_swapped(f: Forgery) -> None:
    reveal = f.receipt["reveals"][0]
    reveal["private"] = {"nonce": "chosen later"}
    reveal["commitment"] = commit(reveal["private"])


def reveal_party_swapped(f: Forgery) -> None:
    f.receipt["reveals"][0]["party"] = "merchant"


def reveal_member_added(f: Forgery) -> None:
    f.receipt["reveals"][0]["witness"] = "the merchant's auditor"


def revealed_invariant_false(f: Forgery) -> None:
    f.receipt["invariants"]["I3_commitments_unchanged"] = False


def revealed_invariant_null(f: Forgery) -> None:
    f.receipt["invariants"]["I3_commitments_unchanged"] = None


def revealed_invariant_dropped(f: Forgery) -> None:
    del f.receipt["invariants"]["I3_commitments_unchanged"]


Edit = Callable[[Forgery], None]
ARBITRATED: Final = ("arbitrated",)


def row(edit: Edit, *expected: str, tables: tuple[str, ...] = TABLES, log: bool = True) -> Any:
    """One defect at each table it applies to: the edit, the checks that must fail (and no
    other), and whether it needs the log to be seen (a receipt-only edit is caught without)."""
    return [
        pytest.param(name, edit, frozenset(expected), log, id=f"{name}-{edit.__name__}")
        for name in tables
    ]


TAMPERING: Final = [
    # the log: byte flips, order, splices
    *row(flip_opening, "chain"),
    *row(flip_agreement, "chain"),
    *row(flip_agreement_and_rehead, "chain", "report"),
    *row(swap_two, "chain"),
    *row(swap_two_relinked, "chain", "report"),
    *row(swap_last_two_relinked, "chain", "report"),
    *row(splice_whole_log, "chain"),
    *row(splice_whole_log_and_rehead, "chain", "report"),
    *row(splice_opening_relinked, "chain", "report"),
    *row(splice_agreement_relinked, "chain", "report"),
    *row(agreement_dropped, "chain", "report"),
    *row(envelope_appended_after_the_agreement, "chain", "report"),
    # the agreement envelope itself
    *row(agreement_terms_changed, "chain", "report"),
    *row(agreement_terms_changed_everywhere_unsigned, "terms", "chain", "report"),
    *row(agreement_replaced_by_a_close, "chain", "report"),
    *row(agreement_replaced_by_a_close_and_state_closed, "chain", "report"),
    # the receipt's unsigned members
    *row(state_closed, "report", log=False),
    *row(protocol_swapped, "report", log=False),
    *row(chain_length_plus_one, "chain", "report", log=False),
    *row(chain_head_other, "chain", "report", log=False),
    *row(retention_changed, "report", log=False),
    *row(verdicts_edited, "report", log=False),
    *row(verdicts_dropped, "report", log=False),
    *row(invariant_false, "report", log=False),
    *row(invariant_dropped, "report", log=False),
    *row(invariant_added, "report", log=False),
    *row(enforcement_changed, "report", log=False),
    *row(arbiter_changed, "report", log=False),
    *row(member_added, "report", log=False),
    *row(mode_test, "mode", "report", log=False),
    *row(terms_copy_changed, "terms", log=False),
    *row(session_id_changed, "terms", log=False),
    # the reveals, which come after the signature and are checked against what was signed
    *row(reveal_matches_flipped, "report", tables=ARBITRATED, log=False),
    *row(reveal_private_changed, "report", tables=ARBITRATED, log=False),
    *row(reveal_commitment_swapped, "report", tables=ARBITRATED, log=False),
    *row(reveal_party_swapped, "report", tables=ARBITRATED, log=False),
    *row(revealed_invariant_false, "report", tables=ARBITRATED, log=False),
    *row(revealed_invariant_null, "report", tables=ARBITRATED, log=False),
    *row(revealed_invariant_dropped, "report", tables=ARBITRATED, log=False),
    *row(reveal_member_added, "report", tables=ARBITRATED, log=False),
    # keys
    *row(signed_by_a_foreign_key, "signer", log=False),
    *row(foreign_key_under_our_kid, "signature", "signer", log=False),
    *row(embedded_key_edited, "key", log=False),
    *row(forged_throughout_and_signed_by_a_foreign_key, "signer"),
]
RECEIPT_ONLY: Final = [p for p in TAMPERING if not p.values[3]]
PARAMETERS: Final = ("table", "edit", "expected", "needs_log")


def _forged(table: Table, edit: Edit) -> Forgery:
    f = forgery(table)
    edit(f)
    return f


def test_both_untouched_agreements_are_valid(table: Table) -> None:
    for negotiation in (table.agreed, table.other):
        verification = verify(table, negotiation.receipt, negotiation.log)
        assert (verification.status, verification.ok) == ("valid", True)
        assert [c.id for c in verification.checks] == list(CHECKS)
        assert failed(verification) == set()


def test_the_agreement_rewritten_in_the_log_is_refused(table: Table) -> None:
    """The reported attack, on its own: new terms in the log's last envelope and a recomputed
    `chain.head` once verified as `valid`, because the signature stopped at the envelope
    before the agreement."""
    f = forgery(table)
    agreement_terms_changed(f)
    verification = verify(table, f.receipt, f.log)
    assert (verification.status, verification.ok) == ("invalid", False)
    assert "chain" in failed(verification)


@pytest.mark.parametrize(PARAMETERS, TAMPERING, indirect=["table"])
def test_every_edit_is_caught_by_its_check(
    table: Table, edit: Edit, expected: frozenset[str], needs_log: bool
) -> None:
    f = _forged(table, edit)
    verification = verify(table, f.receipt, f.log)
    assert failed(verification) == expected
    assert not verification.ok
    assert verification.status == ("unverifiable" if expected == {"signer"} else "invalid")
    with pytest.raises(Exception, match=f"^({'|'.join(expected)}): "):
        verification.raise_for_failure()


@pytest.mark.parametrize(PARAMETERS, RECEIPT_ONLY, indirect=["table"])
def test_every_receipt_edit_is_caught_without_the_log(
    table: Table, edit: Edit, expected: frozenset[str], needs_log: bool
) -> None:
    f = _forged(table, edit)
    verification = verify_receipt(f.receipt, trusted=load_trusted(table.jwks))
    assert failed(verification) == expected - {"chain"}
    assert not verification.ok


@pytest.fixture
def runner() -> CliRunner:
    return CliRunner()


def _files(folder: Path, f: Forgery) -> list[str]:
    paths = {name: folder / f"{name}.json" for name in ("receipt", "log", "jwks")}
    paths["receipt"].write_text(json.dumps(f.receipt), encoding="utf-8")
    paths["log"].write_text(json.dumps({"envelopes": f.log}), encoding="utf-8")
    paths["jwks"].write_text(json.dumps(f.table.jwks), encoding="utf-8")
    return [str(paths["receipt"]), "--log", str(paths["log"]), "--trust", str(paths["jwks"])]


@pytest.mark.parametrize(PARAMETERS, TAMPERING, indirect=["table"])
def test_every_edit_fails_accord_verify_naming_its_check(
    table: Table,
    edit: Edit,
    expected: frozenset[str],
    needs_log: bool,
    runner: CliRunner,
    tmp_path: Path,
) -> None:
    f = _forged(table, edit)
    arguments = _files(tmp_path, f)
    as_json = runner.invoke(app, ["verify", *arguments, "--json"])
    assert as_json.exit_code == 1, as_json.stdout
    body = json.loads(as_json.stdout)
    assert body["ok"] is False
    assert {c["id"] for c in body["checks"] if not c["ok"] and not c["skipped"]} == expected
    shown = runner.invoke(app, ["verify", *arguments], terminal_width=200)
    assert shown.exit_code == 1
    assert set(FAILED_ROW.findall(shown.stdout)) == expected, shown.stdout


def test_the_untouched_agreement_passes_accord_verify(
    table: Table, runner: CliRunner, tmp_path: Path
) -> None:
    result = runner.invoke(app, ["verify", *_files(tmp_path, forgery(table)), "--json"])
    assert result.exit_code == 0, result.stdout
    body = json.loads(result.stdout)
    assert (body["ok"], body["status"], body["signer"]) == (True, "valid", "pinned")


def test_what_no_signature_covers_is_named_in_the_report(table: Table) -> None:
    """The server's own note on its signature is outside the signature, and so is which
    parties revealed (each reveal is checked against the commitment signed for its party):
    the report says both plainly."""
    verification = verify(table, table.agreed.receipt, table.agreed.log)
    (report,) = [c for c in verification.checks if c.id == "report"]
    assert report.ok
    assert "unsigned and unchecked: signature" in report.detail
    assert "which parties revealed is not signed" in report.detail


# -- any change at all -----------------------------------------------------------------------

UNCOVERED: Final = ("signature",)  # the server's own note, named unsigned in the report
UNCOVERED_PATHS: Final = [(name,) for name in UNCOVERED]


def _leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, (*path, index))
    else:
        yield path, value


def _changed(data: st.DataObject, value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + data.draw(st.sampled_from([-1, 1, 10]))
    if value is None:
        return data.draw(st.sampled_from([0, "", False]))
    text = str(value)
    index = data.draw(st.integers(0, max(len(text) - 1, 0)))
    char = data.draw(
        st.sampled_from([c for c in string.ascii_letters if text[index : index + 1] != c])
    )
    return text[:index] + char + text[index + 1 :]


@pytest.mark.parametrize("name", TABLES)
@EXAMPLES
@given(data=st.data())
def test_any_changed_value_in_the_receipt_is_caught(
    tables: dict[str, Table], name: str, data: st.DataObject
) -> None:
    table = tables[name]
    receipt = copy.deepcopy(table.agreed.receipt)
    leaves = [(p, v) for p, v in _leaves(receipt) if p[0] not in UNCOVERED]
    path, value = data.draw(st.sampled_from(leaves))
    target: Any = receipt
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = _changed(data, value)
    verification = verify(table, receipt, table.agreed.log)
    assert not verification.ok, path


@pytest.mark.parametrize("name", TABLES)
@EXAMPLES
@given(data=st.data())
def test_any_renamed_member_of_the_receipt_is_caught(
    tables: dict[str, Table], name: str, data: st.DataObject
) -> None:
    table = tables[name]
    receipt = copy.deepcopy(table.agreed.receipt)
    path, target = data.draw(st.sampled_from(list(_paths_to_objects(receipt))))
    name = data.draw(st.sampled_from(sorted(target)))
    target[name + data.draw(st.sampled_from(["_", "x", "2"]))] = target.pop(name)
    assert not verify(table, receipt, table.agreed.log).ok, (path, name)


def _paths_to_objects(
    value: Any, path: tuple[Any, ...] = ()
) -> Iterator[tuple[tuple[Any, ...], dict[str, Any]]]:
    if isinstance(value, dict):
        if value and path[:1] not in UNCOVERED_PATHS:
            yield path, value
        for key, item in value.items():
            yield from _paths_to_objects(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths_to_objects(item, (*path, index))


@pytest.mark.parametrize("name", TABLES)
@EXAMPLES
@given(data=st.data())
def test_any_changed_byte_in_any_envelope_is_caught(
    tables: dict[str, Table], name: str, data: st.DataObject
) -> None:
    table = tables[name]
    log = copy.deepcopy(table.agreed.log)
    index = data.draw(st.integers(0, len(log) - 1))
    encoded = canonical(log[index])
    positions = [i for i, byte in enumerate(encoded) if chr(byte).isalnum() and byte < 128]
    position = data.draw(st.sampled_from(positions))
    pool = string.digits if chr(encoded[position]).isdigit() else string.ascii_letters
    byte = data.draw(st.sampled_from([c for c in pool if ord(c) != encoded[position]]))
    try:
        envelope = parse(encoded[:position] + byte.encode() + encoded[position + 1 :])
    except JSONError:
        envelope = None
    assume(isinstance(envelope, dict))
    log[index] = envelope
    verification = verify(table, table.agreed.receipt, log)
    assert failed(verification) == {"chain"}

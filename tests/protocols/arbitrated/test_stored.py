"""What the store already holds still reads the same: states stored before typed rules,
attestations and parties load and equal the fold of their records, and the same moves give
byte-identical views (vectors/README.md)."""

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import orjson
import pytest

from accord.core.envelope import Envelope
from accord.protocols.arbitrated.apply import replay
from accord.protocols.arbitrated.state import SessionState
from tests.protocols.arbitrated.session_builder import Session, policy, request

VECTORS: Final = json.loads((Path(__file__).parent / "vectors/sessions_as_stored.json").read_text())
HALF: Final = {"warranty": "0.5", "case": "0.5"}
MANUAL: Final = {
    "kind": "invoice_url",
    "checkout_url": "https://shop.example.com/pay",
    "ttl_seconds": 60,
    "publish": "manual",
}

Play = Callable[[Session], object]


def _expire(session: Session) -> object:
    session.advance_time(seconds=601)
    return session.expire()


SCRIPTS: Final[dict[str, tuple[dict[str, Any], list[Play]]]] = {
    "agreed": (
        {},
        [
            lambda s: s.offer(30000),
            lambda s: s.offer(43000, "case"),
            lambda s: s.accept(),
            lambda s: s.try_reveal({}),
            lambda s: s.try_merchant_reveal(),
        ],
    ),
    "closed": ({"handoff": MANUAL}, [lambda s: s.offer(41000), _expire]),
}


@pytest.mark.parametrize("name", sorted(VECTORS))
def test_a_stored_state_loads_and_is_the_fold_of_its_records(name: str) -> None:
    vector = VECTORS[name]
    stored = SessionState.model_validate_json(vector["states"][-1])
    public = [Envelope.from_json(e) for e in vector["log"]]
    private = [(party, Envelope.from_json(e)) for party, e in vector["private"]]
    assert replay(public, private) == stored
    for state in vector["states"]:
        assert SessionState.model_validate_json(state).model_dump_json() == state


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_the_same_moves_give_byte_identical_views(name: str) -> None:
    overrides, plays = SCRIPTS[name]
    session = Session(policy=policy(**overrides))
    session.open(request(max_rounds=6, utilities=HALF))
    views = [orjson.dumps(session.view()).decode()]
    for play in plays:
        play(session)
        views.append(orjson.dumps(session.view()).decode())
    assert views == VECTORS[name]["views"]
    assert [e.to_json() for e in session.log] == VECTORS[name]["log"]

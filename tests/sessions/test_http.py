"""Arbitrated sessions over the real server (spec/arbitrated-rest.md): bad input on every
endpoint answers with the one error body and the status of STATUS_BY_CODE and writes nothing;
the check order of a buyer move; `message_id` idempotency; listing and reading sessions."""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests.http.support import auth
from tests.sessions.conftest import POLICY, Shop
from tests.sessions.support import (
    FAIR_LOW,
    OPENING,
    SKU,
    UNFAIR,
    JSONBody,
    Session,
    agree,
    assert_shape,
    get,
    listed,
    log_of,
    move,
    offer,
    open_body,
    open_session,
    put_policy,
    refused,
)

# -- bad input on every endpoint -----------------------------------------------------------


@dataclass
class World:
    """A test-mode session that is negotiating, another one of the same tenant, and the keys."""

    api: httpx.Client
    shop: Shop
    rival: dict[str, str]
    session: Session
    other: Session

    def credential(self, name: str) -> str | None:
        return {
            "none": None,
            "unknown": "acc_sk_test_" + "x" * 43,
            "token": self.session.token,
            "other_token": self.other.token,
            "pk": self.shop.keys["publishable_test"],
            "sk": self.shop.keys["secret_test"],
            "pk_live": self.shop.keys["publishable_live"],
            "sk_live": self.shop.keys["secret_live"],
            "rival_sk": self.rival["secret_test"],
            "rival_pk": self.rival["publishable_test"],
        }[name]

    def snapshot(self) -> tuple[Any, ...]:
        """Everything a refusal must leave as it was."""
        secret = self.shop.keys["secret_test"]
        return (
            log_of(self.api, self.session, secret),
            log_of(self.api, self.other, secret),
            listed(self.api, secret),
            listed(self.api, self.shop.keys["secret_live"]),
            listed(self.api, self.rival["secret_test"]),
        )


@pytest.fixture
def world(shop: Shop, api: httpx.Client, rival: dict[str, str]) -> World:
    key = shop.keys["publishable_test"]
    return World(api, shop, rival, open_session(api, key), open_session(api, key))


OPEN = "/v1/sessions"
SESSION = "/v1/sessions/{id}"
MESSAGES = SESSION + "/messages"
LOG = SESSION + "/log"
RECEIPT = SESSION + "/receipt"
CLAIM = SESSION + "/handoff/claim"
HANDOFF = SESSION + "/handoff"
REVEAL = SESSION + "/reveal"

GOOD_OPEN = open_body()
GOOD_OFFER = {"type": "offer", "price_minor": 42000}
GOOD_HANDOFF = {
    "kind": "discount_code",
    "value": "SAVE-10",
    "checkout_url": "https://shop.example/checkout",
    "expires_at": "2026-12-01T12:00:00Z",
}
Body = JSONBody | bytes | None


def case(id: str, method: str, path: str, credential: str, body: Body, code: str, **kw: Any) -> Any:
    return pytest.param(method, path, credential, body, code, kw, id=id)


BAD_INPUT = [
    # POST /v1/sessions
    case("open/malformed_json", "POST", OPEN, "pk", b'{"sku": ', "invalid_request", reason=True),
    case(
        "open/duplicate_keys",
        "POST",
        OPEN,
        "pk",
        b'{"sku": "NOPE", "sku": "DEMO-MONITOR-27", "buyer": {"agent_id": "a"}}',
        "invalid_request",
        reason=True,
    ),
    case(
        "open/nan",
        "POST",
        OPEN,
        "pk",
        b'{"sku": "DEMO-MONITOR-27", "buyer": {"agent_id": "a", "declared": {"max_rounds": NaN}}}',
        "invalid_request",
        reason=True,
    ),
    case("open/no_body", "POST", OPEN, "pk", None, "invalid_request"),
    case("open/array_body", "POST", OPEN, "pk", b"[]", "invalid_request"),
    case(
        "open/unknown_member",
        "POST",
        OPEN,
        "pk",
        GOOD_OPEN | {"coupon": "FREE"},
        "invalid_request",
        fields=["coupon"],
    ),
    case(
        "open/unknown_member_of_buyer",
        "POST",
        OPEN,
        "pk",
        {"sku": SKU, "buyer": {"agent_id": "a", "ceiling_minor": 1}},
        "invalid_request",
        fields=["buyer.ceiling_minor"],
    ),
    case(
        "open/unknown_member_of_declared",
        "POST",
        OPEN,
        "pk",
        open_body(budget=5),
        "invalid_request",
        fields=["buyer.declared.budget"],
    ),
    case("open/sku_not_a_string", "POST", OPEN, "pk", GOOD_OPEN | {"sku": 27}, "invalid_request"),
    case("open/no_buyer", "POST", OPEN, "pk", {"sku": SKU}, "invalid_request", fields=["buyer"]),
    case(
        "open/empty_agent_id",
        "POST",
        OPEN,
        "pk",
        {"sku": SKU, "buyer": {"agent_id": ""}},
        "invalid_request",
    ),
    case(
        "open/max_rounds_as_string",
        "POST",
        OPEN,
        "pk",
        open_body(max_rounds="5"),
        "invalid_request",
        fields=["buyer.declared.max_rounds"],
    ),
    case("open/max_rounds_0", "POST", OPEN, "pk", open_body(max_rounds=0), "invalid_request"),
    case("open/max_rounds_101", "POST", OPEN, "pk", open_body(max_rounds=101), "invalid_request"),
    case(
        "open/lowercase_currency", "POST", OPEN, "pk", open_body(currency="usd"), "invalid_request"
    ),
    case(
        "open/utility_above_1",
        "POST",
        OPEN,
        "pk",
        open_body(utilities={"warranty": "1.5"}),
        "invalid_request",
    ),
    case(
        "open/utility_as_number",
        "POST",
        OPEN,
        "pk",
        open_body(utilities={"warranty": 0.5}),
        "invalid_request",
    ),
    case(
        "open/bad_commitment",
        "POST",
        OPEN,
        "pk",
        {"sku": SKU, "buyer": {"agent_id": "a", "commitment": "sha256:xyz"}},
        "invalid_request",
    ),
    case("open/no_credential", "POST", OPEN, "none", GOOD_OPEN, "unauthenticated"),
    case("open/unknown_key", "POST", OPEN, "unknown", GOOD_OPEN, "unauthenticated"),
    case("open/session_token", "POST", OPEN, "token", GOOD_OPEN, "forbidden"),
    case("open/unknown_sku", "POST", OPEN, "pk", GOOD_OPEN | {"sku": "NOPE"}, "sku_not_found"),
    case("open/sku_only_in_test_mode", "POST", OPEN, "pk_live", GOOD_OPEN, "sku_not_found"),
    case(
        "open/currency_mismatch", "POST", OPEN, "pk", open_body(currency="EUR"), "currency_mismatch"
    ),
    case(
        "open/unknown_fairness_profile",
        "POST",
        OPEN,
        "sk",
        GOOD_OPEN | {"fairness_profile": "strict/v9"},
        "unknown_fairness_profile",
    ),
    # GET /v1/sessions
    case("list/no_credential", "GET", OPEN, "none", None, "unauthenticated"),
    case("list/unknown_key", "GET", OPEN, "unknown", None, "unauthenticated"),
    case("list/publishable_key", "GET", OPEN, "pk", None, "forbidden"),
    case("list/publishable_live_key", "GET", OPEN, "pk_live", None, "forbidden"),
    case("list/session_token", "GET", OPEN, "token", None, "forbidden"),
    case("list/limit_0", "GET", OPEN + "?limit=0", "sk", None, "invalid_request", fields=["limit"]),
    case("list/limit_201", "GET", OPEN + "?limit=201", "sk", None, "invalid_request"),
    case("list/limit_word", "GET", OPEN + "?limit=ten", "sk", None, "invalid_request"),
]


def _per_reader(name: str, method: str, path: str) -> list[Any]:
    """The credential refusals of an endpoint a session token and the secret key may read."""
    return [
        case(f"{name}/no_credential", method, path, "none", None, "unauthenticated"),
        case(f"{name}/unknown_key", method, path, "unknown", None, "unauthenticated"),
        case(f"{name}/publishable_key", method, path, "pk", None, "forbidden"),
        case(f"{name}/another_sessions_token", method, path, "other_token", None, "forbidden"),
        case(f"{name}/another_tenants_secret", method, path, "rival_sk", None, "session_not_found"),
        case(f"{name}/other_modes_secret", method, path, "sk_live", None, "session_not_found"),
        case(
            f"{name}/unknown_session",
            method,
            path.replace("{id}", "ses_00000000000000000000"),
            "sk",
            None,
            "session_not_found",
        ),
    ]


BAD_INPUT += _per_reader("show", "GET", SESSION)
BAD_INPUT += _per_reader("log", "GET", LOG)
BAD_INPUT += _per_reader("receipt", "GET", RECEIPT)
BAD_INPUT += [
    case("receipt/open_for_the_token", "GET", RECEIPT, "token", None, "session_open"),
    case("receipt/open_for_the_secret", "GET", RECEIPT, "sk", None, "session_open"),
    # POST …/messages
    case("move/malformed_json", "POST", MESSAGES, "token", b'{"type": "offer"', "invalid_request"),
    case(
        "move/duplicate_keys",
        "POST",
        MESSAGES,
        "token",
        b'{"type": "offer", "price_minor": 1, "price_minor": 42000}',
        "invalid_request",
        reason=True,
    ),
    case("move/no_body", "POST", MESSAGES, "token", None, "invalid_request"),
    case(
        "move/unknown_member",
        "POST",
        MESSAGES,
        "token",
        GOOD_OFFER | {"discount": 5},
        "invalid_request",
        fields=["offer.discount"],
    ),
    case(
        "move/price_as_string",
        "POST",
        MESSAGES,
        "token",
        {"type": "offer", "price_minor": "42000"},
        "invalid_request",
    ),
    case(
        "move/price_as_float",
        "POST",
        MESSAGES,
        "token",
        {"type": "offer", "price_minor": 42000.5},
        "invalid_request",
    ),
    case(
        "move/negative_price",
        "POST",
        MESSAGES,
        "token",
        {"type": "offer", "price_minor": -1},
        "invalid_request",
    ),
    case(
        "move/unsafe_integer",
        "POST",
        MESSAGES,
        "token",
        b'{"type": "offer", "price_minor": 9007199254740993}',
        "invalid_request",
    ),
    case("move/no_price", "POST", MESSAGES, "token", {"type": "offer"}, "invalid_request"),
    case("move/unknown_type", "POST", MESSAGES, "token", {"type": "bid"}, "invalid_request"),
    case("move/no_type", "POST", MESSAGES, "token", {"price_minor": 42000}, "invalid_request"),
    case(
        "move/inclusions_not_a_list",
        "POST",
        MESSAGES,
        "token",
        GOOD_OFFER | {"inclusions": "warranty"},
        "invalid_request",
    ),
    case(
        "move/accept_with_price",
        "POST",
        MESSAGES,
        "token",
        {"type": "accept", "price_minor": 1},
        "invalid_request",
    ),
    case(
        "move/reveal_without_private",
        "POST",
        MESSAGES,
        "token",
        {"type": "reveal"},
        "invalid_request",
    ),
    case("move/no_credential", "POST", MESSAGES, "none", GOOD_OFFER, "unauthenticated"),
    case("move/unknown_key", "POST", MESSAGES, "unknown", GOOD_OFFER, "unauthenticated"),
    case("move/secret_key", "POST", MESSAGES, "sk", GOOD_OFFER, "forbidden"),
    case("move/publishable_key", "POST", MESSAGES, "pk", GOOD_OFFER, "forbidden"),
    case("move/another_sessions_token", "POST", MESSAGES, "other_token", GOOD_OFFER, "forbidden"),
    case(
        "move/reveal_before_the_end",
        "POST",
        MESSAGES,
        "token",
        {"type": "reveal", "private": {}},
        "session_open",
    ),
    # POST …/handoff/claim
    case("claim/no_credential", "POST", CLAIM, "none", None, "unauthenticated"),
    case("claim/unknown_key", "POST", CLAIM, "unknown", None, "unauthenticated"),
    case("claim/secret_key", "POST", CLAIM, "sk", None, "forbidden"),
    case("claim/publishable_key", "POST", CLAIM, "pk", None, "forbidden"),
    case("claim/another_sessions_token", "POST", CLAIM, "other_token", None, "forbidden"),
    case("claim/not_agreed", "POST", CLAIM, "token", None, "not_agreed"),
    # POST …/handoff
    case("publish/no_credential", "POST", HANDOFF, "none", GOOD_HANDOFF, "unauthenticated"),
    case("publish/unknown_key", "POST", HANDOFF, "unknown", GOOD_HANDOFF, "unauthenticated"),
    case("publish/session_token", "POST", HANDOFF, "token", GOOD_HANDOFF, "forbidden"),
    case("publish/publishable_key", "POST", HANDOFF, "pk", GOOD_HANDOFF, "forbidden"),
    case(
        "publish/another_tenants_secret",
        "POST",
        HANDOFF,
        "rival_sk",
        GOOD_HANDOFF,
        "session_not_found",
    ),
    case(
        "publish/other_modes_secret", "POST", HANDOFF, "sk_live", GOOD_HANDOFF, "session_not_found"
    ),
    case("publish/malformed_json", "POST", HANDOFF, "sk", b'{"kind": ', "invalid_request"),
    case(
        "publish/duplicate_keys",
        "POST",
        HANDOFF,
        "sk",
        b'{"kind": "discount_code", "kind": "invoice_url", "value": "v", '
        b'"checkout_url": "https://shop.example/c", "expires_at": "2026-12-01T12:00:00Z"}',
        "invalid_request",
        reason=True,
    ),
    case(
        "publish/unknown_member",
        "POST",
        HANDOFF,
        "sk",
        GOOD_HANDOFF | {"note": "x"},
        "invalid_request",
        fields=["note"],
    ),
    case(
        "publish/unknown_kind",
        "POST",
        HANDOFF,
        "sk",
        GOOD_HANDOFF | {"kind": "coupon"},
        "invalid_request",
    ),
    case(
        "publish/value_as_number",
        "POST",
        HANDOFF,
        "sk",
        GOOD_HANDOFF | {"value": 10},
        "invalid_request",
    ),
    case(
        "publish/no_value",
        "POST",
        HANDOFF,
        "sk",
        {k: v for k, v in GOOD_HANDOFF.items() if k != "value"},
        "invalid_request",
        fields=["value"],
    ),
    case("publish/not_agreed", "POST", HANDOFF, "sk", GOOD_HANDOFF, "not_agreed"),
    # POST …/reveal
    case("reveal/no_credential", "POST", REVEAL, "none", {}, "unauthenticated"),
    case("reveal/unknown_key", "POST", REVEAL, "unknown", {}, "unauthenticated"),
    case("reveal/session_token", "POST", REVEAL, "token", {}, "forbidden"),
    case("reveal/publishable_key", "POST", REVEAL, "pk", {}, "forbidden"),
    case("reveal/another_tenants_secret", "POST", REVEAL, "rival_sk", {}, "session_not_found"),
    case("reveal/other_modes_secret", "POST", REVEAL, "sk_live", {}, "session_not_found"),
    case("reveal/malformed_json", "POST", REVEAL, "sk", b"{", "invalid_request"),
    case("reveal/unknown_member", "POST", REVEAL, "sk", {"floor_minor": 1}, "invalid_request"),
    case("reveal/before_the_end", "POST", REVEAL, "sk", {}, "session_open"),
]


def send(world: World, method: str, path: str, credential: str, body: Body) -> httpx.Response:
    url = path.replace("{id}", world.session.session_id)
    headers = auth(world.credential(credential))
    if isinstance(body, bytes):
        headers["Content-Type"] = "application/json"
        return world.api.request(method, url, content=body, headers=headers)
    return world.api.request(method, url, json=body, headers=headers)


@pytest.mark.parametrize(("method", "path", "credential", "body", "code", "expect"), BAD_INPUT)
def test_bad_input_is_refused_with_the_one_error_body_and_writes_nothing(
    world: World,
    method: str,
    path: str,
    credential: str,
    body: Body,
    code: str,
    expect: dict[str, Any],
) -> None:
    before = world.snapshot()
    error = refused(send(world, method, path, credential, body), code)
    if expect.get("reason"):
        assert isinstance(error.get("reason"), str) and error["reason"], error
    for name in expect.get("fields", ()):
        assert name in error["fields"], error
    assert world.snapshot() == before


def test_a_refused_open_creates_no_session_in_either_mode(shop: Shop, api: httpx.Client) -> None:
    secret, live = shop.keys["secret_test"], shop.keys["secret_live"]
    put_policy(api, secret, sku="INACTIVE-1", active=False)
    attempts = [
        (open_body() | {"sku": "INACTIVE-1"}, "sku_not_found"),
        (open_body(currency="EUR"), "currency_mismatch"),
        (open_body() | {"fairness_profile": "default/v9"}, "unknown_fairness_profile"),
        (open_body(max_rounds="3"), "invalid_request"),
    ]
    for body, code in attempts:
        for key in ("publishable_test", "secret_test"):
            refused(api.post("/v1/sessions", json=body, headers=auth(shop.keys[key])), code)
    assert listed(api, secret) == [] and listed(api, live) == []


def test_a_policy_made_inactive_stops_new_sessions_but_not_running_ones(
    shop: Shop, api: httpx.Client
) -> None:
    pk, sk = shop.keys["publishable_test"], shop.keys["secret_test"]
    running = open_session(api, pk)
    put_policy(api, sk, active=False)
    refused(api.post("/v1/sessions", json=open_body(), headers=auth(pk)), "sku_not_found")
    assert offer(api, running, OPENING)["state"] == "agreed"
    assert listed(api, sk) == [running.session_id]


def test_a_live_policy_does_not_open_test_sessions_and_the_reverse(
    shop: Shop, api: httpx.Client
) -> None:
    put_policy(api, shop.keys["secret_live"], sku="LIVE-ONLY")
    body = open_body() | {"sku": "LIVE-ONLY"}
    refused(
        api.post("/v1/sessions", json=body, headers=auth(shop.keys["publishable_test"])),
        "sku_not_found",
    )
    live = open_session(api, shop.keys["publishable_live"], body)
    assert live.view["mode"] == "live" and live.token.startswith("acc_st_live_")
    assert listed(api, shop.keys["secret_test"]) == []


# -- the check order of a buyer move (spec item 2) -----------------------------------------

Setup = Callable[[httpx.Client, Shop], Session]


def _open(api: httpx.Client, shop: Shop, **declared: Any) -> Session:
    return open_session(api, shop.keys["publishable_test"], open_body(**declared))


def _ended(api: httpx.Client, shop: Shop) -> Session:
    session = _open(api, shop)
    assert move(api, session, {"type": "reject", "reason": "no"})["state"] == "closed"
    return session


def _corrective(api: httpx.Client, shop: Shop) -> Session:
    session = _open(api, shop)
    assert offer(api, session, UNFAIR)["state"] == "corrective"
    return session


def _valued(api: httpx.Client, shop: Shop) -> Session:
    """The buyer values the warranty fully (W = 3900) and offered a net 40000 in round 1."""
    session = _open(api, shop, utilities={"warranty": "1"})
    assert offer(api, session, 43900, inclusions=["warranty"])["state"] == "negotiating"
    return session


def _last_round_answered(api: httpx.Client, shop: Shop) -> Session:
    """max_rounds 1: the buyer's fair offer was countered in the last round."""
    put_policy(api, shop.keys["secret_test"], floor_minor=41000)
    session = _open(api, shop, max_rounds=1)
    view = offer(api, session, 40000)
    assert view["state"] == "negotiating" and view["round"] == 1, view
    return session


CHECK_ORDER = [
    pytest.param(_ended, {"type": "offer"}, "invalid_request", id="invalid_request_before_ended"),
    pytest.param(
        _ended,
        {"type": "offer", "price_minor": 1, "inclusions": ["gold"]},
        "session_ended",
        id="ended_before_unattested",
    ),
    pytest.param(_ended, {"type": "accept"}, "session_ended", id="ended_before_nothing_to_accept"),
    pytest.param(_ended, {"type": "reject"}, "session_ended", id="ended_reject"),
    pytest.param(_corrective, {"type": "accept"}, "nothing_to_accept", id="nothing_to_accept"),
    pytest.param(
        _corrective,
        {"type": "offer", "price_minor": 0, "inclusions": ["gold"]},
        "unattested_inclusion",
        id="unattested_before_price_not_above",
    ),
    pytest.param(
        _valued,
        {"type": "offer", "price_minor": 1000, "inclusions": ["warranty", "gold"]},
        "unattested_inclusion",
        id="unattested_before_non_monotonic",
    ),
    pytest.param(
        _valued,
        {"type": "offer", "price_minor": 3900, "inclusions": ["warranty"]},
        "price_not_above_inclusions",
        id="price_not_above_before_non_monotonic",
    ),
    pytest.param(
        _valued,
        {"type": "offer", "price_minor": 0},
        "price_not_above_inclusions",
        id="price_zero",
    ),
    pytest.param(
        _valued,
        {"type": "offer", "price_minor": 43899, "inclusions": ["warranty"]},
        "non_monotonic",
        id="non_monotonic",
    ),
    pytest.param(
        _last_round_answered,
        {"type": "offer", "price_minor": 39999},
        "non_monotonic",
        id="non_monotonic_before_max_rounds_close",
    ),
]


@pytest.mark.parametrize(("setup", "body", "code"), CHECK_ORDER)
def test_a_buyer_move_meets_the_first_check_that_fails(
    shop: Shop, api: httpx.Client, setup: Setup, body: JSONBody, code: str
) -> None:
    session = setup(api, shop)
    secret = shop.keys["secret_test"]
    before = log_of(api, session, secret)
    moved = api.post(f"{session.url}/messages", json=body, headers=auth(session.token))
    refused(moved, code)
    assert log_of(api, session, secret) == before


BEFORE_THE_BODY = [
    pytest.param(path, credential, code, id=f"{name}/{credential}")
    for name, path in (("open", OPEN), ("move", MESSAGES), ("publish", HANDOFF), ("reveal", REVEAL))
    for credential, code in (("none", "unauthenticated"), ("unknown", "unauthenticated"))
] + [
    pytest.param(OPEN, "rival_sk", "sku_not_found", id="open/sku_is_checked_after_the_body_too"),
    pytest.param(MESSAGES, "other_token", "forbidden", id="move/other_token"),
    pytest.param(HANDOFF, "pk", "forbidden", id="publish/pk"),
    pytest.param(HANDOFF, "rival_sk", "session_not_found", id="publish/rival_sk"),
    pytest.param(REVEAL, "pk", "forbidden", id="reveal/pk"),
    pytest.param(REVEAL, "sk_live", "session_not_found", id="reveal/sk_live"),
]


@pytest.mark.parametrize(("path", "credential", "code"), BEFORE_THE_BODY)
def test_credentials_are_checked_before_the_body(
    world: World, path: str, credential: str, code: str
) -> None:
    """As rooms-api.md's check order and the routes' own docstrings put it: unauthenticated,
    forbidden and not-found before invalid_request, on every endpoint that takes a body."""
    before = world.snapshot()
    if code == "sku_not_found":
        # Where the refusal depends on the body, a malformed body is refused first.
        refused(send(world, "POST", path, credential, b'{"sku": '), "invalid_request")
    else:
        refused(send(world, "POST", path, credential, b'{"sku": '), code)
    assert world.snapshot() == before


# -- message_id idempotency ----------------------------------------------------------------


def test_a_repeated_message_id_returns_the_same_view_and_appends_nothing(
    shop: Shop, api: httpx.Client
) -> None:
    session = _open(api, shop)
    secret = shop.keys["secret_test"]
    body = {"type": "offer", "price_minor": 40000, "message_id": "m-1"}
    first = move(api, session, body)
    after_first = log_of(api, session, secret)
    again = move(api, session, body)
    assert again.pop("duplicate") is True
    assert "duplicate" not in first
    assert again == first
    assert log_of(api, session, secret) == after_first
    # A different body under the same id is refused, and still writes nothing.
    for changed in (
        body | {"price_minor": 40001},
        body | {"justification": "please"},
        {"type": "accept", "message_id": "m-1"},
    ):
        moved = api.post(f"{session.url}/messages", json=changed, headers=auth(session.token))
        refused(moved, "message_id_reused")
    assert log_of(api, session, secret) == after_first
    # A new id is a new move.
    accepted = move(api, session, {"type": "accept", "message_id": "m-2"})
    assert accepted["state"] == "agreed"
    assert move(api, session, {"type": "accept", "message_id": "m-2"}) == accepted | {
        "duplicate": True
    }
    assert len(log_of(api, session, secret)) == len(after_first) + 1


def test_a_message_id_is_per_session(shop: Shop, api: httpx.Client) -> None:
    one, two = _open(api, shop), _open(api, shop)
    body = {"type": "offer", "price_minor": 40000, "message_id": "same"}
    assert "duplicate" not in move(api, one, body)
    assert "duplicate" not in move(api, two, body)


def test_a_refused_move_is_not_remembered_under_its_message_id(
    shop: Shop, api: httpx.Client
) -> None:
    session = _corrective(api, shop)
    refused(
        api.post(
            f"{session.url}/messages",
            json={"type": "accept", "message_id": "m-1"},
            headers=auth(session.token),
        ),
        "nothing_to_accept",
    )
    view = move(api, session, {"type": "offer", "price_minor": OPENING, "message_id": "m-2"})
    assert view["state"] == "agreed"


# -- listing and reading -------------------------------------------------------------------


def test_the_list_holds_the_tenants_sessions_in_its_mode_newest_first(
    shop: Shop, api: httpx.Client, rival: dict[str, str]
) -> None:
    put_policy(api, shop.keys["secret_live"])
    opened = []
    for _ in range(3):
        opened.append(open_session(api, shop.keys["publishable_test"]).session_id)
        shop.server.clock.advance(seconds=1)
    live = open_session(api, shop.keys["publishable_live"])
    open_session(api, rival["publishable_test"])
    body = get(api, "/v1/sessions", shop.keys["secret_test"])
    assert [s["session_id"] for s in body["sessions"]] == opened[::-1]
    for summary in body["sessions"]:
        assert set(summary) == {"session_id", "sku", "state", "mode", "created_at", "updated_at"}
        assert (summary["sku"], summary["state"], summary["mode"]) == (SKU, "negotiating", "test")
    assert [
        s["session_id"]
        for s in get(api, "/v1/sessions?limit=2", shop.keys["secret_test"])["sessions"]
    ] == opened[:0:-1]
    assert listed(api, shop.keys["secret_live"]) == [live.session_id]


def test_sessions_opened_in_the_same_second_list_newest_first(
    shop: Shop, api: httpx.Client
) -> None:
    """The clock does not move: six sessions share a created_at, and the list must still give
    the newest first (the store keeps second precision)."""
    opened = [open_session(api, shop.keys["publishable_test"]).session_id for _ in range(6)]
    assert listed(api, shop.keys["secret_test"]) == opened[::-1]


def test_a_list_shows_the_state_and_update_of_each_session(shop: Shop, api: httpx.Client) -> None:
    session = _open(api, shop)
    shop.server.clock.advance(seconds=30)
    offer(api, session, OPENING)
    (summary,) = get(api, "/v1/sessions", shop.keys["secret_test"])["sessions"]
    assert summary["state"] == "agreed"
    assert summary["created_at"] == "2026-11-30T12:00:00Z"
    assert summary["updated_at"] == "2026-11-30T12:00:30Z"


def test_reading_a_session_with_the_secret_key_includes_the_whole_log(
    shop: Shop, api: httpx.Client
) -> None:
    session = _open(api, shop)
    offer(api, session, 40000)
    secret = shop.keys["secret_test"]
    by_merchant = get(api, session.url, secret)
    by_buyer = get(api, session.url, session.token)
    log = log_of(api, session, secret)
    assert by_merchant["log"] == log == by_buyer["log"]
    assert get(api, f"{session.url}/log", session.token)["envelopes"] == log
    assert by_merchant["events"] == [] and by_buyer["events"] == []
    assert [e["type"] for e in log] == [
        "session.accept",
        "offer.propose",
        "arbitration.evaluate",
        "offer.counter",
        "arbitration.evaluate",
        "offer.counter",
        "arbitration.evaluate",
    ]
    assert "session_token" not in by_merchant
    for view in (by_merchant, by_buyer, session.view):
        assert_shape(view, "SessionView")


def test_the_open_answer_is_a_session_view_with_the_merchants_offer_on_the_table(
    shop: Shop, api: httpx.Client
) -> None:
    session = _open(api, shop)
    view = session.view
    assert_shape(view, "SessionView")
    assert session.token.startswith("acc_st_test_")
    assert (view["state"], view["round"], view["your_turn"], view["corrective"]) == (
        "negotiating",
        0,
        True,
        False,
    )
    assert (view["mode"], view["sku"], view["max_rounds"]) == ("test", SKU, 5)
    assert view["offer_on_table"] == {
        "proposer": "merchant",
        "terms": {
            "price": {"amount_minor": OPENING, "currency": "USD"},
            "inclusions": [
                {"kind": "warranty", "value": "included"},
                {"kind": "cable", "value": "included"},
            ],
        },
    }
    assert [e["type"] for e in view["events"]] == [
        "session.accept",
        "offer.propose",
        "arbitration.evaluate",
    ]
    accept = view["events"][0]["payload"]
    assert accept["session_rules"] == {
        "max_rounds": 5,
        "fair_band": "0.05",
        "round_timeout_seconds": 900,
        "fairness_profile": "default/v0.1",
    }
    assert accept["attested"]["t_target"] == {"amount_minor": 41900, "currency": "USD"}
    assert accept["parties"]["buyer"]["commitment_by"] == "server"
    assert view["last_verdict"]["verdict"] == "fair"
    assert view["close"] is None and view["receipt"] is None
    # The declared max_rounds is capped by the policy's.
    capped = _open(api, shop, max_rounds=50)
    assert capped.view["max_rounds"] == POLICY["max_rounds"]
    assert _open(api, shop, max_rounds=2).view["max_rounds"] == 2


def test_the_fair_edge_offer_is_scored_fair_and_one_below_is_not(
    shop: Shop, api: httpx.Client
) -> None:
    session = _open(api, shop)
    view = offer(api, session, FAIR_LOW)
    buyer_verdict = view["events"][1]["payload"]
    assert (buyer_verdict["verdict"], buyer_verdict["fairness_score"]) == ("fair", "1.0500")
    other = _open(api, shop)
    view = offer(api, other, FAIR_LOW - 1)
    assert view["events"][1]["payload"]["verdict"] == "unfair_to_merchant"
    assert view["state"] == "corrective"


def test_an_ended_view_links_its_receipt_and_no_offer_stands(shop: Shop, api: httpx.Client) -> None:
    session, view = agree(api, shop.keys["publishable_test"])
    assert view["receipt"] == f"{shop.server.url}{session.url}/receipt"
    assert (view["state"], view["your_turn"], view["offer_on_table"]) == ("agreed", False, None)
    assert get(api, session.url, session.token)["receipt"] == view["receipt"]

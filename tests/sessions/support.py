"""Builders for the arbitrated-session HTTP tests: sessions opened and moved over the wire, what a
session holds (to prove a refusal wrote nothing), and a small checker for the subset of JSON
Schema that spec/arbitrated-session.schema.json uses (jsonschema is not installed)."""

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final

import httpx

from tests.http.support import assert_error, auth
from tests.sessions.conftest import POLICY

JSONBody = dict[str, Any]
SKU: Final = POLICY["sku"]
SCHEMA_PATH: Final = Path("/work/shared/spec/arbitrated-session.schema.json")

# The POLICY's numbers (t_target 41900, band 0.05, no buyer utilities so W = 0):
FAIR_LOW: Final = 39905  # ceil(41900 / 1.05): the lowest fair net price
OPENING: Final = 44105  # floor(41900 / 0.95): the merchant's opening ask, below the list price
UNFAIR: Final = 30000  # far below fair_low: unfair to the merchant
FLOOR: Final = 39917  # distinctive, above fair_low, so it is the reservation


@dataclass(frozen=True)
class Session:
    session_id: str
    token: str
    view: JSONBody

    @property
    def url(self) -> str:
        return f"/v1/sessions/{self.session_id}"


def put_policy(api: httpx.Client, key: str, **changes: Any) -> JSONBody:
    body = POLICY | changes
    stored = api.put(f"/v1/policies/{body['sku']}", json=body, headers=auth(key))
    assert stored.status_code == 200, stored.text
    result: JSONBody = stored.json()
    return result


def open_body(agent_id: str = "buyer-1", **declared: Any) -> JSONBody:
    buyer: JSONBody = {"agent_id": agent_id}
    if declared:
        buyer["declared"] = declared
    return {"sku": SKU, "buyer": buyer}


def open_session(api: httpx.Client, key: str, body: JSONBody | None = None) -> Session:
    opened = api.post("/v1/sessions", json=body or open_body(), headers=auth(key))
    assert opened.status_code == 201, opened.text
    view = opened.json()
    return Session(view["session_id"], view["session_token"], view)


def move(api: httpx.Client, session: Session, body: JSONBody) -> JSONBody:
    moved = api.post(f"{session.url}/messages", json=body, headers=auth(session.token))
    assert moved.status_code == 200, moved.text
    view: JSONBody = moved.json()
    return view


def offer(api: httpx.Client, session: Session, price_minor: int, **more: Any) -> JSONBody:
    return move(api, session, {"type": "offer", "price_minor": price_minor, **more})


def get(api: httpx.Client, url: str, token: str) -> JSONBody:
    response = api.get(url, headers=auth(token))
    assert response.status_code == 200, response.text
    body: JSONBody = response.json()
    return body


def log_of(api: httpx.Client, session: Session, secret: str) -> list[JSONBody]:
    envelopes: list[JSONBody] = get(api, f"{session.url}/log", secret)["envelopes"]
    return envelopes


def listed(api: httpx.Client, secret: str) -> list[str]:
    sessions = get(api, "/v1/sessions?limit=200", secret)["sessions"]
    return [s["session_id"] for s in sessions]


def agree(api: httpx.Client, key: str, body: JSONBody | None = None) -> tuple[Session, JSONBody]:
    """A session the merchant's policy agrees to in round 1: an offer at its opening ask."""
    session = open_session(api, key, body)
    view = offer(api, session, OPENING)
    assert view["state"] == "agreed", view
    return session, view


def refused(response: httpx.Response, code: str) -> JSONBody:
    return assert_error(response, code)


# -- the schema ----------------------------------------------------------------------------


@cache
def schema() -> JSONBody:
    loaded: JSONBody = json.loads(SCHEMA_PATH.read_text())
    return loaded


_TYPES: Final = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


def _is_type(value: Any, name: str) -> bool:
    if name == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, _TYPES[name])


def schema_problems(value: Any, node: JSONBody, path: str = "$") -> list[str]:
    """What is wrong with `value` under `node`, for the keywords the session schema uses."""
    if "$ref" in node:
        name = node["$ref"].removeprefix("#/$defs/")
        return schema_problems(value, schema()["$defs"][name], path)
    problems: list[str] = []
    if "type" in node:
        names = node["type"] if isinstance(node["type"], list) else [node["type"]]
        if not any(_is_type(value, n) for n in names):
            return [f"{path}: {value!r} is not {names}"]
    if "enum" in node and value not in node["enum"]:
        problems.append(f"{path}: {value!r} not in {node['enum']}")
    if "const" in node and value != node["const"]:
        problems.append(f"{path}: {value!r} is not {node['const']!r}")
    if "anyOf" in node and all(schema_problems(value, n, path) for n in node["anyOf"]):
        problems.append(f"{path}: matches none of anyOf")
    if "oneOf" in node:
        matching = [n for n in node["oneOf"] if not schema_problems(value, n, path)]
        if len(matching) != 1:
            problems.append(f"{path}: matches {len(matching)} of oneOf")
    if isinstance(value, str):
        if "pattern" in node and not re.search(node["pattern"], value):
            problems.append(f"{path}: {value!r} does not match {node['pattern']}")
        if len(value) < node.get("minLength", 0) or len(value) > node.get("maxLength", len(value)):
            problems.append(f"{path}: length {len(value)}")
    if _is_type(value, "integer") and not node.get("minimum", value) <= value <= node.get(
        "maximum", value
    ):
        problems.append(f"{path}: {value} out of range")
    if isinstance(value, list):
        if len(value) > node.get("maxItems", len(value)):
            problems.append(f"{path}: too many items")
        for index, item in enumerate(value):
            problems += schema_problems(item, node.get("items", {}), f"{path}[{index}]")
    if isinstance(value, dict):
        problems += [
            f"{path}: missing {name}" for name in node.get("required", ()) if name not in value
        ]
        properties = node.get("properties", {})
        extra = node.get("additionalProperties", True)
        for name, member in value.items():
            if name in properties:
                problems += schema_problems(member, properties[name], f"{path}.{name}")
            elif extra is False:
                problems.append(f"{path}: unknown member {name}")
            elif isinstance(extra, dict):
                problems += schema_problems(member, extra, f"{path}.{name}")
    return problems


def assert_shape(value: Any, definition: str) -> None:
    problems = schema_problems(value, schema()["$defs"][definition])
    assert not problems, problems


# -- privacy -------------------------------------------------------------------------------


def floor_problems(text: str, *, floor: int = FLOOR, nonce: str | None = None) -> list[str]:
    """Where a response a buyer can get discloses the merchant's floor or its nonce: the floor as
    a number of its own (not inside a longer hash or token), the member name, the nonce."""
    problems = []
    if re.search(rf"(?<![0-9A-Za-z_-]){floor}(?![0-9A-Za-z_-])", text):
        problems.append(f"the floor {floor}")
    if "floor_minor" in text:
        problems.append("floor_minor")
    if nonce is not None and nonce in text:
        problems.append("the merchant's nonce")
    return problems

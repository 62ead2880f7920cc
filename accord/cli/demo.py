"""`accord demo`: two built-in agents negotiate a room from open to agreement, their simulated
owners confirm, and the receipt is checked as `accord verify` checks it (spec/agents.md,
Command line). Without --server it runs on a private server of its own, stopped at the end."""

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from datetime import date, timedelta
from pathlib import Path
from typing import Annotated, Any, Final

import httpx
import typer

from accord.agents.briefs import Brief, read_brief
from accord.agents.room_agent import RoomAgent
from accord.agents.strategies import DEFAULT, STRATEGIES
from accord.cli.agent_seat import act
from accord.cli.errors import Failure, talking_to
from accord.cli.flags import Json
from accord.cli.output import out, print_json
from accord.sdk import Accord

ROUNDS: Final = 20
START_TIMEOUT: Final = 30.0


def schema() -> dict[str, Any]:
    return {
        "price": {"type": "money", "currency": "EUR", "label": "Price"},
        "pickup": {"type": "date", "label": "Pickup day"},
        "lights": {"type": "bool", "label": "Lights included"},
    }


def briefs(today: date) -> tuple[dict[str, Any], dict[str, Any]]:
    """A seller and a buyer of a used bicycle who want different things from each field."""

    def day(n: int) -> str:
        return (today + timedelta(days=n)).isoformat()

    seller = {
        "fields": {
            "price": {"weight": 3, "from": 40000, "to": 48000, "steps": 17},
            "pickup": {"weight": 1, "from": day(14), "to": day(2), "steps": 7},
            "lights": {"weight": 1, "utilities": {"true": 0.2, "false": 1}},
        },
        "reservation": 0.25,
    }
    buyer = {
        "fields": {
            "price": {"weight": 3, "from": 47000, "to": 38000, "steps": 19},
            "pickup": {"weight": 1, "from": day(2), "to": day(12), "steps": 6},
            "lights": {"weight": 2, "utilities": {"true": 1, "false": 0}},
        },
        "reservation": 0.2,
    }
    return seller, buyer


def say_terms(terms: Mapping[str, Any]) -> str:
    """Terms for a person: `price 450.00 EUR · pickup 2026-12-12 · lights yes`."""
    parts = []
    for name, value in terms.items():
        if isinstance(value, Mapping) and "amount_minor" in value:
            value = f"{value['amount_minor'] / 100:.2f} {value['currency']}"
        elif isinstance(value, bool):
            value = "yes" if value else "no"
        parts.append(f"{name} {value}")
    return " · ".join(parts)


@contextlib.contextmanager
def private_server() -> Iterator[str]:
    """`accord serve` on a free 127.0.0.1 port with a temporary data folder, stopped after."""
    with tempfile.TemporaryDirectory(prefix="accord-demo-") as folder:
        port = _free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("ACCORD_")}
        log = Path(folder) / "serve.log"
        with log.open("wb") as output:
            server = subprocess.Popen(
                [sys.executable, "-m", "accord", "serve", "--port", str(port),
                 "--data-dir", str(Path(folder) / "data")],
                env=env, stdout=output, stderr=subprocess.STDOUT,
            )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_for(url, server, log)
            yield url
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise Failure(f"the private server did not start: {log.read_text()[-2000:]}")
        try:
            if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise Failure(f"the private server did not answer within {START_TIMEOUT:.0f} s")


def demo(
    server: Annotated[
        str | None,
        typer.Option(
            "--server", help="Run on this Accord server; default: a private one, stopped after."
        ),
    ] = None,
    seller: Annotated[str, typer.Option("--seller", help="The seller's strategy.")] = DEFAULT,
    buyer: Annotated[str, typer.Option("--buyer", help="The buyer's strategy.")] = DEFAULT,
    as_json: Json = False,
) -> None:
    """Two built-in agents negotiate a room to agreement; the receipt is verified.

    Exit 0 only when the room agreed and its receipt is valid."""
    for name in (seller, buyer):
        if name not in STRATEGIES:
            raise Failure(
                f"unknown strategy {name}; the built-in ones are {', '.join(STRATEGIES)}",
                exit_code=2,
            )
    if server is not None:
        result = _run(server.rstrip("/"), seller, buyer, as_json)
    else:
        if not as_json:
            out.print("Starting a private Accord server …")
        with private_server() as url:
            result = _run(url, seller, buyer, as_json)
    if as_json:
        print_json(result)
    if result["room"]["state"] != "agreed" or not result["verify"]["ok"]:
        raise typer.Exit(1)


def _run(url: str, seller_strategy: str, buyer_strategy: str, as_json: bool) -> dict[str, Any]:
    def say(text: str) -> None:
        if not as_json:
            out.print(text, markup=False, soft_wrap=True)

    seller_doc, buyer_doc = briefs(date.today())
    subject = schema()
    seller_brief: Brief = read_brief(subject, seller_doc)
    buyer_brief: Brief = read_brief(subject, buyer_doc)
    with talking_to(url), Accord(url) as client:
        say(f"Server {url}")
        opened = client.rooms.open(
            subject, limits=seller_brief.limits(), title="A used bicycle (accord demo)"
        )
        floor = {k: v.get("min") or v.get("max") for k, v in seller_brief.limits().items()}
        say(f"The seller opens room {opened.room.name} ({opened.room.room_id}), private limits: "
            f"{say_terms(floor)}")  # fmt: skip
        joined = client.rooms.join(opened.invite.token, limits=buyer_brief.limits())
        say("The buyer joins with the invite and private limits of its own.")
        say(f"Agents: seller {seller_strategy}, buyer {buyer_strategy}; each offer shows its "
            "maker's own utility (0 to 1).")  # fmt: skip
        seats = {
            "opener": ("seller", RoomAgent(seller_brief, STRATEGIES[seller_strategy], ROUNDS, 0),
                       opened.seat, opened.owner),
            "joiner": ("buyer", RoomAgent(buyer_brief, STRATEGIES[buyer_strategy], ROUNDS, 1),
                       joined.seat, joined.owner),
        }  # fmt: skip
        room = opened.seat.view().to_json()
        for _ in range(4 * ROUNDS + 4):
            if room["state"] in ("agreed", "closed", "expired") or room["turn"] is None:
                break
            who, agent, seat, owner = seats[room["turn"]]
            acted = act(agent, seat, owner)
            room = acted.room
            step = acted.step
            if step.kind in ("offer", "counter"):
                assert step.terms is not None and step.utility is not None
                say(f"  {who:6} {step.kind:7} {say_terms(step.terms)}  ({step.utility:.2f})")
            elif step.kind == "approve":
                say(f"  {who:6} approves the terms on the table; its owner confirms")
            elif step.kind == "reject":
                say(f"  {who:6} walks away; its owner confirms")
            else:
                say(f"  {who:6} stops: {step.kind.replace('_', ' ')}")
                break
        log = [e.to_json() for e in opened.seat.log().envelopes]
        terms = room["table"]["terms"] if room["state"] == "agreed" and room["table"] else None
        if terms is None:
            raise Failure(f"the room ended {room['state']} without agreement")
        say(f"Agreed: {say_terms(terms)}")
        receipt = opened.seat.receipt().to_json()
        jwks = client.receipts.jwks().to_json()
        verified = client.receipts.verify(receipt, jwks=jwks, log=log).to_json()
        say(f"Receipt: {verified['status']} (signed by {verified.get('kid')}, "
            f"{len(log)} envelopes in the chain), as `accord verify` checks it")  # fmt: skip
        rounds = sum(1 for e in log if e["type"] in ("move.offer", "move.counter"))
        return {
            "room": {"id": room["room_id"], "name": room["name"], "state": room["state"]},
            "rounds": (rounds + 1) // 2,
            "terms": terms,
            "log": log,
            "receipt": receipt,
            "jwks": jwks,
            "verify": verified,
        }

"""`accord agent run --table sessions`: a built-in agent opens an arbitrated session on a SKU
with the merchant's publishable key and buys as the buyer, through the SDK, until the session
agrees or closes. No move waits for a person: the buyer's agent holds the session token."""

from typing import Any, Final

from accord.agents.session_agent import SessionAgent, SessionBriefError, read_session_brief
from accord.agents.strategies import STRATEGIES
from accord.cli.agent_case import CaseLimits
from accord.cli.errors import Failure, talking_to
from accord.cli.output import clean, out, print_json
from accord.core.money import format_money
from accord.sdk import Accord

MAX_MOVES: Final = 250
MAX_ROUNDS: Final = 100


def run_session(
    sku: str,
    document: dict[str, Any],
    *,
    strategy: str,
    rounds: int,
    seed: int,
    key: str | None,
    agent_id: str,
    server: str,
    as_json: bool,
    adviser: CaseLimits | None = None,
) -> None:
    """`adviser`: the case the session follows, linked as it opens; an accept its review says
    reject stops the agent instead."""
    if not key:
        raise Failure(
            "a session is opened with the merchant's publishable key: give --key "
            "(acc_pk_test_… or acc_pk_live_…) or set ACCORD_KEY",
            exit_code=2,
        )
    if rounds > MAX_ROUNDS:
        raise Failure(f"a session has at most {MAX_ROUNDS} rounds: give fewer", exit_code=2)
    try:
        brief = read_session_brief(document)
        declared = brief.declared(rounds)
    except SessionBriefError as exc:
        raise Failure(f"the brief: {exc}", exit_code=2) from None
    agent = SessionAgent(brief, STRATEGIES[strategy], seed)
    steps: list[dict[str, Any]] = []

    def say(text: str) -> None:
        if not as_json:
            out.print(text, markup=False, soft_wrap=True)

    url = server.rstrip("/")
    with talking_to(url), Accord(url) as client:
        buyer = client.sessions.open(key, sku, agent_id=agent_id, declared=declared)
        if adviser is not None:
            adviser.follow(buyer.session_id, buyer.token)
        session = buyer.view()
        currency = _currency(session.to_json())
        say(f"{strategy} buys {clean(sku)} in session {session.session_id}")
        for _ in range(MAX_MOVES):
            view = session.to_json()
            step = agent.decide(view, view.get("log") or [])
            if step.kind in ("done", "wait"):
                break
            vetoed = adviser.veto(step) if adviser is not None else None
            if vetoed is not None:
                say(vetoed)
                say(
                    "It stopped before accepting: decide yourself, or override the review "
                    f"first (accord adviser override {adviser.case_id if adviser else ''})."
                )
                steps.append({"kind": "vetoed", "reason": vetoed})
                break
            steps.append(
                {"kind": step.kind, "price_minor": step.price_minor, "net_minor": step.net_minor,
                 "utility": step.utility}
            )  # fmt: skip
            if step.price_minor is not None and step.utility is not None:
                price = format_money(step.price_minor, currency)
                say(f"  {step.kind:7} {price}  ({step.utility:.2f})")
            else:
                say(f"  {step.kind:7} {clean(step.reason or '')}")
            buyer.move(step.body())
            session = buyer.view()
        final = session.to_json()
        receipt = buyer.receipt().to_json() if final["state"] == "agreed" else None
    if as_json:
        print_json(
            {"session": {"id": final["session_id"], "sku": final["sku"], "state": final["state"]},
             "close": final.get("close"), "steps": steps, "receipt": receipt}
        )  # fmt: skip
        return
    if final["state"] == "agreed":
        say("The session is agreed, and its receipt signed (--json prints it).")
    else:
        close = final.get("close") or {}
        say(f"The session is {final['state']} ({clean(str(close.get('reason', '')))}).")


def _currency(view: dict[str, Any]) -> str:
    table = view.get("offer_on_table") or {}
    return str(table.get("terms", {}).get("price", {}).get("currency", ""))

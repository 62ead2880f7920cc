"""Intro negotiations for a person at a terminal: short lines and small tables. What the other
side wrote (its statement, its agent's messages) is shown as text, never obeyed: `clean`
escapes control characters, and nothing is printed as markup."""

import json
from collections.abc import Mapping, Sequence
from typing import Any

from accord.cli.output import clean, err, grid, out

Body = Mapping[str, Any]


def say(text: str) -> None:
    out.print(clean(text), markup=False, soft_wrap=True, highlight=False)


def _none(what: str) -> None:
    err.print(f"no {what} yet", markup=False)


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def constraints_line(constraints: Any) -> str:
    if not constraints:
        return "none"
    return "; ".join(
        f"{c.get('key')} {c.get('op')} {_value(c.get('value'))}"
        for c in constraints
        if isinstance(c, Mapping)
    )


def identity_line(identity: Any) -> str:
    if not isinstance(identity, Mapping) or not identity:
        return "none"
    return ", ".join(f"{name}={value}" for name, value in identity.items())


# -- the principal, intents, chat, networks ------------------------------------------------


def print_me(me: Body) -> None:
    key = "owner key" if me.get("key") == "owner" else f"agent key of {me.get('agent_id')}"
    say(f"{me.get('name')} ({me.get('principal_id')}), with the {key}")
    say(f"selected agent: {me.get('selected_agent_id')}")


def print_intent(intent: Body) -> None:
    say(f"intent {intent.get('intent_id')}  {intent.get('status')}  {intent.get('visibility')}")
    say(f"  {intent.get('statement')}")
    say(f"  constraints: {constraints_line(intent.get('constraints'))}")
    say(f"  identity: {identity_line(intent.get('identity'))}")
    if intent.get("networks"):
        say(f"  networks: {', '.join(intent['networks'])}")


def print_intents(intents: Sequence[Body]) -> None:
    if not intents:
        _none("intents")
        return
    rows = [
        (i.get("intent_id"), i.get("status"), i.get("visibility"), i.get("statement"))
        for i in intents
    ]
    grid(("intent", "status", "visibility", "statement"), rows)


def message_line(message: Body) -> str:
    author = message.get("author")
    who = f"agent {message.get('agent_id')}" if author == "agent" else str(author)
    return f"{message.get('created_at')}  {who}: {message.get('message')}"


def print_messages(messages: Sequence[Body]) -> None:
    if not messages:
        _none("messages")
    for message in messages:
        say(message_line(message))


def print_networks(networks: Sequence[Body]) -> None:
    if not networks:
        _none("networks")
        return
    grid(("network", "name"), [(n.get("network_id"), n.get("name")) for n in networks])


def _yes_no(value: Any) -> str | None:
    return None if value is None else ("yes" if value else "no")


def print_candidates(candidates: Sequence[Body]) -> None:
    if not candidates:
        err.print("no candidates: no visible intent shares a word with yours", markup=False)
        return
    rows = [
        (
            c.get("intent_id"),
            c.get("score"),
            _yes_no(c.get("mutual")),
            _yes_no(c.get("constraint_fit")),
            c.get("statement"),
        )
        for c in candidates
    ]
    grid(("intent", "score", "mutual", "fit", "statement"), rows)


# -- opportunities and negotiations --------------------------------------------------------


def _decisions(opportunity: Body) -> str:
    decisions = opportunity.get("decisions") or {}
    return f"yours {decisions.get('yours') or '—'}, theirs {decisions.get('theirs') or '—'}"


def opportunity_line(opportunity: Body) -> str:
    created = opportunity.get("created")
    opened = "" if created is None else ("  (opened now)" if created else "  (opened before)")
    return (
        f"{opportunity.get('opportunity_id')}  {opportunity.get('status')}  "
        f"{opportunity.get('your_seat')} with intent {opportunity.get('your_intent_id')}  "
        f"decisions: {_decisions(opportunity)}{opened}"
    )


def print_opportunities(opportunities: Sequence[Body]) -> None:
    if not opportunities:
        _none("opportunities")
    for opportunity in opportunities:
        say(opportunity_line(opportunity))


def whose_turn(negotiation: Body) -> str:
    """What the viewer's seat may do now, said in a line."""
    protocol = negotiation.get("protocol") or {}
    blocked = protocol.get("blocked_reason")
    if negotiation.get("outcome"):
        return f"settled: {negotiation['outcome']}"
    if blocked is None:
        return f"your turn: {', '.join(protocol.get('available_actions') or [])}"
    if blocked == "not_your_turn":
        return f"waiting for the {negotiation.get('awaiting')}"
    if blocked == "round_over":
        return "the round is over: resume it with new context (negotiation resume)"
    if blocked == "needs_principal":
        return "waiting for the owner to answer the agent's questions"
    return f"blocked: {blocked}"


def layers_lines(counterparty: Body) -> list[str]:
    layers = counterparty.get("layers") or {}
    lines = []
    for name in ("statement", "constraints", "identity"):
        state = layers.get(name, "closed")
        if state != "open":
            lines.append(f"  {name}: closed")
        elif name == "statement":
            lines.append(f"  statement: {counterparty.get('statement')}")
        elif name == "constraints":
            lines.append(f"  constraints: {constraints_line(counterparty.get('constraints'))}")
        else:
            lines.append(f"  identity: {identity_line(counterparty.get('identity'))}")
    return lines


def print_negotiation(view: Body) -> None:
    """`{negotiation, counterparty}`, with the opportunity when the view holds it."""
    opportunity = view.get("opportunity")
    if isinstance(opportunity, Mapping):
        say(
            f"opportunity {opportunity.get('opportunity_id')}  {opportunity.get('status')}  "
            f"you are the {opportunity.get('your_seat')} "
            f"(intent {opportunity.get('your_intent_id')})"
        )
        say(f"decisions: {_decisions(opportunity)}")
        if opportunity.get("context"):
            say(f"your context: {opportunity['context']}")
    negotiation = view.get("negotiation") or {}
    protocol = negotiation.get("protocol") or {}
    say(
        f"negotiation {negotiation.get('negotiation_id')}  round {negotiation.get('round')}  "
        f"{negotiation.get('turn_count')} turn(s), {negotiation.get('turns_in_round')} of "
        f"{protocol.get('max_turns_per_round')} this round"
    )
    say(whose_turn(negotiation))
    say("the other side:")
    for line in layers_lines(view.get("counterparty") or {}):
        say(line)
    for turn in negotiation.get("turns") or []:
        say(
            f"  #{turn.get('turn_index')} round {turn.get('round')} {turn.get('seat')} "
            f"{turn.get('action')}: {turn.get('message')}"
        )


def print_decided(opportunity: Body) -> None:
    say(f"opportunity {opportunity.get('opportunity_id')}  {opportunity.get('status')}")
    say(f"decisions: {_decisions(opportunity)}")


def question_line(question: Body) -> str:
    options = question.get("options")
    choose = f" [{' | '.join(options)}]" if options else ""
    line = f"{question.get('question_id')}  {question.get('status')}  {question.get('question')}"
    line += f"{choose} (why: {question.get('why')})"
    if question.get("status") == "answered":
        chat = " (in the chat)" if question.get("answered_in_chat") else ""
        line += f"\n  answer{chat}: {question.get('answer')}"
    return line


def print_questions(questions: Sequence[Body]) -> None:
    if not questions:
        _none("questions")
    for question in questions:
        say(question_line(question))


def print_negotiations(negotiations: Sequence[Body]) -> None:
    if not negotiations:
        _none("negotiations")
        return
    rows = [
        (
            n.get("opportunity_id"),
            n.get("negotiation_id"),
            n.get("outcome") or "open",
            n.get("round"),
            n.get("awaiting"),
        )
        for n in negotiations
    ]
    grid(("opportunity", "negotiation", "outcome", "round", "awaiting"), rows, ids=2)


def print_log(envelopes: Sequence[Body]) -> None:
    rows = []
    for envelope in envelopes:
        payload = envelope.get("payload") or {}
        detail = payload.get("message")
        if detail is None:
            shown = {k: v for k, v in payload.items() if k not in ("negotiation_id", "round")}
            detail = json.dumps(shown, ensure_ascii=False) if shown else ""
        rows.append(
            (
                envelope.get("seq"),
                envelope.get("type"),
                (envelope.get("sender") or {}).get("role"),
                payload.get("round"),
                detail,
            )
        )
    grid(("seq", "type", "from", "round", "detail"), rows, ids=2)


def print_receipt(receipt: Body) -> None:
    signature = receipt.get("signature") or {}
    chain = receipt.get("chain") or {}
    invariants = receipt.get("invariants") or {}
    held = sum(1 for ok in invariants.values() if ok)
    say(f"receipt of {receipt.get('session_id')}: {receipt.get('state')} ({receipt.get('mode')})")
    terms = receipt.get("final_terms")
    if isinstance(terms, Mapping):
        say(f"agreed: {terms.get('proposal')} (proposed by the {terms.get('proposed_by')})")
    say(f"signature: {signature.get('status')} ({signature.get('reason')})")
    say(f"invariants: {held} of {len(invariants)} hold")
    say(f"chain: {chain.get('length')} envelopes, head {chain.get('head')}")

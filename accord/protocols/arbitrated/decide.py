"""Deciding an arbitrated session: the open, the buyer's moves, the merchant's actions, and the
arbiter's and hosted merchant's replies (spec/arbitrated-rest.md, Session flow). Pure: time,
ids and nonces come in as arguments; the merchant's policy comes from its private record."""

from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any, Final

from accord.core.envelope import Draft, Envelope
from accord.core.protocol import Decision, PrivateDraft
from accord.core.refusals import Refusal, RefusalCode
from accord.core.times import format_time
from accord.protocols.arbitrated import fairness, merchant
from accord.protocols.arbitrated.apply import apply
from accord.protocols.arbitrated.arbiter import attested_of, evaluate, utilities_of
from accord.protocols.arbitrated.handoff import automatic_handoff, publish
from accord.protocols.arbitrated.moves import (
    AcceptMove,
    BuyerMove,
    HandoffRequest,
    MerchantMove,
    OfferMove,
    OpenSessionRequest,
    RejectMove,
    RevealMove,
    RevealRequest,
)
from accord.protocols.arbitrated.policy import Policy
from accord.protocols.arbitrated.state import (
    ARBITER,
    BUYER,
    MERCHANT,
    Mode,
    Phase,
    SessionState,
    is_timed_out,
)
from accord.trust.commitments import commit_set

AS_MERCHANT: Final[Mapping[str, str]] = {"role": MERCHANT}
AS_BUYER: Final[Mapping[str, str]] = {"role": BUYER}
EMPTY_SET: Final[dict[str, Any]] = {}


def _refuse(code: RefusalCode, message: str, **details: Any) -> Refusal:
    return Refusal(code, message, details)


def _money(amount_minor: int, currency: str) -> dict[str, Any]:
    return {"amount_minor": amount_minor, "currency": currency}


def _terms(price_minor: int, inclusions: Sequence[str], currency: str) -> dict[str, Any]:
    terms: dict[str, Any] = {"price": _money(price_minor, currency)}
    if inclusions:
        terms["inclusions"] = [{"kind": k, "value": "included"} for k in inclusions]
    return terms


def merchant_policy(policy: Policy, max_rounds: int) -> merchant.MerchantPolicy:
    return merchant.MerchantPolicy(
        list_price_minor=policy.list_price_minor,
        floor_minor=policy.floor_minor,
        default_inclusions=tuple(i.kind for i in policy.inclusions if i.included_by_default),
        style=policy.concession.style,
        max_rounds=max_rounds,
        band=Decimal(policy.fair_band),
    )


def _evaluation(score: fairness.Score, round_: int, currency: str) -> Draft:
    adjustment = score.suggested_adjustment_minor
    return Draft(
        "arbitration.evaluate",
        ARBITER,
        {
            "round": round_,
            "verdict": str(score.verdict),
            "fairness_score": score.fairness_score,
            "w_minor": score.w_minor,
            "t_minor": score.t_minor,
            "price_minor": score.price_minor,
            "suggested_adjustment": _money(adjustment, currency)
            if adjustment is not None
            else None,
        },
    )


def open_session(
    request: OpenSessionRequest,
    policy: Policy | Mapping[str, Any],
    *,
    session_id: str,
    tenant_id: str,
    mode: Mode,
    nonce: str,
    now: datetime,
) -> Decision | Refusal:
    """unknown_fairness_profile → currency_mismatch; then `session.accept`, the merchant's
    opening offer (round 0) and the arbiter's verdict on it. The policy is snapshotted in the
    merchant's private record, so a later change of policy never changes a running session;
    it may be given as the store keeps it, a `Policy` dumped to JSON."""
    policy = Policy.model_validate(policy)
    if not fairness.is_known_profile(request.fairness_profile):
        return _refuse(
            RefusalCode.UNKNOWN_FAIRNESS_PROFILE,
            f"The arbiter knows the fairness profiles {sorted(fairness.PROFILES)}.",
            allowed=sorted(fairness.PROFILES),
        )
    currency = policy.currency
    declared = request.buyer.declared
    if declared.currency is not None and declared.currency != currency:
        return _refuse(
            RefusalCode.CURRENCY_MISMATCH,
            f"{request.sku} is sold in {currency}; declare that currency or none.",
            currency=currency,
        )
    max_rounds = min(declared.max_rounds, policy.max_rounds)
    buyer_commitment: str = request.buyer.commitment or commit_set(EMPTY_SET)
    commitment_by = "buyer" if request.buyer.commitment else "server"
    ts = format_time(now)
    attested = {
        "list_price": _money(policy.list_price_minor, currency),
        "inclusion_values": {i.kind: _money(i.value_minor, currency) for i in policy.inclusions},
        "t_target": _money(policy.reference_price_minor, currency),
        "source": f"merchant catalogue: tenant {tenant_id}, sku {request.sku}; "
        "reference price declared by the merchant",
        "captured_at": ts,
    }
    accept = {
        "session_id": session_id,
        "sku": request.sku,
        "session_rules": {
            "max_rounds": max_rounds,
            "fair_band": policy.fair_band,
            "round_timeout_seconds": policy.round_timeout_seconds,
            "fairness_profile": request.fairness_profile,
        },
        "attested": attested,
        "parties": {
            "buyer": {
                "agent_id": request.buyer.agent_id,
                "declared": declared.model_dump(mode="json", exclude_none=True),
                "commitment": buyer_commitment,
                "commitment_by": commitment_by,
            },
            "merchant": {
                "agent_id": f"merchant:{tenant_id}",
                "commitment": commit_set({"nonce": nonce, "floor_minor": policy.floor_minor}),
            },
        },
    }
    context = {
        "tenant_id": tenant_id,
        "mode": mode,
        "nonce": nonce,
        "policy": policy.model_dump(mode="json"),
    }
    # The opening is computed on the state the session opens with, so it is scored alike.
    first = apply(None, Envelope(0, ts, "session.accept", ARBITER, accept, ""))
    price, inclusions = merchant.opening_offer(
        merchant_policy(policy, max_rounds),
        attested=attested_of(first),
        utilities=utilities_of(first),
    )
    terms = _terms(price, inclusions, currency)
    score = evaluate(first, terms)
    return Decision(
        public=[
            Draft("session.accept", ARBITER, accept),
            Draft("offer.propose", AS_MERCHANT, {"round": 0, "terms": terms}),
            _evaluation(score, 0, currency),
        ],
        private=[PrivateDraft(MERCHANT, Draft("merchant.context", ARBITER, context))],
    )


def expire(state: SessionState, *, now: datetime) -> Decision | None:
    """The buyer's silence past `round_timeout_seconds` closes the session (sweeper and access)."""
    if not is_timed_out(state, now):
        return None
    return Decision(public=[_close("timeout", None)])


def _close(reason: str, detail: str | None) -> Draft:
    return Draft("session.close", ARBITER, {"reason": reason, "detail": detail})


def decide_move(
    state: SessionState, move: BuyerMove, *, now: datetime, handoff_code: str
) -> Decision | Refusal:
    """session_ended → not_your_turn → nothing_to_accept (accept) → unattested_inclusion →
    price_not_above_inclusions → non_monotonic → (an offer past the last round closes the
    session, unrecorded) → scored and recorded, with the replies it causes. A reveal is
    accepted after the end only (session_open).

    `handoff_code` is a discount code made by the caller, used only if this move makes an agreement
    under a policy that publishes its hand-off automatically."""
    decision = _decide_move(state, move)
    if isinstance(decision, Refusal) or not any(d.type == "session.agree" for d in decision.public):
        return decision
    return Decision(
        decision.public,
        [*decision.private, automatic_handoff(state, now=now, code=handoff_code)],
        decision.notices,
    )


def decide_merchant(
    state: SessionState, move: MerchantMove, *, now: datetime
) -> Decision | Refusal:
    """The merchant's two actions: publish the hand-off of an agreed session, or open its
    commitment after the end."""
    match move:
        case HandoffRequest():
            return publish(state, move, now=now)
        case RevealRequest():
            return merchant_reveal(state)
    raise AssertionError(f"unknown merchant move {move!r}")


def _decide_move(state: SessionState, move: BuyerMove) -> Decision | Refusal:
    if isinstance(move, RevealMove):
        return _reveal(state, BUYER, move.private)
    if state.is_final:
        return _refuse(RefusalCode.SESSION_ENDED, f"The session is {state.phase}; open a new one.")
    if not state.your_turn:
        return _refuse(RefusalCode.NOT_YOUR_TURN, "Wait for the merchant's answer.")
    match move:
        case AcceptMove():
            standing = state.offer_on_table
            if standing is None or standing.proposer != MERCHANT:
                return _refuse(
                    RefusalCode.NOTHING_TO_ACCEPT, "No merchant offer stands; make an offer."
                )
            return Decision(public=[_agree(standing.terms, BUYER, state.round)])
        case RejectMove():
            return Decision(public=[_close("rejected", move.reason)])
        case OfferMove():
            return _offer(state, move)
    raise AssertionError(f"unknown move {move!r}")


def _agree(terms: Mapping[str, Any], accepted_by: str, round_: int) -> Draft:
    return Draft(
        "session.agree",
        ARBITER,
        {"final_terms": dict(terms), "accepted_by": accepted_by, "round": round_},
    )


def _offer(state: SessionState, move: OfferMove) -> Decision | Refusal:
    currency = state.attested["t_target"]["currency"]
    inclusions = list(dict.fromkeys(move.inclusions))
    values = state.attested["inclusion_values"]
    if unknown := [k for k in inclusions if k not in values]:
        return _refuse(
            RefusalCode.UNATTESTED_INCLUSION,
            f"The arbiter has no attested value for {unknown}; offer only {sorted(values)}.",
            inclusions=unknown,
            allowed=sorted(values),
        )
    terms = _terms(move.price_minor, inclusions, currency)
    corrective = state.phase is Phase.CORRECTIVE
    round_ = state.round if corrective else state.round + 1
    score = evaluate(state, terms)
    assert score.t_minor is not None  # every inclusion is attested and the currency is ours
    if score.t_minor <= 0:
        return _refuse(
            RefusalCode.PRICE_NOT_ABOVE_INCLUSIONS,
            "The price must be above what its inclusions are worth to you.",
            w_minor=score.w_minor,
        )
    if state.buyer_last_t is not None and score.t_minor < state.buyer_last_t:
        return _refuse(
            RefusalCode.NON_MONOTONIC,
            "Your net price may not fall below your previous offer's.",
            previous_t_minor=state.buyer_last_t,
        )
    if round_ > state.max_rounds:
        return Decision(public=[_close("max_rounds", None)])
    standing = state.offer_on_table
    kind = (
        "offer.counter"
        if standing is not None and standing.proposer == MERCHANT
        else "offer.propose"
    )
    payload: dict[str, Any] = {"round": round_, "terms": terms}
    if move.justification is not None:
        payload["justification"] = move.justification
    public = [Draft(kind, AS_BUYER, payload), _evaluation(score, round_, currency)]
    if score.verdict is fairness.Verdict.UNFAIR_TO_MERCHANT:
        if corrective:
            public.append(_close("unfair_offers", "the corrective offer was unfair too"))
        else:
            public.append(
                Draft(
                    "arbitration.reject",
                    ARBITER,
                    {
                        "round": round_,
                        "reason": "unfair_to_merchant",
                        "suggested_adjustment": payload["terms"]["price"]
                        | {"amount_minor": score.suggested_adjustment_minor},
                    },
                )
            )
        return Decision(public=public)
    return Decision(public=public + _merchant_answers(state, terms, score, round_))


def _merchant_answers(
    state: SessionState, terms: Mapping[str, Any], score: fairness.Score, round_: int
) -> list[Draft]:
    assert state.merchant is not None, "the merchant's record is folded before any move"
    assert score.t_minor is not None
    policy = merchant_policy(state.merchant.policy, state.max_rounds)
    inclusions = tuple(i["kind"] for i in terms.get("inclusions", []))
    answer = merchant.respond(
        policy,
        round=round_,
        buyer_t=score.t_minor,
        buyer_inclusions=inclusions,
        attested=attested_of(state),
        utilities=utilities_of(state),
    )
    if isinstance(answer, merchant.Accept):
        return [_agree(terms, MERCHANT, round_)]
    currency = terms["price"]["currency"]
    counter = _terms(answer.price_minor, answer.inclusions, currency)
    counter_score = evaluate(state, counter)
    return [
        Draft("offer.counter", AS_MERCHANT, {"round": round_, "terms": counter}),
        _evaluation(counter_score, round_, currency),
    ]


def _reveal(state: SessionState, party: str, private: Mapping[str, Any]) -> Decision | Refusal:
    """After the end only; the reveal is recorded beside the chain, never in it."""
    if not state.is_final:
        return _refuse(RefusalCode.SESSION_OPEN, "Reveals are accepted after the session ends.")
    record = {"party": party, "private": dict(private)}
    return Decision(private=[PrivateDraft(party, Draft("party.reveal", ARBITER, record))])


def merchant_reveal(state: SessionState) -> Decision | Refusal:
    """The merchant opens the commitment the server made for it: `{nonce, floor_minor}`."""
    assert state.merchant is not None
    opened = {"nonce": state.merchant.nonce, "floor_minor": state.merchant.policy.floor_minor}
    return _reveal(state, MERCHANT, opened)

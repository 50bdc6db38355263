"""`moot decide --dry-run`: every call of the option-choice debate, priced before anything is spent.

Round 1 is one call per judge; round 2 (when round 1 has no consensus) one more per judge, each prompt
carrying every judge's round-1 reply: placeholders of typical size for the estimate, of each judge's
output bound for the worst case. Clarifications are in the worst case only.
"""

from __future__ import annotations

from typing import Any

from moot.engine.budget import TYPICAL_REPLY_TOKENS, CallCost, Scenario, scenarios, tokens_of
from moot.engine.core import Engine
from moot.engine.pricing import Pricing
from moot.judges.base import Seat
from moot.schemas.decide import DecisionRequest
from moot.store.db import Store


def _fill_round_1(decision: Any, seats: list[Seat], size: Any) -> None:
    """Pretend every judge answered round 1 (recommending the first option) with a reply of `size(seat)`."""
    first = decision.context.options[0].id
    for seat in seats:
        decision.state.recommendations.setdefault(seat.id, {})[1] = first
        decision.state.texts.setdefault(seat.id, {})[1] = "x" * 4 * size(seat)


def estimate_decision(
    request: DecisionRequest, seats: list[Seat], pricing: Pricing | None
) -> tuple[list[CallCost], list[Scenario]]:
    """Every judge call of a full decision debate (typical and worst case), and the seed's table."""
    from moot.protocols.decide import Decision

    engine = Engine(Store(":memory:"), "dry-run", pricing=pricing)
    typical = Decision(request, seats, engine)
    worst = Decision(request, seats, engine)
    rounds = request.config.max_rounds
    calls: list[CallCost] = []
    for round_no in range(1, rounds + 1):
        if round_no == 2:
            _fill_round_1(typical, seats, lambda _: TYPICAL_REPLY_TOKENS)
            _fill_round_1(worst, seats, engine.output_bound)
        for seat in seats:
            t = engine.call_cost(seat, typical._prompt(seat, round_no), round_no, cached_prefix=round_no > 1)
            w = engine.call_cost(seat, worst._prompt(seat, round_no), round_no)
            calls.append(CallCost(seat.id, seat.label, round_no, t.input_tokens, t.typical_usd, w.worst_usd))
    return calls, scenarios(calls, rounds)


def decision_dry_run_data(request: DecisionRequest, seats: list[Seat], pricing: Pricing | None) -> dict[str, Any]:
    from moot.cli.cost import plan_data

    calls, table = estimate_decision(request, seats, pricing)
    ctx = request.context
    options = [f"{o.label} {o.description}" for o in ctx.options]
    context_text = "\n".join([ctx.question_text, *options, ctx.spec_context])
    return plan_data(
        "decide",
        seats=seats,
        rounds_allowed=request.config.max_rounds,
        calls=calls,
        table=table,
        input_tokens=tokens_of(context_text),
        input_name="question and context",
    )

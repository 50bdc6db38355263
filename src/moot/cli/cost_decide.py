"""`moot decide --dry-run`: every call of the option-choice debate, priced before anything is spent.

The protocol's own steps are rehearsed (`moot.engine.runner.rehearse_plan`): round 1 is one call per
judge; each later round one more per judge, each prompt carrying every judge's reply of the round before:
placeholders of typical size for the estimate, of each judge's output bound for the worst case. The
placeholder judges never agree, so every round allowed is priced. Clarifications are in the worst case only.
"""

from __future__ import annotations

from typing import Any

from moot.engine.budget import CallCost, Scenario, scenarios, tokens_of
from moot.engine.core import Engine
from moot.engine.pricing import Pricing
from moot.engine.runner import rehearse_plan
from moot.judges.base import Seat
from moot.schemas.decide import DecisionRequest
from moot.store.db import Store


def estimate_decision(
    request: DecisionRequest, seats: list[Seat], pricing: Pricing | None
) -> tuple[list[CallCost], list[Scenario]]:
    """Every judge call of a full decision debate (typical and worst case), and the seed's table."""
    from moot.protocols.decide import Decision

    engine = Engine(Store(":memory:"), "dry-run", pricing=pricing)
    typical, worst = (Decision(request, seats, "dry-run") for _ in range(2))
    calls = rehearse_plan(typical, worst, engine)
    return calls, scenarios(calls, request.config.max_rounds)


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

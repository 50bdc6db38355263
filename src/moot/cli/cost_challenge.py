"""`moot challenge --dry-run`: every call of the position challenge, priced before anything is spent.

    round 1   the opening (proponent), then one challenge per challenger
    round N   the proponent's confrontation, then one rebuttal per dissenter
    final     (no consensus) one assumption statement from the proponent and from each dissenter

The estimate walks the protocol's own steps on its worst path (every challenger dissents in every round,
see `PositionChallenge.rehearse`), so it prices the very prompts a real debate would send, with earlier
replies as placeholders of typical size (the estimate) or of each judge's output bound (the worst case).
The table's rows: a fast exit, consensus after round 1, after round 2, and the full debate ending in a
tradeoff.
"""

from __future__ import annotations

from typing import Any

from moot.engine.budget import CallCost, Scenario, scenario, tokens_of
from moot.engine.core import Engine
from moot.engine.pricing import Pricing
from moot.engine.runner import rehearse_plan
from moot.judges.base import Seat
from moot.schemas.challenge import ChallengeRequest
from moot.store.db import Store


def estimate_challenge(
    request: ChallengeRequest, proponent: Seat, challengers: list[Seat], pricing: Pricing | None
) -> tuple[list[CallCost], list[Scenario]]:
    """Every call of the worst path (typical and worst case), and the table of ways the debate can end."""
    from moot.protocols.challenge import PositionChallenge

    engine = Engine(Store(":memory:"), "dry-run", pricing=pricing)
    typical, worst = (PositionChallenge(request, proponent, challengers, "dry-run") for _ in range(2))
    calls = rehearse_plan(typical, worst, engine)
    return calls, challenge_scenarios(calls, request.max_rounds)


def challenge_scenarios(calls: list[CallCost], max_rounds: int) -> list[Scenario]:
    """A fast exit; consensus after round 1 and 2; the full debate ending in a tradeoff."""
    first = [c for c in calls if c.round == 1 and c.phase in ("opening", "challenge")]
    rows = [scenario("Fast exit", 1, first)]
    for n in sorted({1, min(2, max_rounds)}):
        rows.append(scenario(f"Round {n} consensus", n, [c for c in calls if 1 <= c.round <= n]))
    rows.append(scenario(f"Round {max_rounds} (max), tradeoff", max_rounds, calls))
    return rows


def challenge_dry_run_data(
    request: ChallengeRequest, proponent: Seat, challengers: list[Seat], pricing: Pricing | None
) -> dict[str, Any]:
    from moot.cli.cost import plan_data

    calls, table = estimate_challenge(request, proponent, challengers, pricing)
    topic = "\n".join([request.topic, *(a.text for a in request.context)])
    return plan_data(
        "challenge",
        seats=[proponent, *challengers],
        rounds_allowed=request.max_rounds,
        calls=calls,
        table=table,
        input_tokens=tokens_of(topic),
        input_name="topic and context",
        skipped=list(request.skipped),
    )

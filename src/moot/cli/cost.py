"""`--dry-run` and `--max-cost` for every debate command: the seed's cost table before anything is
spent, and the cap the engine keeps. This module holds what the commands share (the dry-run data and
its rendering, the cap) and the estimate of `moot evaluate`; `cost_decide` and `cost_challenge` estimate
the other protocols.

The estimate renders the protocol's real prompts for the actual lineup and artifact (later rounds with
placeholder replies of typical size, and of the output bound for the worst case), counts tokens as
characters / 4, and prices them with the same table and overrides the engine uses for the real calls.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from moot.engine.budget import TYPICAL_REPLY_TOKENS, Budget, CallCost, Scenario, scenarios, tokens_of
from moot.engine.core import Engine
from moot.engine.pricing import Pricing
from moot.engine.runner import rehearse_plan
from moot.judges.base import Seat
from moot.schemas.evaluate import EvaluationRequest
from moot.store.db import Store


def with_max_cost(budget: Budget | None, max_cost: float | None) -> Budget | None:
    """The run's budget with `--max-cost` applied (the flag wins over the judges file's `budget:`)."""
    from moot.api.common import with_max_cost as apply

    return apply(budget, max_cost)


def estimate_evaluation(
    request: EvaluationRequest, seats: list[Seat], moderator: Seat | None, pricing: Pricing | None
) -> tuple[list[CallCost], list[CallCost], list[Scenario]]:
    """Every judge call of a full debate (typical and worst case), the final calls, and the seed's table."""
    from moot.protocols.evaluate import Evaluation

    engine = Engine(Store(":memory:"), "dry-run", pricing=pricing)
    typical, worst = (Evaluation(request, seats, "dry-run", moderator=moderator) for _ in range(2))
    costs = rehearse_plan(typical, worst, engine)
    calls = [c for c in costs if c.round]
    final = [c for c in costs if not c.round]
    return calls, final, scenarios(calls, request.rounds_allowed, final)


def _usd(v: float | None) -> str:
    return "?" if v is None else f"${v:.4f}" if v < 0.1 else f"${v:.2f}"


def judges_data(seats: Sequence[Seat]) -> list[dict[str, Any]]:
    return [{"seat": s.id, "model": s.label, "runs_on": [f"{j.provider}/{j.model}" for j in s.judges]} for s in seats]


ASSUMPTIONS = {
    "tokens": "characters / 4 of the rendered prompts",
    "typical_reply_tokens": TYPICAL_REPLY_TOKENS,
    "worst_case": "every reply at its output bound (max_tokens) plus one clarification each; "
    "the dearest model of each seat (fallbacks included); no prompt caching",
}


def plan_data(
    protocol: str,
    *,
    seats: Sequence[Seat],
    rounds_allowed: int,
    calls: Sequence[CallCost],
    table: Sequence[Scenario],
    input_tokens: int,
    input_name: str = "artifact",
    **extra: Any,
) -> dict[str, Any]:
    """A dry run as data (what `--format json|yaml` prints), whatever the protocol."""
    return {
        "dry_run": True,
        "protocol": protocol,
        "artifact_tokens": input_tokens,
        "input_name": input_name,
        "judges": judges_data(seats),
        "rounds_allowed": rounds_allowed,
        **extra,
        "calls": [asdict(c) for c in calls],
        "scenarios": [asdict(s) for s in table],
        "assumptions": dict(ASSUMPTIONS),
    }


def dry_run_data(
    request: EvaluationRequest, seats: list[Seat], moderator: Seat | None, pricing: Pricing | None
) -> dict[str, Any]:
    calls, final, table = estimate_evaluation(request, seats, moderator, pricing)
    return plan_data(
        "evaluate",
        seats=seats,
        rounds_allowed=request.rounds_allowed,
        calls=[*calls, *final],
        table=table,
        input_tokens=sum(tokens_of(a.text) for a in request.artifacts),
    )


def dry_run_text(data: dict[str, Any]) -> str:
    out = [
        f"Dry run: nothing was sent. {len(data['judges'])} judges, up to {data['rounds_allowed']} round(s), "
        f"{data.get('input_name', 'artifact')} ~{data['artifact_tokens']:,} tokens.",
    ]
    out += [f"Skipped, not usable here: {s}" for s in data.get("skipped", [])]
    out += ["", "Calls per round (input tokens, typical cost / worst case):"]
    for c in data["calls"]:
        where = f"round {c['round']}" if c["round"] else "final"
        if c.get("phase"):
            where += f" {c['phase']}"
        elif not c["round"]:
            where = "synthesis"
        out.append(
            f"  {where:22} {c['seat']:13} {c['model']:30} ~{c['input_tokens']:>7,} tok  "
            f"{_usd(c['typical_usd']):>8} / {_usd(c['worst_usd'])}"
        )
    out += [
        "",
        "| Scenario | Rounds | Judge Calls | Estimated Cost | Worst Case |",
        "|----------|--------|-------------|----------------|------------|",
    ]
    for s in data["scenarios"]:
        out.append(
            f"| {s['label']} | {s['rounds']} | {s['calls']} (+ up to {s['max_clarifications']} clarifications) "
            f"| ~{_usd(s['typical_usd'])} | {_usd(s['worst_usd'])} |"
        )
    unpriced = sorted({m for s in data["scenarios"] for m in s["unpriced"]})
    if unpriced:
        out += ["", f"No price known for {', '.join(unpriced)}: add it under 'pricing:' in the judges file."]
    out += ["", "Cap the spend with --max-cost USD: a round whose worst case could cross it is not started."]
    return "\n".join(out) + "\n"


def dry_run_output(data: dict[str, Any], fmt: str) -> str:
    from moot.reports.serialize import to_json, to_yaml

    return to_json(data) if fmt == "json" else to_yaml(data) if fmt == "yaml" else dry_run_text(data)


def apply_cost_options(options: Any, seats: list[Seat], moderator: Seat | None, max_cost: float | None) -> None:
    """Put `--max-cost` into the run options and check, before any call, that the cap can be kept."""
    from moot.api.common import apply_max_cost

    apply_max_cost(options, [*seats, *([moderator] if moderator else [])], max_cost)

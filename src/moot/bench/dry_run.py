"""What a bench would cost, sending nothing: each gold item's debate priced as `moot decide --dry-run` (or
`evaluate`) prices it (`moot.api.specs.estimate`, from the very prompts the debate would send), then
multiplied out over the run's debates.

A bench's cost is a range, because how many rounds each debate takes is what the bench measures:
- low: every debate ends in round 1 (then vote@equal needs extra samples only when the panel is even:
  its k is odd);
- high: every debate runs to its last round (and vote@equal samples as many round-1 answers as that
  debate spends calls, rounded up to an odd number);
- worst: every reply at its output bound with one clarification each, the cap `--max-cost` is checked against.
The swapped order costs what the given order costs (the same texts), its vote@equal samples included.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from moot.api.specs import estimate
from moot.batch import load_items
from moot.bench.collect import odd_at_least
from moot.bench.plan import BenchPlan
from moot.bench.runner import prepare_bench
from moot.bench.suites import Suite
from moot.schemas.bench import STRATEGIES


async def estimate_bench(
    suite: Suite, *, judges: str | Path | None = None, strategies: Sequence[str] = STRATEGIES, swap: bool | None = None
) -> dict[str, Any]:
    """The dry run of `run_bench` with the same arguments, as data (no API key needed)."""
    plan, judges_path = await prepare_bench(suite, judges=judges, strategies=strategies, swap=swap, keys=False)
    gold = {item.id for item in suite.items}
    items = [i for i in load_items(plan.items_path, plan.protocol) if i.id in gold]
    plans = [await estimate(plan.protocol, **i.arguments, judges=judges_path) for i in items]
    return bench_estimate(plan, plans)


def _usd(value: Any) -> float:
    return float(value or 0.0)


def _item_range(p: Mapping[str, Any], orders: int, samples: bool) -> dict[str, float]:
    """One item's low, high and worst calls and USD: its debate(s) and, for vote@equal, the extra round-1
    debates that would bring its round-1 answers up to the debate's calls."""
    first, last = p["scenarios"][0], p["scenarios"][-1]
    panel = max(1, int(first["calls"]))

    def extra(calls: int) -> int:
        return orders * math.ceil((odd_at_least(calls) - panel) / panel) if samples else 0

    low, high = extra(first["calls"]), extra(last["calls"])
    worst = max(_usd(s["worst_usd"]) for s in p["scenarios"])
    return {
        "calls_low": first["calls"] * (orders + low),
        "calls_high": last["calls"] * orders + high * first["calls"],
        "usd_low": _usd(first["typical_usd"]) * (orders + low),
        "usd_high": _usd(last["typical_usd"]) * orders + high * _usd(first["typical_usd"]),
        "usd_worst": worst * orders + extra(last["calls"] + last["max_clarifications"]) * _usd(first["worst_usd"]),
        "samples_high": high,
    }


def bench_estimate(plan: BenchPlan, plans: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The run's cost range from each item's dry run (`estimate`'s data, in the suite's order)."""
    orders = 2 if plan.swap else 1
    ranges = [_item_range(p, orders, "vote@equal" in plan.strategies) for p in plans]
    total = {key: sum(r[key] for r in ranges) for key in ranges[0]} if ranges else {}
    unpriced = sorted({m for p in plans for s in p["scenarios"] for m in s.get("unpriced") or []})
    first = plans[0] if plans else {}
    return {
        "dry_run": True,
        "suite": plan.suite.name,
        "protocol": plan.protocol,
        "items": len(plans),
        "strategies": list(plan.strategies),
        "swap": plan.swap,
        "judges": first.get("judges", []),
        "rounds_allowed": first.get("rounds_allowed"),
        "debates": {"per_item": orders, "samples_at_most": int(total.get("samples_high", 0))},
        "calls": {"low": int(total.get("calls_low", 0)), "high": int(total.get("calls_high", 0))},
        "typical_usd": {"low": round(total.get("usd_low", 0.0), 4), "high": round(total.get("usd_high", 0.0), 4)},
        "worst_usd": round(total.get("usd_worst", 0.0), 4),
        "unpriced": unpriced,
        "warnings": list(dict.fromkeys(w for p in plans for w in p.get("warnings", []))),
        "assumptions": first.get("assumptions", {}),
        "run_folder": str(plan.folder),
    }

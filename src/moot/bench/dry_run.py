"""What a bench would cost, sending nothing: each gold item's debate priced as `moot decide --dry-run` (or
`evaluate`) prices it (`moot.protocol.spec.estimate`, from the very prompts the debate would send), then
multiplied out over the run's debates.

A bench's cost is a range, because how many rounds each debate takes is what the bench measures:
- low: every debate ends in round 1 (then vote@equal needs extra samples only when the panel is even:
  its k is odd);
- high: every debate runs to its last round (and vote@equal samples as many round-1 answers as that
  debate spends calls, rounded up to an odd number);
- worst: every reply at its output bound with one clarification each, the cap `--max-cost` is checked against.
The swapped order costs what the given order costs (the same texts), its vote@equal samples included.

Pricing renders every prompt of a debate, so a large suite is priced from a sample: the items sorted by
the length of their texts and cut into `SAMPLE` equal strata, the middle item of each priced exactly and
counted for its whole stratum. Calls are the same for every item; dollars are then an estimate, and the
output says so (`priced`: how many items were priced of how many).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from moot.api import estimate
from moot.batch import BatchItem, load_items
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
    strata = strata_of(items, SAMPLE)
    plans = [await estimate(plan.protocol, **i.arguments, judges=judges_path) for i, _ in strata]
    data = bench_estimate(plan, plans, [weight for _, weight in strata])
    data["priced"] = {"items": len(strata), "of": len(items), "estimated": len(strata) < len(items)}
    return data


SAMPLE = 64  # items priced exactly in a larger suite: an error well under a percent on suites of mixed lengths


def strata_of(items: Sequence[BatchItem], sample: int = SAMPLE) -> list[tuple[BatchItem, int]]:
    """The items to price and how many items each stands for: every item once in a suite of at most
    `sample` items; else the middle item of each of `sample` strata of the items sorted by text length."""
    if len(items) <= sample:
        return [(item, 1) for item in items]
    ordered = sorted(items, key=_text_length)
    bounds = [round(k * len(ordered) / sample) for k in range(sample + 1)]
    return [(ordered[(lo + hi) // 2], hi - lo) for lo, hi in itertools.pairwise(bounds) if hi > lo]


def _text_length(item: BatchItem) -> int:
    """The characters of an item's arguments: what its prompts', and so its cost's, size follows."""
    total, stack = 0, list[Any]([item.arguments])
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            total += len(node)
        elif isinstance(node, Mapping):
            stack.extend(node.values())
        elif isinstance(node, list | tuple):
            stack.extend(node)
        elif hasattr(node, "text"):  # an Artifact
            total += len(str(node.text))
    return total


def _usd(value: Any) -> float:
    return float(value or 0.0)


def _item_range(p: Mapping[str, Any], orders: int, samples: bool, pick: bool = False) -> dict[str, float]:
    """One item's low, high and worst calls and USD: its debate(s) and, for vote@equal, the extra round-1
    debates that would bring its round-1 answers up to the debate's calls; for select, one pick an order
    at most (none when round 1 agrees), priced as one judge's round-1 call (its prompt holds the options
    and the reasons given: about a round-1 prompt's size)."""
    first, last = p["scenarios"][0], p["scenarios"][-1]
    panel = max(1, int(first["calls"]))

    def extra(calls: int) -> int:
        return orders * math.ceil((odd_at_least(calls) - panel) / panel) if samples else 0

    low, high = extra(first["calls"]), extra(last["calls"])
    worst = max(_usd(s["worst_usd"]) for s in p["scenarios"])
    picks = orders if pick else 0
    return {
        "calls_low": first["calls"] * (orders + low),
        "calls_high": last["calls"] * orders + high * first["calls"] + picks,
        "usd_low": _usd(first["typical_usd"]) * (orders + low),
        "usd_high": _usd(last["typical_usd"]) * orders
        + high * _usd(first["typical_usd"])
        + picks * _usd(first["typical_usd"]) / panel,
        "usd_worst": worst * orders
        + extra(last["calls"] + last["max_clarifications"]) * _usd(first["worst_usd"])
        + picks * _usd(first["worst_usd"]) / panel,
        "samples_high": high,
        "picks_high": picks,
    }


def bench_estimate(
    plan: BenchPlan, plans: Sequence[Mapping[str, Any]], weights: Sequence[int] | None = None
) -> dict[str, Any]:
    """The run's cost range from each priced item's dry run (`estimate`'s data), each counted `weights`
    times (once, without weights)."""
    orders = 2 if plan.swap else 1
    weights = list(weights) if weights is not None else [1] * len(plans)
    ranges = [_item_range(p, orders, "vote@equal" in plan.strategies, "select" in plan.strategies) for p in plans]
    total = {key: sum(r[key] * w for r, w in zip(ranges, weights, strict=True)) for key in ranges[0]} if ranges else {}
    unpriced = sorted({m for p in plans for s in p["scenarios"] for m in s.get("unpriced") or []})
    first = plans[0] if plans else {}
    return {
        "dry_run": True,
        "suite": plan.suite.name,
        "protocol": plan.protocol,
        "items": sum(weights),
        "strategies": list(plan.strategies),
        "swap": plan.swap,
        "judges": first.get("judges", []),
        "rounds_allowed": first.get("rounds_allowed"),
        "debates": {"per_item": orders, "samples_at_most": int(total.get("samples_high", 0))},
        "select_picks_at_most": int(total.get("picks_high", 0)),
        "calls": {"low": int(total.get("calls_low", 0)), "high": int(total.get("calls_high", 0))},
        "typical_usd": {"low": round(total.get("usd_low", 0.0), 4), "high": round(total.get("usd_high", 0.0), 4)},
        "worst_usd": round(total.get("usd_worst", 0.0), 4),
        "unpriced": unpriced,
        "warnings": list(dict.fromkeys(w for p in plans for w in p.get("warnings", []))),
        "assumptions": first.get("assumptions", {}),
        "run_folder": str(plan.folder),
    }

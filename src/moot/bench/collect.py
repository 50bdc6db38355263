"""A bench run's debates read back: each gold item's lines in the batch's RESULTS.jsonl (its given order,
its swapped order, its extra samples) and each debate's calls from the store."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from moot.batch.results import read_lines
from moot.bench.answers import Debated, ItemRuns, PricedCall
from moot.bench.plan import SAMPLE, SWAPPED, BenchPlan
from moot.store.db import Store


def read_results(path: Path) -> dict[str, dict[str, Any]]:
    """Each item's line (the last one, should an id appear twice); a torn line is skipped."""
    return {str(data["id"]): data for data in read_lines(path) if "id" in data}


def debated(line: Mapping[str, Any] | None, store: Store) -> Debated | None:
    """A done item's debate with its record of what it changed; None for one that failed or never ran."""
    if line is None or line.get("status") != "done" or not isinstance(line.get("result"), dict):
        return None
    effect = line["result"].get("debate_effect")
    debate_id = str(line.get("debate_id") or "")
    if not isinstance(effect, dict) or not debate_id:
        return None
    calls = [
        PricedCall(c.round, c.seat, c.input_tokens + c.output_tokens, c.cost_usd)
        for c in store.calls(debate_id, prompts=False)
    ]
    return Debated(debate_id, effect, calls)


def collect(plan: BenchPlan, results: Path, store: Store, samples: int = 0) -> tuple[list[ItemRuns], list[str]]:
    """The runs of every gold item whose debates are done (the given order, and with `--swap` the swapped
    one too: JudgeBench's accuracy needs both), and the ids of those left out."""
    lines = read_results(results)
    runs: list[ItemRuns] = []
    left_out: list[str] = []
    for item in plan.suite.items:
        given = debated(lines.get(item.id), store)
        swapped = debated(lines.get(item.id + SWAPPED), store) if plan.swap else None
        if given is None or (plan.swap and swapped is None):
            left_out.append(item.id)
            continue
        extra = _samples(lines, item.id, samples, store)
        back = _samples(lines, item.id + SWAPPED, samples, store) if plan.swap else []
        runs.append(ItemRuns(item, given, swapped, extra, back))
    return runs, left_out


def _samples(lines: Mapping[str, Mapping[str, Any]], row_id: str, samples: int, store: Store) -> list[Debated]:
    found = [debated(lines.get(f"{row_id}{SAMPLE}{n}"), store) for n in range(1, samples + 1)]
    return [d for d in found if d is not None]


def odd_at_least(mean_calls: float) -> int:
    """vote@equal's k: the nearest odd number at or above the debate's mean calls per item, so that a vote
    between two answers cannot tie (a tie would need a draw)."""
    k = max(1, math.ceil(mean_calls - 1e-9))
    return k if k % 2 else k + 1


def samples_needed(runs: Sequence[ItemRuns]) -> tuple[int, int]:
    """vote@equal's k (`odd_at_least` the debate's mean calls per item) and how many extra round-1-only
    debates each item needs so that its round-1 answers number at least k."""
    k = odd_at_least(sum(r.given.spend().calls for r in runs) / len(runs))
    panel = max(1, max(len(r.given.round1()) for r in runs))
    return k, max(0, math.ceil((k - panel) / panel))

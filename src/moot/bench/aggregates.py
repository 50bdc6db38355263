"""Every score aggregate side by side on a scored suite (issue 30 §4): the panel's round-1 and final scores
combined by the mean, the median and the trimmed mean (`moot.engine.aggregate`), each read as pass when it
reaches the pass mark, and scored against gold.

Here each aggregate is taken over every judge's score, with no consensus or majority rule in between, so
that the figures show what the aggregate alone does: one corrupted judge moves the mean and with it the
verdict, where the median and the trimmed mean hold.
"""

from __future__ import annotations

from collections.abc import Sequence

from moot.bench.answers import ItemRuns
from moot.bench.metrics import accuracy
from moot.bench.stats import wilson
from moot.engine.aggregate import AGGREGATES, aggregate
from moot.schemas.bench import AggregateFigures

PASS_AT = 4.0  # evaluate's default pass mark (`verdict: {pass_at}`)


def pass_mark(source: str | None) -> float:
    """The pass mark of the judges file the bench runs with (`verdict: {pass_at}`), else evaluate's default."""
    if source is None:
        return PASS_AT
    from moot.errors import UsageError
    from moot.panel_file import load_panel_file

    try:
        verdict = load_panel_file(source).setting("verdict")
    except UsageError:
        return PASS_AT
    return verdict.pass_at if verdict is not None else PASS_AT


def _scores(run: ItemRuns, when: str) -> list[float]:
    judges = run.given.effect.get("judges", [])
    return [float(j[when]) for j in judges if isinstance(j.get(when), int | float)]


def _answers(runs: Sequence[ItemRuns], how: str, when: str, pass_at: float) -> list[str | None]:
    out: list[str | None] = []
    for r in runs:
        scores = _scores(r, when)
        out.append(None if not scores else "pass" if aggregate(scores, how) >= pass_at else "fail")  # type: ignore[arg-type]
    return out


def aggregate_figures(runs: Sequence[ItemRuns], pass_at: float = PASS_AT) -> dict[str, AggregateFigures]:
    """Accuracy (with Wilson's 95% interval) of each aggregate's verdict, over round 1 and the final round."""
    gold = [r.item.gold for r in runs]
    figures: dict[str, AggregateFigures] = {}
    for how in AGGREGATES:
        row: dict[str, object] = {"pass_at": pass_at}
        for when, name in (("round1_score", "round1"), ("final_score", "final")):
            right = [a is not None and a == g for a, g in zip(_answers(runs, how, when, pass_at), gold, strict=True)]
            row[f"{name}_accuracy"] = accuracy(right)
            row[f"{name}_ci95"] = wilson(sum(right), len(right))
        figures[how] = AggregateFigures.model_validate(row)
    return figures

"""`run_bench`: a suite's gold items debated as one `moot batch`, then read back into the bench's figures.

The batch is `run_batch` itself, over an items file the bench writes under `$MOOT_HOME/bench/runs/`
(`moot.bench.plan`), so a bench resumes exactly like a batch: running it again keeps the finished debates,
resumes the interrupted ones from the store, retries the failed ones, and pays only for what is missing.

It runs in two steps when `vote@equal` is asked: first the debates (each item, and swapped with `--swap`);
then, once the debate's mean calls per item (k) is known, the extra round-1-only debates that give each
item k independent answers. They are items of the same batch, appended to the same file, so they resume
too, and `--max-cost` caps both steps together.

The harness never knows which judge is which: answers are read per seat from each debate's record.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any

from moot.batch import BatchProgress, BatchSummary, load_items, run_batch
from moot.batch.debates import close_judges
from moot.batch.setup import check_options
from moot.bench.aggregates import PASS_AT, pass_mark
from moot.bench.answers import ItemRuns
from moot.bench.best_of import row_id, select_all
from moot.bench.cache import write_atomic
from moot.bench.collect import collect, samples_needed
from moot.bench.figures import Setting, bench_result
from moot.bench.panel import bench_panel
from moot.bench.plan import BenchPlan, plan_bench
from moot.bench.suites import Suite
from moot.bench.verdict import MARGIN
from moot.errors import UsageError
from moot.judges.factory import require_credentials, seat_judges
from moot.protocol.panel import options_from_panel
from moot.protocols import spec_for
from moot.schemas.bench import STRATEGIES, BenchResult
from moot.store.db import Store

BenchProgressSink = Callable[[str, BatchProgress], None]  # (step: "debates" | "samples", the batch's progress)


@dataclass(frozen=True)
class BenchRun:
    """`result` is None when no item's debate finished; `left_out` holds the items it could not count."""

    plan: BenchPlan
    summary: BatchSummary
    result: BenchResult | None
    left_out: tuple[str, ...]

    @property
    def failed(self) -> int:
        """Debates of the batch that failed (an item's given order, its swapped order or a sample)."""
        return self.summary.failed


async def prepare_bench(
    suite: Suite,
    *,
    judges: str | Path | None = None,
    strategies: Sequence[str] = STRATEGIES,
    swap: bool | None = None,
    keys: bool = True,
) -> tuple[BenchPlan, str | None]:
    """The run's plan, its items file and judges file written, and its panel checked as the batch will
    build it: a stance without guidance, or (with `keys`) a missing API key, is bad input before any call
    rather than a failure of every item. Returns the plan and the judges file the batch runs with."""
    if "select" in strategies and not suite.pairwise:
        raise UsageError(
            f"select picks among the options the judges chose, and suite {suite.name!r} holds scored items"
        )
    panel = bench_panel(judges, suite.kind)
    plan = plan_bench(suite, panel, tuple(strategies), swap)
    plan.write(plan.samples_written())
    judges_path = panel.write(plan.folder)
    first = load_items(plan.items_path, plan.protocol)[0]
    prepared, _ = await spec_for(plan.protocol).prepare(**first.arguments, judges=judges_path, planning=True)
    try:
        if keys:
            require_credentials(seat_judges(prepared.seats))
    finally:
        await close_judges(prepared)
    return replace(plan, judges=len(prepared.seats), warnings=_warnings(plan, prepared.seats)), judges_path


def _warnings(plan: BenchPlan, seats: Sequence[Any]) -> tuple[str, ...]:
    """A judge at temperature 0 gives vote@equal copies of one answer, not independent samples."""
    if "vote@equal" not in plan.strategies:
        return ()
    cold = [f"{s.id} ({s.label})" for s in seats if s.spec.get("temperature") == 0]
    if not cold:
        return ()
    return (
        f"vote@equal: {', '.join(cold)} run{'s' if len(cold) == 1 else ''} at temperature 0, so its extra samples "
        "are likely copies of its first answer rather than independent votes.",
    )


async def run_bench(
    suite: Suite,
    *,
    judges: str | Path | None = None,
    strategies: Sequence[str] = STRATEGIES,
    swap: bool | None = None,
    concurrency: int = 8,
    max_cost: float | None = None,
    store: Store | None = None,
    progress: BenchProgressSink | None = None,
    margin: float = MARGIN,
) -> BenchRun:
    """Bench `suite` with the panel of `judges` (a judges file; default: the project's, else moot's).

    `swap` None judges pairs in both orders (pairwise suites only). `max_cost` (USD) caps the whole run,
    earlier runs of it included. `margin` (a share) is the equivalence margin of the verdict's TOST.
    Raises UsageError for bad input before any call; cancelled (Ctrl-C), the cancellation propagates and
    calling `run_bench` again continues the run.
    """
    check_options(concurrency, max_cost, "local")
    if not 0 < margin < 1:
        raise UsageError(f"--margin is a share of the items between 0 and 1, such as 0.03 (got {margin:g})")
    plan, judges_path = await prepare_bench(suite, judges=judges, strategies=strategies, swap=swap)
    store = store or Store.open_default()
    batch = partial(
        run_batch,
        plan.items_path,
        plan.protocol,
        judges=judges_path,
        concurrency=concurrency,
        max_cost=max_cost,
        store=store,
    )
    written = plan.samples_written()
    summary = await batch(progress=_step(progress, "debates"))
    runs, left_out = collect(plan, Path(summary.results), store)
    k = extra = 0
    if "vote@equal" in plan.strategies and runs:
        k, extra = samples_needed(runs)
        if extra > written:
            plan.write(extra)
            summary = await batch(progress=_step(progress, "samples"))
        runs, left_out = collect(plan, Path(summary.results), store, extra)
    if "select" in plan.strategies and runs:
        runs = await _with_picks(plan, runs, store, judges_path, concurrency)
    result = bench_result(runs, _setting(plan, k, left_out, summary, margin)) if runs else None
    if result is not None:  # beside the run's items, for `moot view` to show without running anything
        write_atomic(plan.folder / "result.json", result.model_dump_json(indent=1).encode("utf-8"))
    return BenchRun(plan, summary, result, tuple(left_out))


async def _with_picks(
    plan: BenchPlan, runs: list[ItemRuns], store: Store, judges_path: str | None, concurrency: int
) -> list[ItemRuns]:
    """`select`'s picks, made by the panel's first seat (built as the batch builds it), in every order."""
    first = load_items(plan.items_path, plan.protocol)[0]
    prepared, _ = await spec_for(plan.protocol).prepare(**first.arguments, judges=judges_path)
    try:
        options = options_from_panel(prepared.panel)  # the judges file's retry, limits and pricing
        picks = await select_all(runs, store, prepared.seats[0], plan.folder, concurrency, options)
    finally:
        await close_judges(prepared)
    return [
        replace(r, select=picks.get(row_id(r.item.id, False)), swapped_select=picks.get(row_id(r.item.id, True)))
        for r in runs
    ]


def _step(progress: BenchProgressSink | None, step: str) -> Callable[[BatchProgress], None] | None:
    return None if progress is None else partial(progress, step)


def _setting(plan: BenchPlan, k: int, left_out: Sequence[str], summary: BatchSummary, margin: float) -> Setting:
    notes = list(plan.warnings)
    if plan.swap:
        notes.append(
            "Accuracy is JudgeBench's: a pair counts right only when it is answered right in both orders (an "
            "answer that changes with the order counts wrong); accuracy_given_order reads the given order alone."
        )
    if left_out:
        notes.append(
            f"{len(left_out)} of {len(plan.suite.items)} items are left out: their debate did not finish "
            f"(see {summary.results}; run the same command again to retry them)."
        )
    panel = plan.panel
    return Setting(
        suite=plan.suite.name,
        kind=plan.suite.kind,
        seed=plan.suite.seed,
        strategies=plan.strategies,
        samples=k,
        threshold=panel.threshold if plan.suite.pairwise and not plan.round1_only else None,
        threshold_from_file=panel.threshold_from_file,
        round1_only=plan.round1_only,
        notes=tuple(notes),
        margin=margin,
        judges=plan.judges,
        pass_at=pass_mark(panel.source) if not plan.suite.pairwise else PASS_AT,
    )


# the names the docs send users to (tests/test_public_surface.py pins them)
__all__ = ["BenchRun", "prepare_bench", "run_bench"]

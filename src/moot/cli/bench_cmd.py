"""`moot bench`: does a debate beat one judge or a vote? Every strategy measured on gold-labelled items with
this panel, as one resumable batch (run the same command again to continue it)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from moot.cli.batch_progress import ProgressDisplay, bar_wanted, progress_display, run_with_bar
from moot.cli.output import check_format, emit, text_for
from moot.errors import Interrupted, UsageError

if TYPE_CHECKING:
    from moot.bench.runner import BenchRun
DEFAULT_STRATEGIES = "single,vote,vote@equal,debate"


class BenchInterrupted(Interrupted):
    """Ctrl-C or SIGTERM: every finished debate is kept; the same command continues the bench."""

    def __init__(self) -> None:
        Exception.__init__(self, "interrupted; nothing that completed is lost: run the same moot bench command again")
        self.debate_id = None


def bench(
    suite: Annotated[
        str,
        typer.Argument(
            help="judgebench, humaneval-bugs, mmlu, or a JSONL gold file; or the hardening suites "
            "planted-findings, position, verbosity, bandwagon (comma-separated)."
        ),
    ],
    judges: Annotated[str | None, typer.Option(help="Judges file (default: the project's, else moot's).")] = None,
    strategies: Annotated[
        str, typer.Option(help="Comma-separated: single, vote, vote@equal, debate, select (best-of-N).")
    ] = DEFAULT_STRATEGIES,
    limit: Annotated[int | None, typer.Option(help="Judge a seeded sample of this many items.")] = None,
    seed: Annotated[
        int, typer.Option(help="Seed of the sample, the tie draws, the held-out half and the bootstrap.")
    ] = 0,
    concurrency: Annotated[int, typer.Option(help="Most debates in flight at once.")] = 8,
    max_cost: Annotated[
        float | None, typer.Option("--max-cost", help="USD cap for the whole bench, earlier runs of it included.")
    ] = None,
    swap: Annotated[
        bool | None,
        typer.Option("--swap/--no-swap", help="Judge every pair in both orders (default: on for pairwise items)."),
    ] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text or json (the figures on stdout).")] = "text",
    html: Annotated[str | None, typer.Option("--html", help="Also write the figures as one HTML page.")] = None,
    report: Annotated[
        str | None,
        typer.Option(
            "--report",
            help="Also write the evidence table (Markdown): accuracy, differences against single and select, "
            "cost per correct answer. Rows of other suites and panels already in the file are kept.",
        ),
    ] = None,
    data: Annotated[str | None, typer.Option("--data", help="A local copy of JudgeBench's file.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print what the bench would cost; send nothing.")] = False,
    progress: Annotated[
        bool | None,
        typer.Option("--progress/--no-progress", help="Progress bar on stderr (default: on, off with --format json)."),
    ] = None,
    margin: Annotated[
        float,
        typer.Option(
            "--margin", help="Equivalence margin of the verdict's TOST, in accuracy points (default ±3 points)."
        ),
    ] = 3.0,
) -> int:
    """Measure on gold-labelled items whether this panel's debate beats one judge, or a vote at equal cost.

    Every item is a debate in the store, run as one batch under $MOOT_HOME/bench/runs/: the same command
    continues it, paying only for what is missing. Pairwise items are judged by `decide` over options A
    and B (unanimity needed, so that the debate can differ from the vote), scored items by `evaluate`.

    The hardening suites (planted-findings, position, verbosity, bandwagon) instead run each item with
    grounding and the anti-herding rules on and off: planted judges are scripted on 127.0.0.1, the judge
    under test too unless --judges names one (its first judge). --limit is the number of items (default 20).

    Exit codes: 0 the bench completed, 1 some debate failed (the figures leave its item out), 2 bad input
    (nothing sent), 130 interrupted.
    """
    from moot.bench.hardening import hardening_suites
    from moot.bench.plan import parse_strategies
    from moot.bench.suites import load_suite

    check_format(fmt, ("text", "json"))
    hardening = hardening_suites(suite)
    if hardening is not None:
        given = {
            "--strategies": strategies != DEFAULT_STRATEGIES,
            "--concurrency": concurrency != 8,
            "--max-cost": max_cost is not None,
            "--swap/--no-swap": swap is not None,
            "--html": html is not None,
            "--report": report is not None,
            "--data": data is not None,
            "--dry-run": dry_run,
            "--margin": margin != 3.0,
        }
        extra = [flag for flag, on in given.items() if on]
        return _hardening(hardening, judges, limit, seed, fmt, extra, bar_wanted(progress, fmt))
    if not 0 < margin < 100:
        raise UsageError(f"--margin is in accuracy points, between 0 and 100 (got {margin:g})")
    chosen = parse_strategies(strategies)
    if report and not dry_run:
        from moot.bench.evidence import check_report_path

        check_report_path(report)
    loaded = load_suite(suite, data=Path(data) if data else None, limit=limit, seed=seed)
    if dry_run:
        return _dry_run(loaded, judges, chosen, swap, fmt)
    run = run_with_bar(
        lambda bar: _run(loaded, judges, chosen, swap, concurrency, max_cost, bar, margin / 100),
        bar=progress_display("bench {task.description}") if bar_wanted(progress, fmt) else None,
        interrupted=BenchInterrupted,
    )
    return _report(run, fmt, html, report)


async def _run(
    suite: Any,
    judges: str | None,
    strategies: tuple[str, ...],
    swap: bool | None,
    concurrency: int,
    max_cost: float | None,
    bar: ProgressDisplay | None,
    margin: float,
) -> BenchRun:
    from moot.bench.runner import run_bench

    return await run_bench(
        suite,
        judges=judges,
        strategies=strategies,
        swap=swap,
        concurrency=concurrency,
        max_cost=max_cost,
        progress=bar,
        margin=margin,
    )


def _dry_run(suite: Any, judges: str | None, strategies: tuple[str, ...], swap: bool | None, fmt: str) -> int:
    from moot.bench.dry_run import estimate_bench
    from moot.render.serialize import to_json
    from moot.reports.bench_text import estimate_text

    data = asyncio.run(estimate_bench(suite, judges=judges, strategies=strategies, swap=swap))
    emit(to_json(data) if fmt == "json" else estimate_text(data))
    return 0


def _report(run: BenchRun, fmt: str, html: str | None, report: str | None = None) -> int:
    from moot.render.serialize import to_json
    from moot.reports.bench_text import bench_report

    for warning in run.plan.warnings:  # also among the result's notes
        sys.stderr.write(f"moot: warning: {warning}\n")
    failed = run.failed
    if failed:
        sys.stderr.write(
            f"moot: {failed} of the bench's debates failed ({_items(len(run.left_out))} left out of the figures); "
            f"see {run.summary.results}, and run the same command again to retry them\n"
        )
    if run.result is None:
        sys.stderr.write("moot: no item's debate finished, so there are no figures\n")
        return 1
    if html:
        from moot.reports.bench_html import write_bench_html

        write_bench_html(run.result, html)
    if report:
        from moot.bench.evidence import write_report

        write_report(report, run.result)
    emit(to_json(run.result) if fmt == "json" else text_for(bench_report(run.result)))
    return 1 if failed else 0


def _hardening(
    suites: tuple[str, ...], judges: str | None, limit: int | None, seed: int, fmt: str, extra: list[str], told: bool
) -> int:
    """The hardening suites: each rate on and off with its interval, the paired difference, the cost."""
    from moot.bench.hardening import DEFAULT_ITEMS, hardening_text, run_hardening, tested_judge
    from moot.render.serialize import to_json

    if extra:
        raise UsageError(f"{', '.join(extra)} does not apply to the hardening suites ({', '.join(suites)})")
    tested, label = tested_judge(judges) if judges is not None else (None, "scripted")
    items = DEFAULT_ITEMS if limit is None else limit

    from moot.cli.output import say

    result = run_hardening(
        suites,
        items=items,
        seed=seed,
        tested=tested,
        tested_label=label,
        progress=(lambda s: say(f"moot: {s}")) if told else None,
    )
    emit(to_json(result) if fmt == "json" else text_for(hardening_text(result)))
    failed = sum(len(s["failed"]) for s in result["suites"])
    if failed:
        say(f"moot: {_items(failed)} left out: a debate of each could not finish (the figures say why)")
    return 1 if failed else 0


def _items(n: int) -> str:
    return f"{n} item" if n == 1 else f"{n} items"

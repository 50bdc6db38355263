"""`moot evaluate`: the scored multi-judge debate over an artifact."""

from __future__ import annotations

from typing import Annotated

import typer

from moot.cli.gate import GATE_FORMATS, check_gate_options, finish, render
from moot.cli.live import PROGRESS_HELP, progress_sink, showing
from moot.cli.output import TEXT_RENDERERS, check_format, dry_run_exit, emit
from moot.cli.running import run_cli
from moot.reports.terminal import TextReport
from moot.schemas.evaluate import EvaluationResult


def _text(data: dict[str, object]) -> TextReport:
    from moot.reports.text import evaluation_report

    return evaluation_report(EvaluationResult.model_validate(data))


TEXT_RENDERERS["evaluate"] = _text


def evaluate(
    solution: Annotated[list[str], typer.Option("--solution", "-s", help="File, folder or glob; repeatable.")],
    task: Annotated[str, typer.Option(help="What the solution was supposed to accomplish.")] = "",
    criteria: Annotated[
        str,
        typer.Option(
            help="name:weight,... or a rubric YAML file or a built-in rubric (code, design, documentation, plan)."
        ),
    ] = "code",
    judges: Annotated[str | None, typer.Option(help="Judges file (YAML with a debate_judges list).")] = None,
    max_rounds: Annotated[int | None, typer.Option(help="Most rounds (default 3).")] = None,
    mode: Annotated[str, typer.Option(help="complete (up to max rounds) or quick (one round).")] = "complete",
    fmt: Annotated[str, typer.Option("--format", "-f", help="text, json, yaml or github (Markdown).")] = "text",
    reports_dir: Annotated[str, typer.Option(help="Where per-judge reports are written.")] = ".specs/reports",
    no_reports: Annotated[bool, typer.Option("--no-reports", help="Write no report files.")] = False,
    progress: Annotated[bool | None, typer.Option("--progress/--quiet", " /--no-progress", help=PROGRESS_HELP)] = None,
    html: Annotated[str | None, typer.Option("--html", help="Also write the HTML report to this file.")] = None,
    fail_under: Annotated[
        float | None, typer.Option("--fail-under", help="Exit 1 when the final score is under this (CI gate).")
    ] = None,
    require: Annotated[
        str | None, typer.Option("--require", help="Exit 1 unless the verdict is at least PASS or CONDITIONAL.")
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the calls and estimated cost of 1, 2, all rounds; spend nothing.")
    ] = False,
    max_cost: Annotated[
        float | None, typer.Option("--max-cost", help="USD cap: no round starts whose worst case could cross it.")
    ] = None,
) -> int:
    """Evaluate an artifact by a debate between judges with assigned stances."""
    from moot import api

    check_format(fmt, GATE_FORMATS)
    require = check_gate_options(fail_under, require)
    request, seats, moderator, panel = api.build_evaluation_request(
        solution,
        task=task,
        criteria=criteria,
        judges=judges,
        max_rounds=max_rounds,
        mode=mode,  # type: ignore[arg-type]
        reports_dir=None if no_reports else reports_dir,
    )
    sink = progress_sink(progress, fmt)
    options = api.options_from_panel(panel, on_event=sink)
    prepared = api.prepared_evaluation(request, seats, moderator, panel)
    if dry_run:
        return dry_run_exit(prepared, options, fmt)
    api.apply_max_cost(options, prepared.seats, max_cost)
    with showing(sink):
        result = run_cli(lambda: api.run_prepared(prepared, options), options)
    emit(render("evaluate", result, fmt))
    return finish(result.model_dump(mode="json"), fail_under=fail_under, require=require, html=html)

"""`moot evaluate`: the scored multi-judge debate over an artifact."""

from __future__ import annotations

from typing import Annotated

import typer

from moot.cli.options import DryRunOption, FormatOption, HtmlOption, MaxCostOption, ProgressOption
from moot.cli.running import run_command


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
    fmt: FormatOption = "text",
    reports_dir: Annotated[str, typer.Option(help="Where per-judge reports are written.")] = ".specs/reports",
    no_reports: Annotated[bool, typer.Option("--no-reports", help="Write no report files.")] = False,
    progress: ProgressOption = None,
    html: HtmlOption = None,
    fail_under: Annotated[
        float | None, typer.Option("--fail-under", help="Exit 1 when the final score is under this (CI gate).")
    ] = None,
    require: Annotated[
        str | None, typer.Option("--require", help="Exit 1 unless the verdict is at least PASS or CONDITIONAL.")
    ] = None,
    dry_run: DryRunOption = False,
    max_cost: MaxCostOption = None,
) -> int:
    """Evaluate an artifact by a debate between judges with assigned stances."""
    return run_command("evaluate", locals())

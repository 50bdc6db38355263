"""`moot challenge`: a position defended against parallel challengers (seed 004)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from moot.cli.options import HtmlOption, ProgressOption
from moot.cli.output import FORMATS, check_format, dry_run_exit, emit
from moot.cli.running import prepare_cli, run_prepared_cli


def challenge(
    topic: Annotated[str, typer.Argument(help="The question or claim to take a position on.")],
    context: Annotated[
        list[str] | None,
        typer.Option("--context", "-c", help="File, folder or glob the debate should read; repeatable."),
    ] = None,
    proponent: Annotated[
        str | None, typer.Option(help="Who forms and defends the position: a model, or an agent CLI (claude, ...).")
    ] = None,
    challenger: Annotated[
        list[str] | None,
        typer.Option(help="A challenger: a model or an agent CLI (gemini, codex, qwen, claude); repeatable."),
    ] = None,
    judges: Annotated[
        str | None, typer.Option(help="Judges file with 'proponent:' and 'challengers:' (and max_rounds, ...).")
    ] = None,
    max_rounds: Annotated[int | None, typer.Option(help="Most confrontation rounds (default 5).")] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text, json, yaml, markdown or github.")] = "text",
    output: Annotated[
        str | None, typer.Option("--output", "-o", help="Also write the Markdown outcome to this file.")
    ] = None,
    progress: ProgressOption = None,
    html: HtmlOption = None,
    require: Annotated[
        str | None, typer.Option("--require", help="CONSENSUS: exit 1 when the debate ends in a tradeoff (CI gate).")
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Print the calls and cost estimate (fast exit to all rounds); spend nothing."),
    ] = False,
    max_cost: Annotated[
        float | None,
        typer.Option("--max-cost", help="USD cap: no confrontation round starts whose worst case could cross it."),
    ] = None,
) -> int:
    """Defend a position against challengers attacking it in parallel; end in consensus or a tradeoff
    document with the assumptions behind the disagreement."""
    from moot.cli.gate import check_gate_options, finish, render
    from moot.reports.challenge import challenge_markdown
    from moot.reports.files import atomic_write

    check_format(fmt, (*FORMATS, "markdown", "github"))
    require = check_gate_options(None, require, "challenge")
    prepared, options, sink = prepare_cli("challenge", locals(), progress, fmt, planning=dry_run)
    if dry_run:
        return dry_run_exit(prepared, options, "text" if fmt in ("markdown", "github") else fmt)
    result = run_prepared_cli(prepared, options, sink, max_cost)
    if output:
        atomic_write(Path(output), challenge_markdown(result))
    if fmt == "markdown":
        emit(challenge_markdown(result))
    else:
        emit(render("challenge", result, fmt))
    return finish(result.model_dump(mode="json"), require=require, html=html)

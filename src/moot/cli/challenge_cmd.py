"""`moot challenge`: a position defended against parallel challengers (seed 004)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from moot.cli.gate import render
from moot.cli.options import HtmlOption, ProgressOption
from moot.cli.output import FORMATS, emit
from moot.cli.running import run_command

if TYPE_CHECKING:
    from moot.protocols.challenge.schemas import ChallengeResult

# `markdown` is the tradeoff document itself; a dry run prints its plan as text for both Markdown formats
CHALLENGE_FORMATS = (*FORMATS, "markdown", "github")


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
    return run_command("challenge", locals(), lambda result: _show(result, fmt, output), formats=CHALLENGE_FORMATS)


def _show(result: ChallengeResult, fmt: str, output: str | None) -> ChallengeResult:
    """The outcome on stdout (`--format markdown`: the tradeoff document itself), and in `--output` too."""
    from moot.protocols.challenge.text import challenge_markdown
    from moot.reports.files import atomic_write

    if output:
        atomic_write(Path(output), challenge_markdown(result))
    if fmt == "markdown":
        emit(challenge_markdown(result))
    else:
        emit(render("challenge", result, fmt))
    return result

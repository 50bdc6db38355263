"""`moot decide`: judges with the Risk, Value and Effort stances debate the options of a question (seed 002).

A contested result asks the person at the terminal to choose, and records the choice; with `--no-input`,
without a terminal, or with `--format json`, it is returned as it stands and the exit code is 0.
"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from moot.cli.gate import render
from moot.cli.options import DryRunOption, FormatOption, HtmlOption, MaxCostOption, ProgressOption
from moot.cli.output import emit, render_result, say, text_for
from moot.cli.running import run_command
from moot.errors import UsageError
from moot.protocols.decide.schemas import DecisionResult
from moot.schemas.safe_text import safe_text

MAX_ASKS = 3


def _at_terminal() -> bool:
    """Whether a person can answer: both stdin and stdout are a terminal."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def _ask_choice(result: DecisionResult) -> DecisionResult:
    """Ask the person to choose an option; Enter (or end of input) leaves the decision contested."""
    from moot import api

    ids = "/".join(o.id for o in result.options)
    for _ in range(MAX_ASKS):
        sys.stderr.write(safe_text(f"Your choice [{ids}] (Enter to leave it contested): "))
        sys.stderr.flush()
        line = sys.stdin.readline()
        answer = line.strip()
        if not answer:
            return result
        try:
            chosen: DecisionResult = api.record_choice(result.debate_id, answer)
            return chosen
        except UsageError as e:
            say(str(e))
    return result


def decide(
    question: Annotated[str | None, typer.Option("--question", "-q", help="The question to decide.")] = None,
    option: Annotated[
        list[str] | None,
        typer.Option("--option", "-o", help="ID=LABEL[: description]; repeat for each option (two or more)."),
    ] = None,
    context: Annotated[
        list[str] | None, typer.Option("--context", "-c", help="A file (or folder) of context, e.g. the spec.")
    ] = None,
    debate_context: Annotated[
        str | None,
        typer.Option(help="A YAML file with a debate_context block (question, options; optionally debate_config)."),
    ] = None,
    judges: Annotated[
        str | None, typer.Option(help="Judges file (YAML): a judge list and/or a debate_config block.")
    ] = None,
    threshold: Annotated[
        float | None, typer.Option(help="Consensus threshold in (0, 1] (default 0.67: two of three).")
    ] = None,
    question_id: Annotated[str | None, typer.Option(help="Names the files (default: from the question).")] = None,
    feature_dir: Annotated[
        str | None,
        typer.Option(
            help="Where the decision files go: FEATURE_DIR/sadd/ gets each judge's recommendation per round and "
            "the decision record (default: the context's feature_dir, else .specs)."
        ),
    ] = None,
    no_files: Annotated[bool, typer.Option("--no-files", help="Write no files (the store keeps everything).")] = False,
    fmt: FormatOption = "text",
    no_input: Annotated[
        bool, typer.Option("--no-input", help="Never ask; a contested result is returned as it stands.")
    ] = False,
    progress: ProgressOption = None,
    html: HtmlOption = None,
    require: Annotated[
        str | None, typer.Option("--require", help="RECOMMENDED: exit 1 when the decision is contested (CI gate).")
    ] = None,
    dry_run: DryRunOption = False,
    max_cost: MaxCostOption = None,
) -> int:
    """Decide between options by an adversarial debate of Risk, Value and Effort judges."""
    return run_command("decide", locals(), lambda result: _show(result, fmt, no_input))


def _show(result: DecisionResult, fmt: str, no_input: bool) -> DecisionResult:
    """The decision on stdout; a contested one, with a person at the terminal, asks for their choice (the
    question on stderr where stdout carries data) and returns the result with that choice recorded, so that
    the gate and the HTML report see it."""
    ask = not result.consensus and not no_input and fmt != "json" and _at_terminal()
    if not ask and fmt == "text":
        from moot.protocols.decide.text import decision_report

        emit(text_for(decision_report(result, asking=not no_input)))
    elif not ask:
        emit(render("decide", result, fmt))
    elif fmt == "text":
        emit(render_result("decide", result, fmt))
        result = _ask_choice(result)
        if result.user_choice:
            emit(f"Decision recorded: {result.user_choice} (chosen by you)\n")
    else:
        sys.stderr.write(render_result("decide", result, "text", stream=sys.stderr))
        result = _ask_choice(result)
        emit(render("decide", result, fmt))
    return result

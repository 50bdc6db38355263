"""Printing results: one JSON/YAML object on stdout and nothing else there; progress goes to stderr.

Text results are drawn with rich (a panel, tables, colour) only when they go to a terminal, as rich
itself decides (so NO_COLOR, FORCE_COLOR, TTY_COMPATIBLE and TERM=dumb count); piped, they are plain
text with Markdown tables and no escape codes.

Judge text is untrusted: everything written to stdout goes through `emit`, which makes it inert
(`moot.schemas.safe_text`: no control character, no GitHub workflow command), except what rich drew for a
terminal, whose text was made inert before it was drawn. `say` does the same for a line on stderr.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, TextIO

from pydantic import BaseModel

from moot.errors import UsageError
from moot.render.serialize import to_json, to_yaml
from moot.render.terminal import Drawn, TextReport
from moot.schemas.safe_text import safe_text

if TYPE_CHECKING:
    from rich.console import Console

FORMATS = ("text", "json", "yaml")


def check_format(fmt: str, allowed: tuple[str, ...] = FORMATS) -> str:
    if fmt not in allowed:
        raise UsageError(f"--format must be one of {', '.join(allowed)} (got {fmt!r})")
    return fmt


def terminal_console(stream: TextIO) -> Console | None:
    """A rich console for `stream` if rich would treat it as a terminal, else None. Piped output with no
    environment variable forcing a terminal never imports rich."""
    forced = any(os.environ.get(v) for v in ("FORCE_COLOR", "TTY_COMPATIBLE"))
    try:
        tty = stream.isatty()
    except ValueError:  # closed
        return None
    if not tty and not forced:
        return None
    from rich.console import Console

    console = Console(file=stream, highlight=False)
    return console if console.is_terminal else None


def text_for(report: TextReport | str, stream: TextIO | None = None) -> str:
    """A text result as it should appear on `stream` (stdout by default)."""
    if isinstance(report, str):
        return report
    console = terminal_console(stream or sys.stdout)
    if console is None:
        return report.plain()
    from moot.protocol.verdict import all_words
    from moot.protocols import specs
    from moot.render.terminal import render_terminal

    # every protocol's verdict words, coloured wherever they appear: a listing or a judge's prose may show any
    return render_terminal(report, console, all_words(spec.verdict for spec in specs()))


def render_result(protocol: str, result: BaseModel | dict[str, Any], fmt: str, *, stream: TextIO | None = None) -> str:
    """The result in `fmt`; for text, drawn for `stream` (where it will be written; stdout by default)."""
    data = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
    if fmt == "json":
        return to_json(data)
    if fmt == "yaml":
        return to_yaml(data)
    from moot.cli.host_text import is_waiting, waiting_text

    if is_waiting(data):  # a debate waiting for its host seats' replies, whatever its protocol
        return waiting_text(data)
    from moot.protocols import entry, spec_for

    if entry(protocol) is None:  # a debate of a protocol this installation does not have
        return to_yaml(data)
    spec = spec_for(protocol)
    return text_for(spec.views.text(spec.result_type.model_validate(data)), stream)


def emit(text: str) -> None:
    """Write a result on stdout, inert (see the module's docstring)."""
    sys.stdout.write(text if isinstance(text, Drawn) else safe_text(text))
    sys.stdout.flush()


def say(text: str) -> None:
    """Write one message line on stderr, inert: messages quote judges, servers and file names."""
    sys.stderr.write(safe_text(text.rstrip("\n")) + "\n")
    sys.stderr.flush()


def dry_run_exit(prepared: Any, options: Any, fmt: str, max_input_tokens: int | None = None) -> int:
    """`--dry-run` for any protocol: the plan priced from the protocol's own prompts (warning when the input
    nears or passes its cap), printed; exit 0."""
    from moot.protocol.prepared import estimate_prepared
    from moot.reports.dry_run import dry_run_output

    emit(dry_run_output(estimate_prepared(prepared, options.pricing, max_input_tokens), fmt))
    return 0

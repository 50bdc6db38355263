"""`moot challenge` at the terminal: the outcome on stdout (`--format markdown`: the tradeoff document
itself), and in `--output` too. This is the spec's `show` hook: the CLI lends it its output
(`moot.engine.spec.Terminal`)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from moot.engine.spec import Terminal
from moot.protocols.challenge.schemas import ChallengeResult
from moot.protocols.challenge.text import challenge_markdown
from moot.reports.files import atomic_write

# `markdown` is the tradeoff document itself; a dry run prints its plan as text for both Markdown formats
FORMATS = ("markdown",)


def show(result: ChallengeResult, fmt: str, options: Mapping[str, Any], terminal: Terminal) -> ChallengeResult:
    """`options`: the command's own (`output`, a file for the Markdown outcome)."""
    output = options.get("output")
    if output:
        atomic_write(Path(output), challenge_markdown(result))
    if fmt == "markdown":
        terminal.emit(challenge_markdown(result))
    else:
        terminal.emit(terminal.render(result, fmt))
    return result

"""The options that several protocol commands take with the very same name, default and help: written
once, so that `evaluate`, `decide` (and `challenge`, where its wording is the same) cannot drift apart.
Each is a typer `Annotated` type; the parameter keeps its own name and default in each command."""

from __future__ import annotations

from typing import Annotated

import typer

from moot.cli.live import PROGRESS_HELP

FormatOption = Annotated[str, typer.Option("--format", "-f", help="text, json, yaml or github (Markdown).")]
# the commands that print data rather than a verdict (doctor, demo, show, list, resume)
DataFormatOption = Annotated[str, typer.Option("--format", "-f", help="text, json or yaml.")]
ProgressOption = Annotated[bool | None, typer.Option("--progress/--quiet", " /--no-progress", help=PROGRESS_HELP)]
HtmlOption = Annotated[str | None, typer.Option("--html", help="Also write the HTML report to this file.")]
DryRunOption = Annotated[
    bool, typer.Option("--dry-run", help="Print the calls and estimated cost of 1, 2, all rounds; spend nothing.")
]
MaxCostOption = Annotated[
    float | None, typer.Option("--max-cost", help="USD cap: no round starts whose worst case could cross it.")
]

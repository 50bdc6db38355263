"""The options that several commands take with the very same name, default and help: written once, so that
they cannot drift apart. Each is a typer `Annotated` type; the parameter keeps its own name and default in
each command. The options every protocol command takes are built with these in `moot.cli.protocol_cmd`."""

from __future__ import annotations

from typing import Annotated

import typer

from moot.cli.live import PROGRESS_HELP

# the commands that print data rather than a verdict (doctor, demo, show, list, resume)
DataFormatOption = Annotated[str, typer.Option("--format", "-f", help="text, json or yaml.")]
ProgressOption = Annotated[bool | None, typer.Option("--progress/--quiet", " /--no-progress", help=PROGRESS_HELP)]
HtmlOption = Annotated[str | None, typer.Option("--html", help="Also write the HTML report to this file.")]

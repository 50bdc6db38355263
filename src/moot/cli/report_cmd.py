"""`moot report DEBATE_ID --html out.html`: a stored debate (any protocol) as one self-contained HTML file."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from moot.errors import UsageError


def report(
    debate_id: Annotated[str, typer.Argument(help="Debate id (or a unique prefix of it); see 'moot list'.")],
    html: Annotated[
        str | None, typer.Option("--html", help="Write the HTML report to this file ('-' for stdout).")
    ] = None,
) -> None:
    """Write a debate's report: verdict, score chart, per-criterion scores, findings, cost, every reply."""
    from moot.api.report import load_record, render_html, write_html_report
    from moot.store import Store

    if not html:
        raise UsageError("moot report needs --html PATH (the only report format so far)")
    store = Store.open_default()
    if html == "-":
        sys.stdout.write(render_html(load_record(store, debate_id)))
        return
    path = write_html_report(store, debate_id, html)
    sys.stderr.write(f"moot: HTML report written to {path}\n")

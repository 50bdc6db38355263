"""`moot reply` and `moot cancel`: a debate with host seats, driven turn by turn from a shell.

`moot reply DEBATE_ID --seat SEAT [--file F]` gives one host seat's reply (standard input without
`--file`). While the step still waits for other host seats, it prints the waiting state with the ones left;
after the step's last reply, the debate's other seats are asked and it prints the next waiting state, or
the debate's result (as the protocol's command prints it), and applies what the debate was started with:
its gate (`--require`, `--fail-under`: exit 1 when the verdict falls short), its `--html` report and a
report format (`--format sarif`, `github`); until the last reply, a gated debate's reply exits 5 (waiting).
A reply that cannot be read is refused with the parser's one-line reason (exit 2); its request stays pending.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated

import typer

from moot.api.host import MAX_REPLY_BYTES  # a reply longer than any judge's output bound is not a reply
from moot.cli.gate import protocol_formats
from moot.cli.live import progress_sink, showing
from moot.cli.options import DataFormatOption, HtmlOption, ProgressOption
from moot.cli.output import FORMATS, check_format, emit, render_result
from moot.cli.running import end_of
from moot.errors import Interrupted, UsageError


def _reply_text(file: str | None) -> str:
    """The reply, from the file or standard input; bad input when it cannot be read or is empty."""
    try:
        if file is None:
            if sys.stdin.isatty():
                raise UsageError("give the reply on standard input or with --file")
            raw = sys.stdin.buffer.read(MAX_REPLY_BYTES + 1)
        else:
            with Path(file).open("rb") as f:
                raw = f.read(MAX_REPLY_BYTES + 1)
    except OSError as e:
        raise UsageError(f"reply file {file}: {e.strerror or e}") from None
    if len(raw) > MAX_REPLY_BYTES:
        raise UsageError(f"the reply is longer than {MAX_REPLY_BYTES} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"the reply ({file or 'standard input'}) is not UTF-8 text") from None
    if not text.strip():
        raise UsageError(f"the reply ({file or 'standard input'}) is empty")
    return text


ReplyFormatOption = Annotated[
    str | None,
    typer.Option(
        "--format",
        "-f",
        help="text, json, yaml, or a report format of the protocol (github, sarif, markdown) for the result "
        "(default: the report format the debate was started with, else text).",
    ),
]


def _report(fmt: str | None) -> str | None:
    """A report format (github, sarif, markdown), which the debate's last reply prints; None for the others."""
    return fmt if fmt is not None and fmt not in FORMATS else None


def reply(
    debate_id: Annotated[str, typer.Argument(help="The waiting debate's id (or a unique prefix of it).")],
    seat: Annotated[str, typer.Option("--seat", help="The host seat this reply is for (judge-1, proponent, ...).")],
    file: Annotated[str | None, typer.Option("--file", help="Read the reply from this file (default: stdin).")] = None,
    fmt: ReplyFormatOption = None,
    progress: ProgressOption = None,
    html: HtmlOption = None,
) -> int:
    """Give a host seat's reply to a waiting debate and continue it: prints the next waiting state, or
    the debate's result. The last reply applies what the debate was started with: its gate (exit 1 when the
    verdict falls short, as the one-shot run), its --html report and its report format."""
    from dataclasses import replace

    from moot.api.host import submit_replies
    from moot.api.outcome import stored_finish
    from moot.protocols import entry, spec_for
    from moot.store import Store

    store = Store.open_default()
    row = store.require_debate(debate_id)
    ending = stored_finish(row.request)
    chosen = fmt or ending.fmt or "text"
    check_format(chosen, protocol_formats(spec_for(row.protocol)) if entry(row.protocol) else FORMATS)
    text = _reply_text(file)
    # a report asked of this reply is the debate's from now on: the reply that ends it writes and prints it
    asked = replace(ending, html=str(Path(html).absolute()) if html else ending.html, fmt=_report(fmt) or ending.fmt)
    if asked != ending and row.status == "waiting":
        store.update_request(row.id, {**row.request, **asked.stored()})
    sink = progress_sink(progress, chosen)
    try:
        with showing(sink):
            result = asyncio.run(submit_replies(row.id, [{"seat": seat, "reply": text}], store=store, on_event=sink))
    except KeyboardInterrupt:
        raise Interrupted(row.id) from None
    return end_of(row.protocol, result, chosen, asked)


def cancel(
    debate_id: Annotated[str, typer.Argument(help="Debate id (or a unique prefix of it).")],
    fmt: DataFormatOption = "text",
) -> None:
    """End a debate that has not ended (waiting for host replies, interrupted, or running: it stops before its
    next call) as cancelled; what it paid for stays in the store."""
    from moot.api.host import cancel_debate
    from moot.store import Store

    check_format(fmt)
    data = cancel_debate(debate_id, store=Store.open_default())
    emit(
        f"Debate {data['debate_id']} ({data['protocol']}): cancelled\n"
        if fmt == "text"
        else render_result("", data, fmt)
    )

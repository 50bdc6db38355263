"""`moot reply` and `moot cancel`: a debate with host seats, driven turn by turn from a shell.

`moot reply DEBATE_ID --seat SEAT [--file F]` gives one host seat's reply (standard input without
`--file`). While the step still waits for other host seats, it prints the waiting state with the ones left;
after the step's last reply, the debate's other seats are asked and it prints the next waiting state, or
the debate's result (as the protocol's command prints it). A reply that cannot be read is refused with the
parser's one-line reason (exit 2); its request stays pending.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated

import typer

from moot.api.host import MAX_REPLY_BYTES  # a reply longer than any judge's output bound is not a reply
from moot.cli.live import progress_sink, showing
from moot.cli.options import DataFormatOption, ProgressOption
from moot.cli.output import check_format, emit, render_result
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


def reply(
    debate_id: Annotated[str, typer.Argument(help="The waiting debate's id (or a unique prefix of it).")],
    seat: Annotated[str, typer.Option("--seat", help="The host seat this reply is for (judge-1, proponent, ...).")],
    file: Annotated[str | None, typer.Option("--file", help="Read the reply from this file (default: stdin).")] = None,
    fmt: DataFormatOption = "text",
    progress: ProgressOption = None,
) -> None:
    """Give a host seat's reply to a waiting debate and continue it: prints the next waiting state, or
    the debate's result."""
    from moot.api.host import submit_replies
    from moot.store import Store

    check_format(fmt)
    text = _reply_text(file)
    store = Store.open_default()
    row = store.require_debate(debate_id)
    sink = progress_sink(progress, fmt)
    try:
        with showing(sink):
            result = asyncio.run(submit_replies(row.id, [{"seat": seat, "reply": text}], store=store, on_event=sink))
    except KeyboardInterrupt:
        raise Interrupted(row.id) from None
    emit(render_result(row.protocol, result, fmt))


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

"""Running a debate from a command: asyncio at the top, Ctrl-C turned into a resumable `Interrupted`, and
the life of a protocol command written once for every protocol (`run_command`; the commands themselves are
built from the specs by `moot.cli.protocol_cmd`)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from moot.api.outcome import WAITING_EXIT, Finish, show_options
from moot.cli.gate import check_gate_options, finish, protocol_formats, render
from moot.cli.live import announce, progress_sink, showing
from moot.cli.output import FORMATS, check_format, dry_run_exit, emit, render_result, say, text_for
from moot.errors import Interrupted, shown_path
from moot.protocol.prepared import RunOptions

HTML_IN_RESULT = "-"  # the MCP tools' `html: "-"` (moot.mcp.confine): the report in the tool's reply, no file

if TYPE_CHECKING:
    from moot.protocol.prepared import Prepared
    from moot.render.terminal import TextReport
    from moot.schemas.events import EventSink

T = TypeVar("T")


def run_cli(start: Callable[[], Coroutine[Any, Any, T]], options: RunOptions) -> T:
    """Run `start()` to completion. On Ctrl-C the debate has already been marked interrupted in the
    store by `run_debate`; the user is told how to continue it."""
    try:
        return asyncio.run(start())
    except KeyboardInterrupt:
        raise Interrupted(options.debate_id) from None


def prepare_cli(
    protocol: str, values: Mapping[str, Any], progress: bool | None, fmt: str, *, planning: bool
) -> tuple[Prepared, RunOptions, EventSink | None]:
    """A command's values (its own parameters and the run options), prepared as every door prepares a
    debate (`moot.protocol.args.prepare`), with the progress the command should show on stderr. `planning`
    (a dry run) lets a judge whose only problem is a missing key be planned, and checks no cap."""
    from moot.protocol.args import prepare
    from moot.protocols import spec_for

    spec = spec_for(protocol)
    sink = progress_sink(progress, fmt)
    own = {p.name: values[p.name] for p in spec.params if p.name in values}
    run = spec.run_args(values, on_event=sink)
    prepared, options = asyncio.run(
        prepare(spec, spec.made(spec.adapt(own)), run, planning=planning, door="--max-cost")
    )
    return prepared, options, sink


def run_prepared_cli(prepared: Prepared, options: RunOptions, sink: EventSink | None) -> Any:
    """Run a prepared debate, the live progress ending however the debate does."""
    from moot.api import run_prepared

    with showing(sink):
        return run_cli(lambda: run_prepared(prepared, options), options)


def judges_line(given: str | None) -> str:
    """The first progress line: which judges file is in effect and why, so that a `moot.yaml` found in a
    folder above, or one named by MOOT_JUDGES, is never used without the user seeing it."""
    from moot.project import judges_source

    if given == "host":  # no file: every seat of the lineup is answered by the caller
        return "judges: host seats (answer them with moot reply)"
    source = judges_source(given)
    return f"judges file: {source.path if source.path else 'none'} ({source.why})"


class CommandTerminal:
    """The CLI's output, lent to a protocol's `show` hook (`moot.protocol.spec.Terminal`) for its own result."""

    def __init__(self, protocol: str) -> None:
        self.protocol = protocol

    def emit(self, text: str) -> None:
        emit(text)

    def say(self, text: str) -> None:
        say(text)

    def render(self, result: Any, fmt: str, *, stream: TextIO | None = None) -> str:
        if fmt == "github" or stream is None:
            return render(self.protocol, result, fmt)
        return render_result(self.protocol, result, fmt, stream=stream)

    def text(self, report: TextReport | str, *, stream: TextIO | None = None) -> str:
        return text_for(report, stream)


def run_command(protocol: str, values: Mapping[str, Any]) -> int:
    """A protocol command from its values (its own params' and the shared options', by their Python names)
    to its exit code. The format and the gate options are checked before anything is prepared; a dry run
    prints its plan and exits 0; a run prints its result with the spec's `show` (by default the protocol's
    rendering in `--format`), which returns the result the gate reads (a person may have added to it), then
    `--html` and the gate. The gate and the outputs are stored with the debate, for `moot reply` to apply."""
    from moot.protocols import spec_for

    spec = spec_for(protocol)
    fmt = check_format(values["fmt"], protocol_formats(spec))
    fail_under = values.get("fail_under")  # scored protocols only
    require = check_gate_options(fail_under, values.get("require"), protocol)
    dry_run = values["dry_run"]
    own = {p.name: values[p.name] for p in spec.params if p.name in values}
    prepared, options, sink = prepare_cli(protocol, values, values["progress"], fmt, planning=dry_run)
    if dry_run:
        return dry_run_exit(prepared, options, fmt, values.get("max_input_tokens"))
    from moot.judges.factory import require_credentials, seat_judges

    require_credentials(seat_judges(prepared.seats))  # a missing key stays one line of bad input, before any progress
    announce(sink, judges_line(own.get("judges")))
    report_format = None if fmt in FORMATS else fmt  # sarif, github, markdown: the final reply's default too
    html = str(Path(values["html"]).absolute()) if values["html"] else None  # the same file from any folder
    ending = Finish(require, fail_under, html, report_format, show_options(own))
    options.extra.update(ending.stored())  # a debate with host seats ends in `moot reply`, which applies these
    result = run_prepared_cli(prepared, options, sink)
    return end_of(protocol, result, fmt, ending, own)


def end_of(protocol: str, result: Any, fmt: str, ending: Finish, own: Mapping[str, Any] | None = None) -> int:
    """A run's or a reply's result to its exit code: a debate still waiting on a host seat prints its
    requests (exit `WAITING_EXIT` under a gate, which it has not met yet); a finished one is shown in `fmt`
    by the protocol's `show` hook (given the command's own options, `own`; a reply has the flags the run
    stored), then its HTML report is written and its gate applied."""
    if getattr(result, "status", None) == "waiting":
        emit(render_result(protocol, result, fmt if fmt in ("json", "yaml") else "text"))
        return waiting_exit(result, ending)
    from moot.protocols import spec_for

    spec = spec_for(protocol)
    if spec.cli.show is None:
        emit(render(protocol, result, fmt))
    else:
        result = spec.cli.show(result, fmt, ending.show if own is None else own, CommandTerminal(protocol))
    html = ending.html if ending.html != HTML_IN_RESULT else None  # the MCP tools' "-" has no file to write
    return finish(result.model_dump(mode="json"), fail_under=ending.fail_under, require=ending.require, html=html)


def waiting_exit(state: Any, ending: Finish) -> int:
    """What a run that waits on host seats owes: a word on what the last reply will do, and an exit code a
    script cannot take for a pass when a gate was asked."""
    if ending.html and ending.html != HTML_IN_RESULT:
        say(f"moot: the HTML report {shown_path(ending.html)} is written when the last host reply arrives (moot reply)")
    if not ending.gated:
        return 0
    say(
        f"moot: gate not applied yet: debate {state.debate_id} waits for {len(state.requests)} host reply(ies); "
        f"the last 'moot reply' applies it (exit {WAITING_EXIT} until then)"
    )
    return WAITING_EXIT

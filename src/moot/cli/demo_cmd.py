"""`moot demo [PROTOCOL|bench]`: a complete debate of a protocol on its bundled inputs, with scripted judges
(no API key, no agent CLI), and the bench on a bundled gold file. `moot demo` alone is the first registered
protocol's demo (the evaluation). What each demo holds is its protocol's `SPEC.demo` (`moot.protocol.demo`):
this module names no protocol."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from moot.cli.live import announce, progress_sink, showing
from moot.cli.options import DataFormatOption, ProgressOption
from moot.cli.output import check_format, emit, render_result
from moot.cli.running import run_cli
from moot.errors import UsageError

if TYPE_CHECKING:
    from moot.protocol.demo import DemoSpec

BENCH = "bench"  # not a protocol: the bench's own demo


def demo(
    which: Annotated[
        str | None, typer.Argument(metavar="PROTOCOL", help="evaluate (the default), decide, challenge or bench.")
    ] = None,
    judges: Annotated[
        str | None, typer.Option(help="Use these judges instead of the scripted ones (e.g. real models).")
    ] = None,
    live: Annotated[
        bool,
        typer.Option(
            "--live", help="Use the real default lineup: gemini-3-pro-preview, gpt-5.2, grok-4 (needs their API keys)."
        ),
    ] = False,
    reports_dir: Annotated[str, typer.Option(help="Where the per-judge reports are written.")] = ".specs/reports",
    fmt: DataFormatOption = "text",
    export: Annotated[
        str | None,
        typer.Option("--export", metavar="DIR", help="Write the scripted panel and artifact into DIR; run nothing."),
    ] = None,
    progress: ProgressOption = None,
) -> int:
    """Watch a whole debate of scripted judges: `moot demo` evaluates an artifact (three judges, three rounds,
    a critical finding, a majority and a minority); `moot demo decide` picks an option; `moot demo challenge`
    defends a position; `moot demo bench` measures a scripted panel on a small gold file."""
    check_format(fmt)
    from moot.cli.demo_export import demos

    found = demos()
    which = which or next(iter(found), BENCH)  # the first registered protocol with a demo
    if which not in found and which != BENCH:
        raise UsageError(f"no demo named {which!r}: choose {', '.join(found)} or {BENCH}")
    if live and judges:
        raise UsageError("--live and --judges cannot be combined: --live uses the default lineup of real models")
    if which == BENCH:
        return _bench_demo(fmt, progress, live or bool(judges) or export is not None)
    if export is not None:
        _export(export, fmt, live or bool(judges), which)
        return 0
    demo = found[which]
    if live and not demo.live_judges:
        lives = " and ".join(name for name, d in found.items() if d.live_judges)
        raise UsageError(f"--live is for the {lives} demo: give 'moot demo {which}' a --judges file instead")
    panel: Any = list(demo.live_judges) if live else judges
    if demo.arguments is None:
        return _as_exported(demo, panel, fmt, progress)
    arguments = demo.arguments(panel or str(demo.folder / demo.judges_file), reports_dir)
    _run_built(which, arguments, demo.announce, fmt, progress)
    return 0


def _bench_demo(fmt: str, progress: bool | None, other_options: bool) -> int:
    if other_options:
        raise UsageError(
            "'moot demo bench' takes no --judges, --live or --export: its scripted judges answer from a local "
            "server that lives only while it runs (run 'moot bench GOLD.jsonl --judges FILE' with your own)"
        )
    if fmt == "yaml":
        raise UsageError("'moot demo bench' prints text or json, as 'moot bench' does")
    from moot.cli.demo_bench import demo_bench

    return demo_bench(fmt, progress)


def _as_exported(demo: DemoSpec, judges: str | None, fmt: str, progress: bool | None) -> int:
    """The protocol's own command on the bundled files, as the exported folder runs it (`--export`), so
    what is watched is what a user would run."""
    import typer

    from moot.cli.group import app

    argv = [*demo.bundled_argv(judges), "--format", fmt]
    if progress is not None:
        argv.append("--progress" if progress else "--no-progress")
    code: int = typer.main.get_command(app).main(args=argv, prog_name="moot", standalone_mode=False)
    return code


def _run_built(which: str, arguments: dict[str, Any], first_line: str, fmt: str, progress: bool | None) -> None:
    """A demo built from its own arguments (`DemoSpec.arguments`) by its protocol's `build`, then run with
    the demo's progress (`first_line` names the number of judges as `{judges}`)."""
    import asyncio

    from moot.judges.factory import require_credentials, seat_judges
    from moot.protocol.prepared import RunOptions, run_prepared
    from moot.protocols import spec_for

    prepared = asyncio.run(spec_for(which).plan(arguments, planning=False))
    require_credentials(seat_judges(prepared.seats))  # before the first progress line
    sink = progress_sink(progress, fmt)
    listed = prepared.panel_seats if prepared.panel_seats is not None else prepared.seats
    announce(sink, first_line.format(judges=len(listed)))
    options = RunOptions(on_event=sink)
    with showing(sink):
        result = run_cli(lambda: run_prepared(prepared, options), options)
    emit(render_result(which, result, fmt))


def _export(folder: str, fmt: str, other_judges: bool, which: str) -> None:
    from moot.cli.demo_export import export_demo, export_text

    if other_judges:
        raise UsageError("--export writes the scripted panel: it cannot be combined with --live or --judges")
    if not folder.strip():
        raise UsageError("--export needs a folder")
    data = export_demo(Path(folder), which)
    emit(export_text(data) if fmt == "text" else render_result("demo", data, fmt))

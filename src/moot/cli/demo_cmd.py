"""`moot demo [evaluate|decide|challenge|bench]`: a complete debate of each protocol on bundled inputs, with
scripted judges (no API key, no agent CLI), and the bench on a bundled gold file. `moot demo` alone is the
evaluation."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from moot.cli.demo_export import CHALLENGE_TOPIC, DEMO_CRITERIA, DEMO_DIR, DEMO_TASK, DEMOS
from moot.cli.live import announce, progress_sink, showing
from moot.cli.options import DataFormatOption, ProgressOption
from moot.cli.output import check_format, emit, render_result
from moot.cli.running import run_cli
from moot.errors import UsageError


def demo(
    which: Annotated[
        str, typer.Argument(metavar="PROTOCOL", help="evaluate (the default), decide, challenge or bench.")
    ] = "evaluate",
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
    if which not in (*DEMOS, "bench"):
        raise UsageError(f"no demo named {which!r}: choose evaluate, decide, challenge or bench")
    if live and judges:
        raise UsageError("--live and --judges cannot be combined: --live uses the default lineup of real models")
    if which == "bench":
        return _bench_demo(fmt, progress, live or bool(judges) or export is not None)
    if export is not None:
        _export(export, fmt, live or bool(judges), which)
        return 0
    if which != "evaluate":
        if live:
            raise UsageError(f"--live is for the evaluate demo: give 'moot demo {which}' a --judges file instead")
        return _protocol_demo(which, judges, fmt, progress)
    _evaluate_demo(judges, live, reports_dir, fmt, progress)
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


def _protocol_demo(which: str, judges: str | None, fmt: str, progress: bool | None) -> int:
    """`moot demo decide` / `moot demo challenge`: the protocol's own command on the bundled files, as the
    exported folder runs it (`--export`), so what is watched is what a user would run."""
    folder = DEMO_DIR / which
    panel = judges or str(folder / "judges.yaml")
    if which == "decide":
        from moot.cli.decide_cmd import decide

        return decide(
            debate_context=str(folder / "question.yaml"), judges=panel, fmt=fmt, progress=progress, no_input=True
        )
    from moot.cli.challenge_cmd import challenge

    return challenge(CHALLENGE_TOPIC, context=[str(folder / "context.md")], judges=panel, fmt=fmt, progress=progress)


def _evaluate_demo(judges: str | None, live: bool, reports_dir: str, fmt: str, progress: bool | None) -> None:
    from moot import api
    from moot.engine.runs import RunOptions

    artifact = DEMO_DIR / "users-api" / "users.ts"
    request, seats, moderator, _ = api.build_evaluation_request(
        str(artifact),
        task=DEMO_TASK,
        criteria=DEMO_CRITERIA,
        judges=_live_lineup() if live else (judges or str(DEMO_DIR / "judges.yaml")),
        reports_dir=reports_dir,
    )
    # Judges see the path the seed uses, not where the package happens to be installed.
    request.artifacts[0].path = "src/api/users.ts"
    request.solution_name = "users-api"
    from datetime import date

    from moot.protocols.evaluate.judge_files import choose_base

    request.report_base = choose_base(Path(reports_dir), "users-api", date.today())  # noqa: DTZ011
    from moot.judges.factory import require_credentials, seat_judges

    require_credentials(seat_judges([*seats, moderator]))  # before the first progress line
    sink = progress_sink(progress, fmt)
    announce(sink, f"moot demo: evaluating src/api/users.ts with {len(seats)} judges")
    options = RunOptions(on_event=sink)
    with showing(sink):
        result = run_cli(lambda: api.run_evaluation(request, seats, moderator, options), options)
    emit(render_result("evaluate", result, fmt))


def _live_lineup() -> list[dict[str, str]]:
    """The seeds' lineup itself: a project's moot.yaml or MOOT_JUDGES is not what --live promises."""
    from moot.protocols.evaluate.protocol import DEFAULT_JUDGES

    return list(DEFAULT_JUDGES)


def _export(folder: str, fmt: str, other_judges: bool, which: str) -> None:
    from moot.cli.demo_export import export_demo, export_text

    if other_judges:
        raise UsageError("--export writes the scripted panel: it cannot be combined with --live or --judges")
    if not folder.strip():
        raise UsageError("--export needs a folder")
    data = export_demo(Path(folder), which)
    emit(export_text(data) if fmt == "text" else render_result("demo", data, fmt))

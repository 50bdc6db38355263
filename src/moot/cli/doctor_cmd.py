"""`moot doctor`: which judges are usable here, and why not (the checks live in `moot.api.doctor`)."""

from __future__ import annotations

import asyncio
from typing import Annotated

import typer

from moot.api.doctor import Row, doctor_report
from moot.cli.options import DataFormatOption
from moot.cli.output import check_format, emit, render_result


def _source_line(in_effect: dict[str, str | None]) -> str:
    if in_effect["path"] is None:
        return f"judges: the built-in lineups and agent CLIs ({in_effect['why']})"
    return f"judges file: {in_effect['path']} ({in_effect['why']})"


def _text(rows: list[Row], in_effect: dict[str, str | None]) -> str:
    lines = [_source_line(in_effect)]
    for r in rows:
        mark = "ok " if r["usable"] else "NO "
        lines.append(f"{mark} {r['role']:10} {r['judge']:28} {r['kind']:9} {r.get('vendor', ''):10} {r['detail']}")
        extra = []
        if r["kind"] == "agent-cli":
            extra.append(f"tools: {r.get('tools', '?')}" + (f" (blocks {r['blocks']})" if r.get("blocks") else ""))
            if r.get("login"):
                extra.append(f"login: {r['login']}")
            if r.get("executable"):
                extra.append(r["executable"] + (f" ({r['version']})" if r.get("version") else ""))
        elif r.get("endpoint_state"):
            extra.append(f"endpoint {r.get('endpoint')}: {r['endpoint_state']}")
        if r.get("ping"):
            extra.append(f"ping: {r['ping']}")
            extra += [f"fallback {m}: {v}" for m, v in r.get("fallbacks_ping", {}).items()]
        extra += [
            f"{key.replace('_', ' ')}: {r[key]}" for key in ("grammar", "output_bound", "context_window") if r.get(key)
        ]
        if r.get("output_bound_short"):
            extra.append(f"max_tokens {r['output_bound_short']}")
        if extra:
            lines.append(" " * 4 + "; ".join(extra))
    usable = sum(1 for r in rows if r["usable"])
    lines.append(f"{usable} of {len(rows)} judges usable here")
    return "\n".join(lines) + "\n"


def doctor(
    judges: Annotated[
        str | None,
        typer.Option(help="Judges file to check (default: MOOT_JUDGES, the nearest moot.yaml, else the built-ins)."),
    ] = None,
    fmt: DataFormatOption = "text",
    ping: Annotated[
        bool, typer.Option("--ping", help="Also send each API judge a tiny prompt; report whether it answers, latency.")
    ] = False,
) -> None:
    """List every configured judge: whether it is usable here, and why not (credential, PATH, login, endpoint)."""
    check_format(fmt)
    report = asyncio.run(doctor_report(judges, ping))
    if fmt != "text":
        emit(render_result("doctor", report, fmt))
        return
    emit(_text(report["judges"], report["judges_file"]))

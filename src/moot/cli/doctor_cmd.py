"""`moot doctor`: which judges are usable here, and why not (the checks live in `moot.api.doctor`)."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import typer

from moot.api.doctor import Row, doctor_report
from moot.cli.options import DataFormatOption
from moot.cli.output import check_format, emit, render_result


def _source_line(in_effect: dict[str, str | None]) -> str:
    if in_effect["path"] is None:
        return f"judges: the built-in lineups and agent CLIs ({in_effect['why']})"
    trust = f"trust: {in_effect['trust']} ({in_effect['trust_why']})"
    return f"judges file: {in_effect['path']} ({in_effect['why']})\n{trust}"


_LEAST = {"role": 10, "judge": 28, "kind": 9, "vendor": 10}  # the columns before the detail, their least width


def _clients(rows: list[dict[str, Any]]) -> list[str]:
    """The coding agents found here and moot's registration with each (`moot setup --list`'s lines)."""
    from moot.api.clients import describe

    return ["agents: " + describe(rows[0]), *("        " + describe(r) for r in rows[1:])] if rows else []


def _text(rows: list[Row], in_effect: dict[str, str | None], clients: list[dict[str, Any]]) -> str:
    lines = [_source_line(in_effect)]
    # each column as wide as its longest entry, so that a long judge name does not push the rest out of line
    wide = {key: max([least, *(len(str(r.get(key, ""))) for r in rows)]) for key, least in _LEAST.items()}
    for r in rows:
        mark = "ok " if r["usable"] else "NO "
        cells = " ".join(f"{r.get(key, '')!s:{wide[key]}}" for key in _LEAST)
        lines.append(f"{mark} {cells} {r['detail']}")
        extra = []
        if r["kind"] == "agent-cli":
            extra.append(f"tools: {r.get('tools', '?')}" + (f" (blocks {r['blocks']})" if r.get("blocks") else ""))
            if r.get("login"):
                extra.append(f"login: {r['login']}")
            if r.get("executable"):
                extra.append(r["executable"] + (f" ({r['version']})" if r.get("version") else ""))
        elif r.get("endpoint_state"):
            extra.append(f"endpoint {r.get('endpoint')}: {r['endpoint_state']}")
        if r.get("sends"):
            extra.append("sends " + "; ".join(r["sends"]))
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
    lines += _clients(clients)
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
    emit(_text(report["judges"], report["judges_file"], report["clients"]))

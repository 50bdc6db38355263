"""`moot doctor`: which judges are usable here, and why not.

Every row comes from `moot.judges.preflight` (the same checks `moot challenge` runs before a debate):
API judges by credential, `api_base` and local endpoints by whether they answer, agent CLIs by being on
PATH and answering `--version`, with their login evidence and whether they may run tools. No check sends
a prompt to a model. Further checks (a live ping, ...) add a step to `CHECKS`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import typer

from moot.cli.output import check_format, emit, render_result

Row = dict[str, Any]
ENDPOINT_TIMEOUT_S = 3.0


def _specs(judges_file: str | None) -> list[tuple[str, Any]]:
    """(role, JudgeSpec) for every judge of a judges file, or the built-in lineups of every protocol."""
    from moot.judges.agent_cli import PROFILES
    from moot.panel_file import load_panel_file
    from moot.protocols.evaluate import DEFAULT_JUDGES
    from moot.schemas.config import JudgeSpec

    if not judges_file:
        specs = [("judge", JudgeSpec.model_validate(d)) for d in DEFAULT_JUDGES]
        return specs + [("agent-cli", JudgeSpec(cli=name)) for name in PROFILES]
    panel = load_panel_file(judges_file)
    specs = [("judge", s) for s in panel.panel or []]
    if panel.moderator:
        specs.append(("moderator", panel.moderator))
    if panel.proponent:
        specs.append(("proponent", panel.proponent))
    specs += [("challenger", s) for s in panel.challengers or []]
    return specs


def _answers(url: str) -> str:
    """Whether an endpoint answers HTTP at all (any status counts); no credential is sent."""
    try:
        with urllib.request.urlopen(url, timeout=ENDPOINT_TIMEOUT_S):  # noqa: S310 - the user's own endpoint
            return "answering"
    except urllib.error.HTTPError as e:
        return f"answering (HTTP {e.code})"
    except (urllib.error.URLError, OSError, ValueError) as e:
        reason = getattr(e, "reason", e)
        return f"not answering ({reason})"


async def check_endpoint(row: Row, spec: Any) -> None:
    """Local and `api_base` endpoints: does something answer there? Vendor endpoints are not contacted."""
    endpoint = row.get("endpoint", "")
    if row.get("kind") != "api" or not row.get("usable") or not endpoint.startswith("http"):
        return
    from moot.judges.providers import PROVIDERS

    local = spec.api_base or any(p.local and p.base_url == endpoint for p in PROVIDERS.values())
    if not local:
        return
    state = await asyncio.to_thread(_answers, endpoint.rstrip("/") + "/models")
    row["endpoint_state"] = state
    if state.startswith("not answering"):
        row["usable"] = False
        row["detail"] = f"endpoint {endpoint} {state}"


# Extra checks run on each row after the preflight check, in order: (row, spec) -> None, updating the row.
CHECKS: list[Callable[[Row, Any], Awaitable[None]]] = [check_endpoint]


async def _row(role: str, spec: Any, ping: bool = False) -> Row:
    from moot.judges.preflight import as_dict, check

    a = await check(spec)
    row: Row = {"role": role, "judge": spec.label, "model": spec.model, **as_dict(a), "usable": a.usable}
    steps = list(CHECKS)
    if ping:
        from moot.judges.ping import check_ping

        steps.append(check_ping)
    for step in steps:
        await step(row, spec)
    return row


async def doctor_rows(judges_file: str | None, ping: bool = False) -> list[Row]:
    """One row per judge, every check run concurrently (for async callers such as the MCP server)."""
    specs = _specs(judges_file)
    async with asyncio.TaskGroup() as tg:
        tasks = [tg.create_task(_row(role, spec, ping)) for role, spec in specs]
    return [t.result() for t in tasks]


def _rows(judges_file: str | None, ping: bool = False) -> list[Row]:
    """`doctor_rows` for synchronous callers; from inside a running event loop it runs on a worker thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(doctor_rows(judges_file, ping))
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, doctor_rows(judges_file, ping)).result()


def _text(rows: list[Row]) -> str:
    lines = []
    for r in rows:
        mark = "ok " if r["usable"] else "NO "
        lines.append(f"{mark} {r['role']:10} {r['judge']:28} {r['kind']:9} {r.get('vendor', ''):10} {r['detail']}")
        extra = []
        if r["kind"] == "agent-cli":
            extra.append(f"tools: {r.get('tools', '?')}")
            if r.get("login"):
                extra.append(f"login: {r['login']}")
            if r.get("executable"):
                extra.append(r["executable"] + (f" ({r['version']})" if r.get("version") else ""))
        elif r.get("endpoint_state"):
            extra.append(f"endpoint {r.get('endpoint')}: {r['endpoint_state']}")
        if r.get("ping"):
            extra.append(f"ping: {r['ping']}")
            extra += [f"fallback {m}: {v}" for m, v in r.get("fallbacks_ping", {}).items()]
        if extra:
            lines.append(" " * 4 + "; ".join(extra))
    usable = sum(1 for r in rows if r["usable"])
    lines.append(f"{usable} of {len(rows)} judges usable here")
    return "\n".join(lines) + "\n"


def doctor(
    judges: Annotated[
        str | None, typer.Option(help="Judges file to check (default: the built-in lineups and agent CLIs).")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text, json or yaml.")] = "text",
    ping: Annotated[
        bool, typer.Option("--ping", help="Also send each API judge a tiny prompt; report whether it answers, latency.")
    ] = False,
) -> None:
    """List every configured judge: whether it is usable here, and why not (credential, PATH, login, endpoint)."""
    check_format(fmt)
    rows = _rows(judges, ping)
    if fmt != "text":
        emit(render_result("doctor", {"judges": rows}, fmt))
        return
    emit(_text(rows))

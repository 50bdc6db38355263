"""Which judges are usable here, and why not: the checks behind `moot doctor` and the MCP `doctor` tool.

Every row comes from `moot.judges.preflight` (the same checks `moot challenge` runs before a debate):
API judges by credential, `api_base` and local endpoints by whether they answer, agent CLIs by being on
PATH and answering `--version`, with their login evidence and whether they may run tools. No check sends
a prompt to a model unless `ping` is asked for. Further checks add a step to `CHECKS`. Without `--judges`,
the project's judges file is checked (MOOT_JUDGES, the nearest moot.yaml: see `moot.project`).
"""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable
from typing import Any

Row = dict[str, Any]
ENDPOINT_TIMEOUT_S = 3.0


def _specs(source: Any, enforce_trust: bool = True) -> list[tuple[str, Any]]:
    """(role, JudgeSpec) for every judge of the judges file in effect, or the built-in lineups of every protocol,
    each protocol's as its spec lists them (`ProtocolSpec.default_judges`: evaluate's judges, decide's model,
    the agent CLIs challenge uses)."""
    from moot.project import load_source
    from moot.protocols import specs as protocol_specs

    panel = load_source(source, enforce_trust=enforce_trust)
    if panel is None:
        return [judge for spec in protocol_specs() for judge in spec.cli.default_judges]
    specs = [("judge", s) for s in panel.panel or []]
    for role in ("moderator", "proponent"):
        if spec := panel.setting(role):
            specs.append((role, spec))
    specs += [("challenger", s) for s in panel.setting("challengers") or []]
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
        return
    from moot.judges.server_context import context_note

    note = await asyncio.to_thread(context_note, endpoint, spec)
    if note:
        row["context_window"] = note


async def check_output_bound(row: Row, spec: Any) -> None:
    """A judge's output bound (its `max_tokens`, or the default of a judge on a local server), and each protocol
    whose replies need more: such a judge is refused by that protocol before any call."""
    from moot.judges.providers import with_output_bound
    from moot.protocols import specs as protocol_specs

    if row.get("kind") != "api":
        return
    bound = with_output_bound(spec).max_tokens
    if bound is None:
        return
    why = "max_tokens" if spec.max_tokens is not None else "moot's default for a judge on a local server"
    row["output_bound"] = f"{bound} tokens ({why})"
    needs = {p.name: p.cli.reply_minimum() for p in protocol_specs() if p.cli.reply_minimum is not None}
    short = {name: need for name, need in needs.items() if bound < need}
    if short:
        row["output_bound_short"] = "; ".join(
            f"below the {need} tokens {name}'s replies need: set max_tokens: {need} or more to use it with {name}"
            for name, need in short.items()
        )


# Extra checks run on each row after the preflight check, in order: (row, spec) -> None, updating the row.
CHECKS: list[Callable[[Row, Any], Awaitable[None]]] = [check_endpoint, check_output_bound]


async def _row(role: str, spec: Any, ping: bool = False, probe: bool = True) -> Row:
    """One judge's row; without `probe` (a file not trusted yet) no endpoint it names is contacted."""
    from moot.judges.preflight import as_dict, check
    from moot.judges.providers import key_lines

    a = await check(spec)
    row: Row = {"role": role, "judge": spec.label, "model": spec.model, **as_dict(a), "usable": a.usable}
    row["sends"] = key_lines(spec)  # which variable would go to which host (shown for a file not trusted too)
    steps = list(CHECKS) if probe else []
    if ping:
        from moot.judges.ping import check_ping

        steps.append(check_ping)
    for step in steps:
        await step(row, spec)
    return row


async def doctor_report(judges_file: str | None, ping: bool = False) -> dict[str, Any]:
    """The rows, which judges file is in effect and why (`--judges`, MOOT_JUDGES, a moot.yaml), its trust,
    and the coding agents found here with whether moot's MCP server is registered with each
    (`moot.api.clients`)."""
    from moot.project import judges_source, source_trust

    source = judges_source(judges_file)
    trust, trust_why = source_trust(source)
    usable_file = trust not in ("untrusted", "changed")
    specs = _specs(source, enforce_trust=False)
    async with asyncio.TaskGroup() as tg:
        tasks = [tg.create_task(_row(role, spec, ping and usable_file, usable_file)) for role, spec in specs]
    rows = [t.result() for t in tasks]
    if not usable_file:  # shown, not used: nothing of it runs until the user trusts it
        for row in rows:
            row.update(usable=False, detail=f"{source.path} is not trusted ({trust})")
    in_effect = {
        "path": str(source.path) if source.path else None,
        "why": source.why,
        "trust": trust,
        "trust_why": trust_why,
    }
    from moot.api.clients import client_rows

    return {"judges_file": in_effect, "judges": rows, "clients": client_rows()}

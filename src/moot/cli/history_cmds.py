"""`moot show`, `moot list` and `moot resume`: debates kept in the store."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import typer

from moot.cli.output import check_format, emit, render_result
from moot.cli.progress import ProgressPrinter
from moot.errors import Interrupted, UsageError


def show(
    debate_id: Annotated[str, typer.Argument(help="Debate id (or a unique prefix of it).")],
    fmt: Annotated[str, typer.Option("--format", "-f", help="text, json or yaml.")] = "text",
    calls: Annotated[
        bool, typer.Option("--calls", help="List every call: judge, round, status, tokens, cost.")
    ] = False,
) -> None:
    """Print a debate from the store again, finished or not."""
    from moot.store import Store

    check_format(fmt)
    store = Store.open_default()
    row = store.get_debate(debate_id)
    if row is None:
        raise UsageError(f"no debate {debate_id} in {store.path}")
    if calls:
        records = store.calls(row.id)
        if fmt == "text":
            lines = [
                f"{'round':>5}  {'seat':14} {'kind':10} {'status':8} {'in':>7} {'out':>6} "
                f"{'cost $':>9} {'secs':>6}  model"
            ]
            for c in records:
                cost = f"{c.cost_usd:.5f}" if c.cost_usd is not None else "?"
                lines.append(
                    f"{c.round:>5}  {c.seat:14} {c.kind:10} {c.status:8} {c.input_tokens:>7} {c.output_tokens:>6} "
                    f"{cost:>9} {c.latency_s:>6.2f}  {c.answered_by or c.model}"
                )
            emit("\n".join(lines) + "\n")
        else:
            data: dict[str, Any] = {
                "debate_id": row.id,
                "calls": [{k: v for k, v in c.__dict__.items() if k != "prompt_json"} for c in records],
            }
            emit(render_result(row.protocol, data, fmt))
        return
    if row.result is not None:
        emit(render_result(row.protocol, row.result, fmt))
        return
    rounds = store.rounds(row.id)
    data = {
        "debate_id": row.id,
        "protocol": row.protocol,
        "status": row.status,
        "error": row.error,
        "rounds": {f"round_{k}": v for k, v in rounds.items()},
        "calls_completed": len(store.calls(row.id)),
    }
    if fmt == "text":
        lines = [f"Debate {row.id} ({row.protocol}): {row.status}"]
        if row.error:
            lines.append(f"  {row.error}")
        for k, v in rounds.items():
            lines.append(f"  round {k}: {v.get('scores', v)}")
        lines.append(f"  {data['calls_completed']} calls completed")
        if row.status != "finished":
            lines.append(f"  continue with: moot resume {row.id}")
        emit("\n".join(lines) + "\n")
    else:
        emit(render_result("status", data, fmt))


def list_debates(
    limit: Annotated[int, typer.Option(help="How many, newest first.")] = 20,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text, json or yaml.")] = "text",
) -> None:
    """List recent debates."""
    from moot.store import Store

    check_format(fmt)
    rows = Store.open_default().list_debates(limit)
    if fmt != "text":
        data = {
            "debates": [
                {
                    "debate_id": r.id,
                    "protocol": r.protocol,
                    "status": r.status,
                    "title": r.title,
                    "created_at": r.created_at,
                }
                for r in rows
            ]
        }
        emit(render_result("list", data, fmt))
        return
    for r in rows:
        verdict = ""
        if r.result:
            verdict = str((r.result.get("summary") or {}).get("final_verdict") or r.result.get("outcome") or "")
        emit(f"{r.id}  {r.created_at[:19]}  {r.protocol:9} {r.status:11} {verdict:12} {r.title[:60]}\n")


def resume(
    debate_id: Annotated[str, typer.Argument(help="Debate id (or a unique prefix of it).")],
    judges: Annotated[
        str | None, typer.Option(help="The judges file again (needed if it held literal api_key values).")
    ] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text, json or yaml.")] = "text",
) -> None:
    """Continue an interrupted debate; calls that had completed are replayed from the store, not repeated."""
    from moot import api
    from moot.store import Store

    check_format(fmt)
    store = Store.open_default()
    row = store.get_debate(debate_id)
    printer = ProgressPrinter() if fmt == "text" else None
    try:
        result = asyncio.run(api.resume(debate_id, judges=judges, store=store, on_event=printer))
    except KeyboardInterrupt:
        raise Interrupted(row.id if row else debate_id) from None
    emit(render_result(row.protocol if row else "evaluate", result, fmt))

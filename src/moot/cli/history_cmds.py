"""`moot show`, `moot list` and `moot resume`: debates (and batches of them) kept in the store."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import typer

from moot.cli.live import progress_sink, showing
from moot.cli.options import DataFormatOption, HtmlOption, ProgressOption
from moot.cli.output import FORMATS, check_format, emit, render_result
from moot.errors import Interrupted, UsageError

ShowFormatOption = Annotated[
    str,
    typer.Option(
        "--format", "-f", help="text, json or yaml; for a finished debate also github or the protocol's own (sarif)."
    ),
]


def show(
    debate_id: Annotated[str, typer.Argument(help="Debate id, or batch id (or a unique prefix of either).")],
    fmt: ShowFormatOption = "text",
    calls: Annotated[
        bool, typer.Option("--calls", help="List every call: judge, round, status, tokens, cost.")
    ] = False,
    html: HtmlOption = None,
) -> None:
    """Print a debate from the store again, finished or not; or a batch's summary."""
    from moot.api.history import calls_view, debate_view, find_debate
    from moot.store import Store

    report = fmt not in FORMATS  # github, sarif, ...: a finished debate's, as its command prints them
    if report and calls:
        raise UsageError(f"--calls prints text, json or yaml (got {fmt!r})")
    store = Store.open_default()
    if not calls and not report and html is None and _show_batch(store, debate_id, fmt):
        return
    row = find_debate(store, debate_id)
    if report or html is not None:
        _show_result(store, row, fmt, html)
        return
    if calls:
        data = calls_view(store, row)
        emit(_calls_text(data["calls"]) if fmt == "text" else render_result(row.protocol, data, fmt))
        return
    check_format(fmt)
    data = debate_view(store, row)
    if row.result is not None or row.status == "waiting":  # a waiting debate: its pending requests
        emit(render_result(row.protocol, data, fmt))
    elif fmt == "text":
        emit(_status_text(data))
    else:
        emit(render_result("status", data, fmt))


def _show_result(store: Any, row: Any, fmt: str, html: str | None) -> None:
    """A finished debate in a report format (`--format github`, `sarif`), or with its HTML report written:
    what its command would have printed and written at its end. A debate that has not ended has neither."""
    from moot.api.history import debate_view
    from moot.cli.gate import finish, protocol_formats, render
    from moot.cli.running import CommandTerminal
    from moot.protocols import entry, spec_for

    if entry(row.protocol) is None:
        raise UsageError(f"debate {row.id} uses protocol '{row.protocol}', which this version cannot print as {fmt}")
    spec = spec_for(row.protocol)
    check_format(fmt, protocol_formats(spec))
    if row.result is None:
        raise UsageError(f"debate {row.id} has no result yet (it is {row.status}): see 'moot show {row.id}'")
    data = debate_view(store, row)
    result = spec.result_type.model_validate(data)
    if fmt in spec.cli.formats and spec.cli.show is not None:  # the protocol's own (sarif, markdown)
        spec.cli.show(result, fmt, {}, CommandTerminal(row.protocol))
    else:
        emit(render(row.protocol, result, fmt) if fmt not in FORMATS else render_result(row.protocol, data, fmt))
    finish(data, html=html)


def _show_batch(store: Any, batch_id: str, fmt: str) -> bool:
    """Print the batch's summary if `batch_id` names a batch (and no debate); False otherwise."""
    from moot.api.history import batch_view
    from moot.store.batches import get_batch

    if not batch_id.startswith("batch-") and store.get_debate(batch_id) is not None:
        return False
    row = get_batch(store, batch_id)
    if row is None:
        return False
    data = batch_view(row)
    if fmt == "text":
        from moot.batch.summary import summary_from_dict, summary_text

        emit(summary_text(summary_from_dict(data)) if row.summary else f"Batch {row.id}: {row.status}\n")
    else:
        emit(render_result("batch", data, fmt))
    return True


def _calls_text(calls: list[dict[str, Any]]) -> str:
    lines = [
        f"{'round':>5}  {'seat':14} {'kind':10} {'try':>3} {'status':8} {'in':>7} {'out':>6} {'cost $':>9} {'secs':>6}"
        f"  {'form':11}  model"
    ]
    for c in calls:
        cost = f"{c['cost_usd']:.5f}" if c["cost_usd"] is not None else "?"
        lines.append(
            f"{c['round']:>5}  {c['seat']:14} {c['kind']:10} {c['attempt']:>3} {c['status']:8} {c['input_tokens']:>7} "
            f"{c['output_tokens']:>6} {cost:>9} {c['latency_s']:>6.2f}  {_form(c):11}  {c['answered_by'] or c['model']}"
        )
    return "\n".join(lines) + "\n"


def _form(call: dict[str, Any]) -> str:
    """How the call asked for its reply's shape ("-" when it sent no schema), and a reply cut off."""
    form = call.get("structured") or "-"
    return f"{form} (cut)" if call.get("finish_reason") == "length" else form


def _status_text(data: dict[str, Any]) -> str:
    lines = [f"Debate {data['debate_id']} ({data['protocol']}): {data['status']}"]
    if data["error"]:
        lines.append(f"  {data['error']}")
    for name, r in data["rounds"].items():
        lines.append(f"  {name.replace('_', ' ')}: {r.get('scores', r)}")
    lines.append(f"  {data['calls_completed']} calls completed")
    if data["status"] not in ("finished", "cancelled") and f"moot resume {data['debate_id']}" not in (
        data["error"] or ""
    ):
        lines.append(f"  continue with: moot resume {data['debate_id']}")  # once: an interruption's error says it
    return "\n".join(lines) + "\n"


def list_debates(
    limit: Annotated[int, typer.Option(help="How many, newest first.")] = 20,
    fmt: DataFormatOption = "text",
) -> None:
    """List recent debates, then recent batches (`moot batch`)."""
    from moot.api.history import batches_view, list_view
    from moot.store import Store

    check_format(fmt)
    store = Store.open_default()
    data = list_view(store, limit)
    found = data["batches"] = batches_view(store, limit)
    if fmt != "text":
        emit(render_result("list", data, fmt))
        return
    for d in data["debates"]:
        emit(
            f"{d['debate_id']}  {d['created_at'][:19]}  {d['protocol']:9} {d['status']:11} {d['verdict']:12} "
            f"{d['title'][:60]}"
            + (f"  (waiting for {', '.join(d['waiting_for'])})" if "waiting_for" in d else "")
            + "\n"
        )
    for b in found:
        ended = f"{b['done']}/{b['items']} done" + (f", {b['failed']} failed" if b["failed"] else "")
        emit(
            f"{b['batch_id']}  {b['created_at'][:19]}  {b['protocol']:9} {b['status']:11} {ended}  {b['items_path']}\n"
        )


def resume(
    debate_id: Annotated[str, typer.Argument(help="Debate id (or a unique prefix of it).")],
    judges: Annotated[
        str | None, typer.Option(help="The judges file again (needed if it held literal api_key values).")
    ] = None,
    fmt: DataFormatOption = "text",
    max_cost: Annotated[
        float | None, typer.Option("--max-cost", help="A new USD cap for the whole debate (default: the one it had).")
    ] = None,
    progress: ProgressOption = None,
    retry_dropped: Annotated[
        bool,
        typer.Option(
            "--retry-dropped", help="Run a finished debate again that dropped a judge after a failed call (an outage)."
        ),
    ] = False,
) -> int:
    """Continue a debate that was interrupted or failed (an outage): completed calls are replayed from the store,
    failed ones are asked again. `--retry-dropped` does the same for a finished debate that went on without a
    judge whose call failed. Its end applies what the debate was started with: its gate (exit 1 when the
    verdict falls short, as the one-shot run) and its --html report."""
    from moot import api
    from moot.api.outcome import stored_finish
    from moot.cli.running import end_of
    from moot.store import Store

    check_format(fmt)
    store = Store.open_default()
    row = store.require_debate(debate_id)
    sink = progress_sink(progress, fmt)
    try:
        with showing(sink):
            result = asyncio.run(
                api.resume(
                    row.id, judges=judges, store=store, on_event=sink, max_cost=max_cost, retry_dropped=retry_dropped
                )
            )
    except KeyboardInterrupt:
        raise Interrupted(row.id) from None
    return end_of(row.protocol, result, fmt, stored_finish(row.request))

"""Debates and batches kept in the store, as data: what `moot show` / `moot list` and the MCP tools return."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from moot.api.host import waiting_state
from moot.api.results import verdict_word, with_envelope
from moot.store import DebateRow, Store
from moot.store.batches import BatchRow, list_batches
from moot.store.host import pending_seats


def find_debate(store: Store, debate_id: str) -> DebateRow:
    return store.require_debate(debate_id)


def calls_view(store: Store, row: DebateRow) -> dict[str, Any]:
    """Every call of a debate: judge, round, kind, status, tokens, cost, latency (prompts left out).

    Every attempt is listed, a failure that `moot resume` asked again included, so that the history of an
    outage stays readable; `attempt` numbers them per call key."""
    return {
        "debate_id": row.id,
        "calls": [
            {k: v for k, v in c.__dict__.items() if k != "prompt_json"} for c in store.attempts(row.id, prompts=False)
        ],
    }


def debate_view(store: Store, row: DebateRow) -> dict[str, Any]:
    """A finished debate's result exactly as `--format json` printed it (one stored before the envelope
    with the envelope's keys computed); otherwise where it stopped."""
    if row.result is not None:
        return with_envelope(row.protocol, row.result)
    if row.status == "waiting":  # a debate with host seats: its pending requests, as the run returned them
        return waiting_state(store, row).model_dump(mode="json")
    return {
        "debate_id": row.id,
        "protocol": row.protocol,
        "status": row.status,
        "error": row.error,
        "rounds": {f"round_{k}": v for k, v in store.rounds(row.id).items()},
        "calls_completed": sum(1 for c in store.calls(row.id, prompts=False) if c.status == "ok"),
    }


def list_view(store: Store, limit: int = 20, seen: Callable[[list[str] | None], bool] | None = None) -> dict[str, Any]:
    """Recent debates (those whose folders `seen` accepts); one waiting for host replies also says which seats
    owe one (`waiting_for`)."""
    rows = store.list_debates(limit, seen=seen)
    waiting = pending_seats(store, [r.id for r in rows if r.status == "waiting"])
    debates = []
    for r in rows:
        item: dict[str, Any] = {
            "debate_id": r.id,
            "protocol": r.protocol,
            "status": r.status,
            "title": r.title,
            "created_at": r.created_at,
            "verdict": verdict_word(r.result, r.protocol),
        }
        if r.id in waiting:
            item["waiting_for"] = waiting[r.id]
        debates.append(item)
    return {"debates": debates}


def batch_view(row: BatchRow) -> dict[str, Any]:
    """A batch's summary as `moot batch --format json` printed it (as far as it got), and where it lives."""
    summary = row.summary or {"batch_id": row.id, "protocol": row.protocol, "status": row.status}
    return {**summary, "status": row.status, "items_path": row.items_path, "created_at": row.created_at}


def batches_view(store: Store, limit: int = 20) -> list[dict[str, Any]]:
    """Recent batches, newest first, with how far each got."""
    out = []
    for r in list_batches(store, limit):
        s = r.summary or {}
        out.append(
            {
                "batch_id": r.id,
                "protocol": r.protocol,
                "status": r.status,
                "items_path": r.items_path,
                "created_at": r.created_at,
                "items": s.get("items", 0),
                "done": s.get("done", 0),
                "failed": s.get("failed", 0),
            }
        )
    return out


__all__ = ["batch_view", "batches_view", "calls_view", "debate_view", "find_debate", "list_view", "verdict_word"]

"""Batches of debates in the store (tables made by migration 3): one row per batch, one per item.

An item's row names its debate before the debate starts, so that a batch killed at any moment can be
run again and every item found where it stopped: done (kept), or a debate to resume from its calls.
Rows go through `Store.execute`, on the store's one connection.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from moot.store.db import Store, now_iso

ITEM_STATUSES = ("pending", "running", "done", "failed", "interrupted")


@dataclass(frozen=True)
class BatchRow:
    id: str
    protocol: str
    items_path: str
    out_path: str
    options: dict[str, Any]
    status: str  # "running" | "finished" | "interrupted"
    summary: dict[str, Any] | None
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class BatchItemRow:
    item_id: str
    line: int
    debate_id: str | None
    status: str  # one of ITEM_STATUSES
    error: str | None


@dataclass(frozen=True)
class SpendTotals:
    """What a batch paid for: answered calls, their tokens and cost; attempts that failed (a vendor's 5xx,
    a refused connection, a timeout) cost nothing and are counted apart."""

    calls: int = 0
    tokens: int = 0
    cost: float = 0.0
    failed_attempts: int = 0


def _batch(r: sqlite3.Row) -> BatchRow:
    return BatchRow(
        id=r["id"],
        protocol=r["protocol"],
        items_path=r["items_path"],
        out_path=r["out_path"],
        options=json.loads(r["options_json"] or "{}"),
        status=r["status"],
        summary=json.loads(r["summary_json"]) if r["summary_json"] else None,
        created_at=r["created_at"],
        updated_at=r["updated_at"],
    )


def open_batch(
    store: Store, batch_id: str, protocol: str, items_path: str, out_path: str, options: Mapping[str, Any]
) -> BatchRow:
    """The batch, created on its first run and marked running again on the next ones."""
    ts = now_iso()
    store.execute(
        "INSERT INTO batches (id, protocol, items_path, out_path, options_json, status, created_at, updated_at)"
        " VALUES (?, ?, ?, ?, ?, 'running', ?, ?) ON CONFLICT (id) DO UPDATE SET out_path = excluded.out_path,"
        " options_json = excluded.options_json, status = 'running', updated_at = excluded.updated_at",
        (batch_id, protocol, items_path, out_path, json.dumps(dict(options)), ts, ts),
    )
    row = get_batch(store, batch_id)
    assert row is not None
    return row


def set_batch(store: Store, batch_id: str, status: str, summary: Mapping[str, Any] | None = None) -> None:
    store.execute(
        "UPDATE batches SET status = ?, summary_json = COALESCE(?, summary_json), updated_at = ? WHERE id = ?",
        (status, json.dumps(dict(summary)) if summary is not None else None, now_iso(), batch_id),
    )


def get_batch(store: Store, batch_id: str) -> BatchRow | None:
    """A batch by its id, or by a unique prefix of it (at least 4 characters)."""
    rows = store.execute("SELECT * FROM batches WHERE id = ?", (batch_id,))
    if not rows and len(batch_id) >= 4:
        rows = store.execute("SELECT * FROM batches WHERE id LIKE ? LIMIT 2", (batch_id.replace("%", "") + "%",))
        rows = rows if len(rows) == 1 else []
    return _batch(rows[0]) if rows else None


def list_batches(store: Store, limit: int = 20) -> list[BatchRow]:
    return [_batch(r) for r in store.execute("SELECT * FROM batches ORDER BY created_at DESC LIMIT ?", (limit,))]


def set_item(
    store: Store,
    batch_id: str,
    item_id: str,
    *,
    line: int,
    status: str,
    debate_id: str | None = None,
    error: str | None = None,
) -> None:
    """Record where an item stands (a debate id once given is kept when none is passed)."""
    store.execute(
        "INSERT INTO batch_items (batch_id, item_id, line, debate_id, status, error, updated_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (batch_id, item_id) DO UPDATE SET line = excluded.line,"
        " debate_id = COALESCE(excluded.debate_id, debate_id), status = excluded.status, error = excluded.error,"
        " updated_at = excluded.updated_at",
        (batch_id, item_id, line, debate_id, status, error, now_iso()),
    )


def batch_items(store: Store, batch_id: str) -> dict[str, BatchItemRow]:
    rows = store.execute(
        "SELECT item_id, line, debate_id, status, error FROM batch_items WHERE batch_id = ? ORDER BY line",
        (batch_id,),
    )
    return {r["item_id"]: BatchItemRow(r["item_id"], r["line"], r["debate_id"], r["status"], r["error"]) for r in rows}


# A batch's spend: its answered calls (paid), and apart from them every attempt that failed (not paid).
# The batch's debates are its items' debates.
_BATCH_SPEND = (
    "SELECT COALESCE(SUM(status = 'ok'), 0) AS calls, COALESCE(SUM(status != 'ok'), 0) AS failed,"
    " COALESCE(SUM(input_tokens + output_tokens), 0) AS tokens, COALESCE(SUM(cost_usd), 0) AS cost FROM calls"
    " WHERE debate_id IN (SELECT debate_id FROM batch_items WHERE batch_id = ?)"
)
# calls whose latest attempt failed: a judge the debate went on without
_FAILED_CALLS = (
    "SELECT debate_id, call_key, status, COALESCE(error, '') AS error FROM calls AS c"
    " WHERE debate_id IN ({debates}) AND status != 'ok'"
    " AND attempt = (SELECT MAX(attempt) FROM calls AS k WHERE k.debate_id = c.debate_id AND k.call_key = c.call_key)"
)
_DEBATE_COSTS = (
    "SELECT debate_id, COALESCE(SUM(cost_usd), 0) AS cost FROM calls AS c"
    " WHERE debate_id IN (SELECT debate_id FROM batch_items WHERE batch_id = ?)"
    " AND (status = 'ok' OR attempt = (SELECT MAX(attempt) FROM calls AS k"
    " WHERE k.debate_id = c.debate_id AND k.call_key = c.call_key)) GROUP BY debate_id"
)
_DEBATE_COST = (
    "SELECT COALESCE(SUM(cost_usd), 0) AS cost FROM calls AS c WHERE debate_id = ?"
    " AND (status = 'ok' OR attempt = (SELECT MAX(attempt) FROM calls AS k"
    " WHERE k.debate_id = c.debate_id AND k.call_key = c.call_key))"
)


def batch_spend(store: Store, batch_id: str) -> SpendTotals:
    """What every debate of the batch has spent so far, earlier runs included."""
    r = store.execute(_BATCH_SPEND, (batch_id,))[0]
    return SpendTotals(int(r["calls"]), int(r["tokens"]), round(float(r["cost"]), 8), int(r["failed"]))


@dataclass(frozen=True)
class FailedCall:
    """A call whose latest attempt failed: its judge was dropped (or answered by nobody)."""

    call_key: str
    status: str  # "error" | "timeout"
    error: str


def failed_calls(store: Store, batch_id: str) -> dict[str, list[FailedCall]]:
    """The failed calls of every debate of the batch, by debate id (debates without any are left out)."""
    sql = _FAILED_CALLS.format(debates="SELECT debate_id FROM batch_items WHERE batch_id = ?")
    return _by_debate(store.execute(sql, (batch_id,)))


def debate_failed_calls(store: Store, debate_id: str) -> list[FailedCall]:
    return _by_debate(store.execute(_FAILED_CALLS.format(debates="?"), (debate_id,))).get(debate_id, [])


def _by_debate(rows: list[sqlite3.Row]) -> dict[str, list[FailedCall]]:
    out: dict[str, list[FailedCall]] = {}
    for r in rows:
        out.setdefault(r["debate_id"], []).append(FailedCall(r["call_key"], r["status"], r["error"]))
    return out


def debate_costs(store: Store, batch_id: str) -> dict[str, float]:
    """USD spent by each debate of the batch so far (what a batch-wide cap counts)."""
    return {r["debate_id"]: float(r["cost"]) for r in store.execute(_DEBATE_COSTS, (batch_id,))}


def debate_cost(store: Store, debate_id: str) -> float:
    return float(store.execute(_DEBATE_COST, (debate_id,))[0]["cost"])


def debate_statuses(store: Store, batch_id: str) -> dict[str, str]:
    """The status of every debate the batch's items name (read without the debates' requests)."""
    rows = store.execute(
        "SELECT d.id, d.status FROM debates AS d JOIN batch_items AS bi ON bi.debate_id = d.id WHERE bi.batch_id = ?",
        (batch_id,),
    )
    return {r["id"]: r["status"] for r in rows}


def known_debates(store: Store, debate_ids: Iterable[str]) -> set[str]:
    """Which of these debates the store holds."""
    ids, found = list(debate_ids), set()
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ", ".join("?" for _ in chunk)
        found |= {r["id"] for r in store.execute(f"SELECT id FROM debates WHERE id IN ({marks})", chunk)}  # noqa: S608 - placeholders only
    return found


def done_results(store: Store, batch_id: str, item_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """The result of each of these done items' debates, by item id (as the store reads it back)."""
    wanted = set(item_ids)
    out: dict[str, dict[str, Any]] = {}
    for item_id, row in batch_items(store, batch_id).items():
        debate = store.get_debate(row.debate_id) if item_id in wanted and row.debate_id else None
        if debate is not None and debate.result is not None:
            out[item_id] = debate.result
    return out

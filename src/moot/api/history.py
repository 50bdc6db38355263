"""Debates kept in the store, as data: what `moot show` / `moot list` and the MCP tools return."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from moot.errors import UsageError
from moot.store import DebateRow, Store


def find_debate(store: Store, debate_id: str) -> DebateRow:
    row = store.get_debate(debate_id)
    if row is None:
        raise UsageError(f"no debate {debate_id} in {store.path}")
    return row


def calls_view(store: Store, row: DebateRow) -> dict[str, Any]:
    """Every call of a debate: judge, round, kind, status, tokens, cost, latency (prompts left out).

    Every attempt is listed, a failure that `moot resume` asked again included, so that the history of an
    outage stays readable; `attempt` numbers them per call key."""
    return {
        "debate_id": row.id,
        "calls": [{k: v for k, v in c.__dict__.items() if k != "prompt_json"} for c in store.attempts(row.id)],
    }


def debate_view(store: Store, row: DebateRow) -> dict[str, Any]:
    """A finished debate's result exactly as `--format json` printed it; otherwise where it stopped."""
    if row.result is not None:
        return row.result
    return {
        "debate_id": row.id,
        "protocol": row.protocol,
        "status": row.status,
        "error": row.error,
        "rounds": {f"round_{k}": v for k, v in store.rounds(row.id).items()},
        "calls_completed": sum(1 for c in store.calls(row.id) if c.status == "ok"),
    }


def list_view(store: Store, limit: int = 20) -> dict[str, Any]:
    return {
        "debates": [
            {
                "debate_id": r.id,
                "protocol": r.protocol,
                "status": r.status,
                "title": r.title,
                "created_at": r.created_at,
                "verdict": verdict_word(r.result),
            }
            for r in store.list_debates(limit)
        ]
    }


def verdict_word(result: Mapping[str, Any] | None) -> str:
    """The one word a list shows: PASS/FAIL/CONDITIONAL, RECOMMENDED/CONTESTED, CONSENSUS/TRADEOFF."""
    if not result:
        return ""
    summary = result.get("summary") or {}
    return str(summary.get("final_verdict") or result.get("outcome") or "")

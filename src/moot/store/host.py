"""The pending requests of a debate waiting for its host seats (`moot.engine.host`), in the store.

They are what `moot show`, `show_debate` and `moot list` print for a waiting debate, and what a reply is
matched against (by seat or by request id) before the debate is continued, from whatever process.
"""

from __future__ import annotations

import json
from typing import Any

from moot.store.db import Store


def save_requests(store: Store, debate_id: str, requests: list[dict[str, Any]]) -> None:
    """The debate's pending requests, replacing any it had (one step waits at a time)."""
    with store.transaction() as db:
        db.execute("DELETE FROM host_requests WHERE debate_id = ?", (debate_id,))
        db.executemany(
            "INSERT INTO host_requests (debate_id, request_id, seat, data_json) VALUES (?, ?, ?, ?)",
            [(debate_id, r["request_id"], r["seat"], json.dumps(r, ensure_ascii=False)) for r in requests],
        )


def pending_requests(store: Store, debate_id: str) -> list[dict[str, Any]]:
    """The debate's pending requests, in the order the step listed them (none when it waits for nothing)."""
    rows = store.execute("SELECT data_json FROM host_requests WHERE debate_id = ? ORDER BY rowid", (debate_id,))
    return [json.loads(r[0]) for r in rows]


def pending_seats(store: Store, debate_ids: list[str]) -> dict[str, list[str]]:
    """For each debate of `debate_ids` that waits: the seats it waits for."""
    if not debate_ids:
        return {}
    marks = ", ".join("?" for _ in debate_ids)
    rows = store.execute(
        f"SELECT debate_id, seat FROM host_requests WHERE debate_id IN ({marks}) ORDER BY rowid",  # noqa: S608 - placeholders only
        debate_ids,
    )
    out: dict[str, list[str]] = {}
    for debate_id, seat in rows:
        out.setdefault(debate_id, []).append(seat)
    return out


def clear_requests(store: Store, debate_id: str) -> None:
    store.execute("DELETE FROM host_requests WHERE debate_id = ?", (debate_id,))

"""A debate's own rows: the debate (its request, status and result), its rounds, and the report sections
already written for it. A debate is found by its id or by a unique prefix of it (`moot show 3f2a`)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from moot.errors import UsageError, shown_path
from moot.schemas.safe_text import redact, redact_known
from moot.store.connection import StoreConnection, now_iso


@dataclass
class DebateRow:
    id: str
    protocol: str
    title: str
    status: str  # "running" | "finished" | "failed" | "interrupted"
    request: dict[str, Any]
    result: dict[str, Any] | None
    error: str | None
    created_at: str
    updated_at: str
    started_in: list[str] | None = None  # the folders it was started in; None: stored before they were kept


def _dumps(value: Any) -> str:
    """JSON with text as text (so an artifact in a request is escaped as in a prompt, and shares its
    chunks), unless it holds something UTF-8 cannot store (a lone surrogate), which is then escaped."""
    text = json.dumps(value, ensure_ascii=False)
    try:
        text.encode()
    except UnicodeEncodeError:
        return json.dumps(value)
    return text


def prefix_pattern(prefix: str) -> str:
    """A LIKE pattern matching ids that start with `prefix` taken literally: its `%` and `_` are escaped
    (with `\\`), so that `moot show %` or `____` is no wildcard that finds someone's debate."""
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return escaped + "%"


class DebateTables(StoreConnection):
    """What the store keeps of a debate itself, as opposed to its calls (`calls.py`)."""

    # debates

    def create_debate(
        self,
        debate_id: str,
        protocol: str,
        request: dict[str, Any],
        title: str = "",
        started_in: Sequence[str] | None = None,
    ) -> None:
        ts = now_iso()
        where = json.dumps(list(started_in)) if started_in is not None else None
        with self.transaction() as db:
            db.execute(
                "INSERT INTO debates (id, protocol, title, status, request_json, created_at, updated_at, started_in)"
                " VALUES (?, ?, ?, 'running', ?, ?, ?, ?)",
                (debate_id, protocol, title, self._blobs.pack(db, _dumps(request)), ts, ts, where),
            )

    def set_status(
        self, debate_id: str, status: str, *, result: dict[str, Any] | None = None, error: str | None = None
    ) -> None:
        """The debate's status; `cancelled` (`moot cancel`, from any process) is final: never overwritten."""
        with self._lock:
            self._db.execute(
                "UPDATE debates SET status = ?, result_json = COALESCE(?, result_json), error = ?,"
                " updated_at = ? WHERE id = ? AND status != 'cancelled'",
                (  # a key a vendor echoed never reaches the file (moot.schemas.safe_text)
                    status,
                    redact_known(json.dumps(result)) if result is not None else None,
                    redact(error) if error else error,
                    now_iso(),
                    debate_id,
                ),
            )

    def debate_status(self, debate_id: str) -> str | None:
        """A debate's status alone (None: no such debate), cheap enough to read before every call."""
        rows = self.execute("SELECT status FROM debates WHERE id = ?", (debate_id,))
        return str(rows[0][0]) if rows else None

    def update_request(self, debate_id: str, request: dict[str, Any]) -> None:
        with self.transaction() as db:
            db.execute(
                "UPDATE debates SET request_json = ?, updated_at = ? WHERE id = ?",
                (self._blobs.pack(db, _dumps(request)), now_iso(), debate_id),
            )

    def _row(self, r: sqlite3.Row) -> DebateRow:
        """A debate row as read (under the lock: its request may need unpacking)."""
        return DebateRow(
            id=r["id"],
            protocol=r["protocol"],
            title=r["title"],
            status=r["status"],
            request=json.loads(self._blobs.unpack(self._db, r["request_json"])),
            # as written: a result stored before the envelope (issue 22) is brought up to it by its readers,
            # through its protocol (`moot.api.results.with_envelope`)
            result=json.loads(r["result_json"]) if r["result_json"] else None,
            error=r["error"],
            created_at=r["created_at"],
            updated_at=r["updated_at"],
            started_in=json.loads(r["started_in"]) if r["started_in"] else None,
        )

    def get_debate(self, debate_id: str) -> DebateRow | None:
        """A debate by its id, or by a unique prefix of it (at least 4 characters)."""
        with self._lock:
            r = self._db.execute("SELECT * FROM debates WHERE id = ?", (debate_id,)).fetchone()
            if r is None and len(debate_id) >= 4:
                rows = self._db.execute(
                    "SELECT * FROM debates WHERE id LIKE ? ESCAPE '\\' LIMIT 2", (prefix_pattern(debate_id),)
                ).fetchall()
                r = rows[0] if len(rows) == 1 else None
            return self._row(r) if r is not None else None

    def mark_cancelled(self, debate_id: str) -> bool:
        """Cancel a debate that has not ended, in one statement (no finish can land between a check and the
        write); False when it had ended."""
        with self._lock:
            done = self._db.execute(
                "UPDATE debates SET status = 'cancelled', error = 'cancelled', updated_at = ?"
                " WHERE id = ? AND status NOT IN ('finished', 'failed', 'cancelled')",
                (now_iso(), debate_id),
            )
            return done.rowcount == 1

    def require_debate(self, debate_id: str) -> DebateRow:
        """`get_debate`, or a UsageError that says what to do: a longer prefix when the one given is too short
        or matches several debates, `moot list` when nothing matches."""
        row = self.get_debate(debate_id)
        if row is not None:
            return row
        like = prefix_pattern(debate_id)
        matches = (
            self.execute("SELECT COUNT(*) FROM debates WHERE id LIKE ? ESCAPE '\\'", (like,))[0][0] if debate_id else 0
        )
        if matches > 1:
            raise UsageError(f"'{debate_id}' starts {matches} debates' ids: give more of the id (see 'moot list')")
        if matches == 1:
            raise UsageError(f"'{debate_id}' is too short a prefix: give at least 4 characters of the id")
        raise UsageError(f"no debate {debate_id} in {shown_path(self.path)} (see 'moot list')")

    def list_debates(
        self, limit: int = 20, protocol: str | None = None, seen: Callable[[list[str] | None], bool] | None = None
    ) -> list[DebateRow]:
        """The newest debates (of `protocol`), and only those whose `started_in` folders `seen` accepts."""
        sql = "SELECT * FROM debates"
        args: list[Any] = []
        if protocol:
            sql += " WHERE protocol = ?"
            args.append(protocol)
        sql += " ORDER BY created_at DESC"
        if seen is None:
            sql += " LIMIT ?"
            args.append(limit)
        with self._lock:
            out: list[DebateRow] = []
            for r in self._db.execute(sql, args):
                if len(out) >= limit:
                    break
                if seen is None or seen(json.loads(r["started_in"]) if r["started_in"] else None):
                    out.append(self._row(r))
            return out

    # rounds and report sections

    def record_round(self, debate_id: str, round_no: int, data: dict[str, Any]) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO rounds (debate_id, round, data_json) VALUES (?, ?, ?)",
                (debate_id, round_no, json.dumps(data)),
            )

    def rounds(self, debate_id: str) -> dict[int, dict[str, Any]]:
        with self._lock:
            rows = self._db.execute(
                "SELECT round, data_json FROM rounds WHERE debate_id = ? ORDER BY round", (debate_id,)
            ).fetchall()
        return {r["round"]: json.loads(r["data_json"]) for r in rows}

    def has_section(self, debate_id: str, path: str, section: str) -> bool:
        with self._lock:
            r = self._db.execute(
                "SELECT 1 FROM report_sections WHERE debate_id = ? AND path = ? AND section = ?",
                (debate_id, path, section),
            ).fetchone()
        return r is not None

    def mark_section(self, debate_id: str, path: str, section: str) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR IGNORE INTO report_sections (debate_id, path, section) VALUES (?, ?, ?)",
                (debate_id, path, section),
            )

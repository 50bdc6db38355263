"""The SQLite store. One connection per Store; writes are small and committed at once (WAL mode), so a
crash or kill loses nothing that had completed, and `moot resume` can replay finished calls.

Long strings in a call's prompt and a debate's request are kept once (`blobs.py`): rows hold references,
and every reader here gives back the text exactly as it was written.

Any SQLite error is a `StoreError` naming the file (`guard.py`). A call answered but not recorded for want
of space (`StoreFull`) is kept in `Store.unsaved`, so that its caller can write it later or elsewhere
instead of paying for it again."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from moot.errors import UsageError, shown_path
from moot.schemas.redact import redact, redact_known
from moot.store.blobs import Blobs
from moot.store.guard import StoreError, StoreFull
from moot.store.migrations import MIGRATIONS, statements
from moot.store.opening import default_db_path, make_private, open_connection, read_only_problem

__all__ = [
    "CallRecord",
    "DebateRow",
    "Store",
    "StoreError",
    "StoreFull",
    "default_db_path",
    "make_private",
    "now_iso",
]


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass
class CallRecord:
    debate_id: str
    call_key: str
    round: int
    seat: str
    kind: str
    model: str
    prompt_json: str
    status: str  # "ok" | "timeout" | "error"
    reply: str | None = None
    error: str | None = None
    answered_by: str = ""
    provider: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float | None = None
    retries: int = 0
    started_at: str = ""
    finished_at: str = ""
    structured: str = ""  # the form the reply schema was sent in: json_schema, json_object, off ("" none)
    finish_reason: str = ""  # the vendor's: "length" is a reply cut off at its output bound
    attempt: int = 0  # set by the store: 1 for the first attempt at a call key, 2 for its retry on resume...


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


_CALL_FIELDS = [f for f in CallRecord.__dataclass_fields__]
# the columns of a call without its prompt: for spend and listings, which need no prompt unpacked
_NO_PROMPT = ", ".join(f for f in _CALL_FIELDS if f != "prompt_json") + ", '' AS prompt_json"


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


class Store:
    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db = open_connection(self.path)  # the one policy: created private, WAL, a long busy timeout
        self.unsaved: list[CallRecord] = []  # answered calls a full disk kept out of the store
        try:
            self._db.row_factory = sqlite3.Row
            self._blobs = Blobs()
            self._migrate()
            self._db.execute("SELECT COUNT(*) FROM debates").fetchone()  # a foreign or damaged file fails here
        except StoreError as e:
            self._db.close()
            raise read_only_problem(self.path) or e from None

    @classmethod
    def open_default(cls) -> Store:
        return cls(default_db_path())

    def close(self) -> None:
        self._db.close()

    def _migrate(self) -> None:
        """Apply the migrations this file lacks. Two processes may open a new store at once (two batches, two
        debates): the version is read again under SQLite's write lock, so only one of them migrates and the
        other waits (busy_timeout) and finds nothing left to do."""
        with self._lock:
            if self._db.execute("PRAGMA user_version").fetchone()[0] >= len(MIGRATIONS):
                return
            self._db.execute("BEGIN IMMEDIATE")
            try:
                version = self._db.execute("PRAGMA user_version").fetchone()[0]
                for i, script in enumerate(MIGRATIONS[version:], start=version + 1):
                    for statement in statements(script):
                        self._db.execute(statement)
                    self._db.execute(f"PRAGMA user_version = {i}")
                self._db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(StoreError, sqlite3.Error):
                    self._db.execute("ROLLBACK")
                raise

    def execute(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        """One statement under the store's lock, committed at once: for the store's own table modules
        (batches), so that they share this connection instead of opening their own."""
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    @contextmanager
    def transaction(self, *, write: bool = True) -> Iterator[sqlite3.Connection]:
        """Several statements as one, under the store's lock: a row and the blobs it references are
        written together or not at all; `write=False` reads one consistent snapshot."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            try:
                yield self._db
                self._db.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(StoreError):  # SQLite may have rolled back already (a full disk)
                    self._db.execute("ROLLBACK")
                self._blobs.settle(committed=False)
                raise
            self._blobs.settle(committed=True)

    # debates

    def create_debate(self, debate_id: str, protocol: str, request: dict[str, Any], title: str = "") -> None:
        ts = now_iso()
        with self.transaction() as db:
            db.execute(
                "INSERT INTO debates (id, protocol, title, status, request_json, created_at, updated_at)"
                " VALUES (?, ?, ?, 'running', ?, ?, ?)",
                (debate_id, protocol, title, self._blobs.pack(db, _dumps(request)), ts, ts),
            )

    def set_status(
        self, debate_id: str, status: str, *, result: dict[str, Any] | None = None, error: str | None = None
    ) -> None:
        with self._lock:
            self._db.execute(
                "UPDATE debates SET status = ?, result_json = COALESCE(?, result_json), error = ?,"
                " updated_at = ? WHERE id = ?",
                (  # a key a vendor echoed never reaches the file (moot.schemas.redact)
                    status,
                    redact_known(json.dumps(result)) if result is not None else None,
                    redact(error) if error else error,
                    now_iso(),
                    debate_id,
                ),
            )

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

    def list_debates(self, limit: int = 20, protocol: str | None = None) -> list[DebateRow]:
        sql = "SELECT * FROM debates"
        args: list[Any] = []
        if protocol:
            sql += " WHERE protocol = ?"
            args.append(protocol)
        sql += " ORDER BY created_at DESC LIMIT ?"
        args.append(limit)
        with self._lock:
            rows = self._db.execute(sql, args).fetchall()
            return [self._row(r) for r in rows]

    # calls

    def _call(self, r: sqlite3.Row) -> CallRecord:
        """A call row as read (under the lock: its prompt may need unpacking)."""
        values = {f: r[f] for f in _CALL_FIELDS}
        values["prompt_json"] = self._blobs.unpack(self._db, values["prompt_json"])
        return CallRecord(**values)

    def record_call(self, call: CallRecord) -> None:
        """Add an attempt at a call; its number (the key's next) is chosen in the same statement, so that
        two processes resuming one debate cannot both take it. The prompt's long strings (the artifact, the
        system prompt) are stored once for every call that sends them."""
        try:
            self._insert_call(call)
        except StoreFull:
            self.unsaved.append(call)
            raise

    def save_unsaved(self) -> int:
        """Write the calls a full disk kept out, now that there may be room: how many were written
        (raises StoreFull again, keeping the rest, when there is still none)."""
        saved = 0
        while self.unsaved:
            self._insert_call(self.unsaved[0])
            self.unsaved.pop(0)
            saved += 1
        return saved

    def _insert_call(self, call: CallRecord) -> None:
        fields = [f for f in _CALL_FIELDS if f != "attempt"]
        cols = ", ".join(fields)
        marks = ", ".join("?" for _ in fields)
        with self.transaction() as db:
            values = {f: getattr(call, f) for f in fields}
            values["error"] = redact(call.error) if call.error else call.error  # a vendor may echo the key
            values["prompt_json"] = self._blobs.pack(db, call.prompt_json)
            db.execute(
                f"INSERT INTO calls ({cols}, attempt) SELECT {marks}, COALESCE(MAX(attempt), 0) + 1"  # noqa: S608 - fixed column names
                " FROM calls WHERE debate_id = ? AND call_key = ?",
                [*values.values(), call.debate_id, call.call_key],
            )

    def find_call(self, debate_id: str, call_key: str) -> CallRecord | None:
        """The completed call under this key, if any: the only kind a resumed debate may replay. A failed
        or timed-out attempt is never returned, so the call is asked again."""
        with self._lock:
            r = self._db.execute(
                "SELECT * FROM calls WHERE debate_id = ? AND call_key = ? AND status = 'ok'"
                " ORDER BY attempt DESC LIMIT 1",
                (debate_id, call_key),
            ).fetchone()
            return self._call(r) if r is not None else None

    def calls(self, debate_id: str, *, prompts: bool = True) -> list[CallRecord]:
        """The debate's calls as they count for spend and reports: every completed attempt, and a failed
        one only while it is the latest of its key. A failure that was asked again cost nothing and is
        left out, so that one call is not counted twice (`attempts` still has it).

        `prompts=False` leaves every `prompt_json` empty and reads no prompt at all: what spend needs."""
        cols = "*" if prompts else _NO_PROMPT
        with self._lock:
            rows = self._db.execute(
                f"SELECT {cols} FROM calls AS c WHERE debate_id = ? AND (status = 'ok' OR attempt = ("  # noqa: S608 - fixed column names
                " SELECT MAX(attempt) FROM calls WHERE debate_id = c.debate_id AND call_key = c.call_key"
                ")) ORDER BY id",
                (debate_id,),
            ).fetchall()
            return [self._call(r) for r in rows]

    def attempts(self, debate_id: str, *, prompts: bool = True) -> list[CallRecord]:
        """Every attempt at every call of a debate, failures that were asked again included (history);
        `prompts=False` as for `calls`."""
        cols = "*" if prompts else _NO_PROMPT
        with self._lock:
            rows = self._db.execute(
                f"SELECT {cols} FROM calls WHERE debate_id = ? ORDER BY id",  # noqa: S608 - fixed column names
                (debate_id,),
            ).fetchall()
            return [self._call(r) for r in rows]

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

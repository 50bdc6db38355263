"""Every judge call, stored as it completes: each attempt at a call key is a row, so that `moot resume`
replays a completed call instead of paying for it again, and spend counts each call once.

A call answered but not recorded for want of space (`StoreFull`) is kept in `unsaved`, so that its caller
can write it later or elsewhere instead of paying for it again."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from moot.schemas.safe_text import redact
from moot.store.connection import StoreConnection, StoreFull


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


_CALL_FIELDS = [f for f in CallRecord.__dataclass_fields__]
# the columns of a call without its prompt: for spend and listings, which need no prompt unpacked
_NO_PROMPT = ", ".join(f for f in _CALL_FIELDS if f != "prompt_json") + ", '' AS prompt_json"


class CallTable(StoreConnection):
    """The calls table, with the calls a full disk kept out of it."""

    def __init__(self, path: Path | str) -> None:
        self.unsaved: list[CallRecord] = []  # answered calls a full disk kept out of the store
        super().__init__(path)

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

"""What the list pages need of every debate, kept in memory and brought up to date by what changed.

SQLite 3.40 parses a JSON text again at every `json_extract`, and a debate's `result_json` (5 to 10 KB) sits
in overflow pages that any column after it (`created_at`) drags in: filtering and sorting 10,000 debates
on their verdict in SQL costs a second. So each result is read once, through `envelope.outcome`, and
kept here as a small row. A refresh is cheap:

- `PRAGMA data_version` says whether anyone wrote since the last look (nothing to do when not);
- otherwise one scan of the columns before the request (`rowid, id, status`), which sit in the rows' first
  page, finds new debates and debates whose status moved, and only those are read again. A finished
  debate's result does not change, and a debate whose status did not move has no new result.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from moot.view.envelope import outcome
from moot.view.reader import ReadOnlyStore

_CHUNK = 500  # rows re-read per statement


@dataclass(frozen=True)
class DebateListRow:
    """One debate on the Debates page."""

    id: str
    protocol: str
    title: str
    status: str
    created_at: str
    verdict: str
    kind: str
    confidence: str
    judges: int | None
    rounds: int | None
    spend: float | None
    error: str
    batch: str = ""


@dataclass
class Snapshot:
    """Every debate (by rowid) and each debate's batch, as of one `data_version`."""

    rows: dict[int, DebateListRow] = field(default_factory=dict)
    batch_of: dict[str, str] = field(default_factory=dict)
    by_id: dict[str, DebateListRow] = field(default_factory=dict)
    newest: list[DebateListRow] = field(default_factory=list)  # every row, newest first: what each listing starts from

    def __post_init__(self) -> None:
        self.by_id = {r.id: r for r in self.rows.values()}
        self.newest = sorted(self.rows.values(), key=attrgetter("created_at"), reverse=True)


def _row(r: Any, batch: str) -> DebateListRow:
    import json

    result = json.loads(r["result_json"]) if r["result_json"] else None
    o = outcome(r["protocol"], r["status"], result)
    return DebateListRow(
        id=r["id"],
        protocol=r["protocol"],
        title=r["title"],
        status=r["status"],
        created_at=r["created_at"],
        verdict=o.verdict,
        kind=o.kind,
        confidence=o.confidence,
        judges=len(o.judges) if o.judges else None,
        rounds=o.rounds,
        spend=o.spend,
        error=r["error"] or "",
        batch=batch,
    )


class DebateIndex:
    """The debates of one read-only store, as rows, kept up to date (`current`)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._snap = Snapshot()
        self._version: int | None = None
        self._store: ReadOnlyStore | None = None

    def current(self, store: ReadOnlyStore, *, batches: bool) -> Snapshot:
        with self._lock:
            version = int(store.execute("PRAGMA data_version")[0][0])
            if store is not self._store or version != self._version or not self._snap.rows:
                self._snap = self._refresh(store, batches)
                self._store, self._version = store, version
            return self._snap

    def _refresh(self, store: ReadOnlyStore, batches: bool) -> Snapshot:
        old = self._snap.rows if store is self._store else {}
        batch_of: dict[str, str] = {}
        if batches:
            for r in store.execute("SELECT debate_id, batch_id FROM batch_items WHERE debate_id IS NOT NULL"):
                batch_of[r["debate_id"]] = r["batch_id"]
        rows: dict[int, DebateListRow] = {}
        stale: list[int] = []
        for r in store.execute("SELECT rowid, id, status FROM debates"):
            kept = old.get(r["rowid"])
            if kept is not None and kept.id == r["id"] and kept.status == r["status"] and kept.status != "running":
                rows[r["rowid"]] = kept if kept.batch == batch_of.get(kept.id, "") else _rebatch(kept, batch_of)
            else:
                stale.append(r["rowid"])
        for rowid, row in self._read(store, stale, batch_of):
            rows[rowid] = row
        return Snapshot(rows, batch_of)

    @staticmethod
    def _read(store: ReadOnlyStore, rowids: list[int], batch_of: dict[str, str]) -> Iterable[tuple[int, DebateListRow]]:
        for start in range(0, len(rowids), _CHUNK):
            part = rowids[start : start + _CHUNK]
            marks = ", ".join("?" for _ in part)
            for r in store.execute(
                "SELECT rowid, id, protocol, title, status, result_json, error, created_at"  # noqa: S608 - marks only
                f" FROM debates WHERE rowid IN ({marks})",
                part,
            ):
                yield r["rowid"], _row(r, batch_of.get(r["id"], ""))


def _rebatch(row: DebateListRow, batch_of: dict[str, str]) -> DebateListRow:
    from dataclasses import replace

    return replace(row, batch=batch_of.get(row.id, ""))

"""The store as `moot view` reads it: opened read-only (`mode=ro`), so the viewer can never write, lock or
migrate the database a batch is writing to.

`ReadOnlyStore` is a `Store` whose connection SQLite itself refuses to write through; every reader of
`Store` (a debate, its calls with or without prompts, its rounds, the batch tables) works on it unchanged.
Each statement is its own read transaction (autocommit), so a page holds no snapshot that would keep a
running batch's WAL from being checkpointed, and WAL readers never block the writer.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from urllib.parse import quote

from moot.store.blobs import Blobs
from moot.store.connection import GuardedConnection
from moot.store.db import CallRecord, Store


class ReadOnlyStore(Store):
    """A store opened with SQLite's `mode=ro`: any write raises `sqlite3.OperationalError`."""

    def __init__(self, path: Path | str) -> None:  # no super().__init__: that one creates and migrates
        self.path = Path(path)
        self._lock = threading.Lock()
        uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
        self._db = sqlite3.connect(
            uri, uri=True, check_same_thread=False, isolation_level=None, factory=GuardedConnection
        )
        self._db.store_path = str(self.path)
        self._db.row_factory = sqlite3.Row
        self._db.execute("PRAGMA busy_timeout=5000")
        self._db.execute("PRAGMA cache_size=-32768")  # 32 MiB: the pages a list or a debate reads again
        self._blobs = Blobs()
        self.version = int(self._db.execute("PRAGMA user_version").fetchone()[0])

    def attempts_of(self, debate_id: str, call_key: str) -> list[CallRecord]:
        """Every attempt at one call of a debate, with its prompt (one call's page)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT * FROM calls WHERE debate_id = ? AND call_key = ? ORDER BY id", (debate_id, call_key)
            ).fetchall()
            return [self._call(r) for r in rows]

    def _migrate(self) -> None:  # pragma: no cover - never called: a viewer does not migrate
        raise sqlite3.OperationalError("a read-only store is not migrated")


class StoreReader:
    """The store under `$MOOT_HOME`, opened when it first exists (a viewer started before the first
    debate shows empty pages, then the debates as they come)."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self._store: ReadOnlyStore | None = None
        self._lock = threading.Lock()

    def store(self) -> ReadOnlyStore | None:
        with self._lock:
            if self._store is None and self.db_path.is_file():
                store = ReadOnlyStore(self.db_path)
                if store.version == 0:  # created but not yet migrated by its writer: try again later
                    store.close()
                    return None
                self._store = store
            return self._store

    def has_table(self, name: str) -> bool:
        store = self.store()
        if store is None:
            return False
        rows = store.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
        return bool(rows)

    def close(self) -> None:
        with self._lock:
            if self._store is not None:
                self._store.close()
                self._store = None

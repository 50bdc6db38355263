"""The store's one connection: opened under the shared policy (`opening.py`), brought up to the newest
schema (`migrations.py`), and used under one lock, one statement or one transaction at a time.

The tables' own modules (`debates.py`, `calls.py`) build on `StoreConnection`; `db.py` puts them together
as `Store`."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from moot.store.blobs import Blobs
from moot.store.guard import StoreError
from moot.store.migrations import MIGRATIONS, statements
from moot.store.opening import open_connection, read_only_problem


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class StoreConnection:
    """The connection every table module of the store shares, so that a row and the blobs it references
    are written in one transaction."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._db = open_connection(self.path)  # the one policy: created private, WAL, a long busy timeout
        try:
            self._db.row_factory = sqlite3.Row
            self._blobs = Blobs()
            self._migrate()
            self._db.execute("SELECT COUNT(*) FROM debates").fetchone()  # a foreign or damaged file fails here
        except StoreError as e:
            self._db.close()
            raise read_only_problem(self.path) or e from None

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

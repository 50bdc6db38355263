"""Every SQLite error of the store as one line naming the file: a damaged, foreign, read-only or full store
is something the user must fix (restore the file, point MOOT_HOME elsewhere, free space), not a traceback;
a lock held too long or an I/O error is said as such, and only a file SQLite's integrity check fails is
called damaged.

The store's connection is a `GuardedConnection`: whatever runs on it (the store's own methods, the batch
tables, blobs, transfers) raises `StoreError` instead of `sqlite3.Error`. A full disk is `StoreFull`, so
that a batch can stop at once instead of failing one item after another.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

from moot.errors import UsageError, shown_path

RESTORE = "restore it or point MOOT_HOME elsewhere"  # only for a file that is not a healthy store
WRITABLE = "make it and its folder writable, or point MOOT_HOME elsewhere"
# a lock or an I/O error leaves the file as it was: nothing to restore
RETRY = "run the command again ('moot resume ID' continues an interrupted debate)"
AGAIN = "nothing in it is damaged; " + RETRY


class StoreError(UsageError):
    """The store cannot be opened, read or written (exit 2)."""

    def __init__(self, path: str, problem: str, advice: str = RESTORE) -> None:
        super().__init__(f"the store {shown_path(path)} {problem}: {advice}")
        self.path = path
        self.problem = problem


class StoreFull(StoreError):
    """A write failed for want of space: what the run had answered is kept (see `moot.store.calls.CallTable`)."""


def _problem(e: sqlite3.Error, path: str) -> tuple[str, str]:
    """What is wrong with the file, and what to do about it. "Damaged" (and "restore it") only when SQLite's
    own integrity check of the file fails: a file that passes it is healthy, whatever one statement met."""
    text = str(e) or type(e).__name__
    lowered = text.lower()
    if "not a database" in lowered:
        return f"is not a moot store ({text})", RESTORE
    if "malformed" in lowered or "corrupt" in lowered:
        verdict = integrity(path)
        if verdict is None or verdict == "ok":
            return f"could not be read just now ({text}), yet its integrity check passes", AGAIN
        return f"is damaged ({text}; integrity check: {verdict})", RESTORE
    if "readonly" in lowered or "read-only" in lowered:
        return f"cannot be written ({text})", WRITABLE
    if "unable to open" in lowered:
        return f"cannot be opened ({text})", WRITABLE
    if "i/o error" in lowered or getattr(e, "sqlite_errorcode", None) == sqlite3.SQLITE_IOERR:
        return f"met an I/O error ({text})", "check the disk, then " + RETRY
    return f"cannot be used ({text})", RETRY


def integrity(path: str) -> str | None:
    """`PRAGMA integrity_check` of the file, read-only on a connection of its own: "ok", the first problem
    it reports, or None when the check cannot run (the file is locked or gone): nothing proves it damaged."""
    if not path or path == ":memory:":
        return None
    try:
        db = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, timeout=5.0)
    except sqlite3.Error:
        return None
    try:
        return str(db.execute("PRAGMA integrity_check(1)").fetchone()[0])
    except sqlite3.DatabaseError as e:
        lowered = str(e).lower()
        return None if "locked" in lowered or "busy" in lowered else str(e)
    finally:
        db.close()


def is_full(e: sqlite3.Error) -> bool:
    code = getattr(e, "sqlite_errorcode", None)
    return code == sqlite3.SQLITE_FULL or "disk is full" in str(e).lower()


def is_busy(e: sqlite3.Error) -> bool:
    """Another connection holds a lock this one waited for, up to its busy timeout."""
    code = getattr(e, "sqlite_errorcode", None)
    return code in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or any(w in str(e).lower() for w in ("locked", "busy"))


@contextmanager
def translated(path: str) -> Iterator[None]:
    """sqlite3 errors of the file as StoreError (StoreFull for a full disk); a constraint or a misused API
    is a bug of moot's and stays what it is."""
    try:
        yield
    except (sqlite3.IntegrityError, sqlite3.ProgrammingError, sqlite3.InterfaceError):
        raise  # the store's own statements at fault, not the file
    except sqlite3.Error as e:
        if is_full(e):
            raise StoreFull(path, f"cannot be written ({e})", "free some space, then run the same command again") from e
        if is_busy(e):
            raise StoreError(path, f"is busy ({e})", "another process held it too long: " + AGAIN) from e
        raise StoreError(path, *_problem(e, path)) from e


class GuardedCursor(sqlite3.Cursor):
    def _path(self) -> str:
        return getattr(self.connection, "store_path", "")

    def execute(self, sql: str, parameters: Any = (), /) -> GuardedCursor:
        with translated(self._path()):
            super().execute(sql, parameters)
        return self

    def executemany(self, sql: str, seq_of_parameters: Iterable[Any], /) -> GuardedCursor:
        with translated(self._path()):
            super().executemany(sql, seq_of_parameters)
        return self

    def fetchone(self) -> Any:
        with translated(self._path()):
            return super().fetchone()

    def fetchall(self) -> list[Any]:
        with translated(self._path()):
            return super().fetchall()

    def fetchmany(self, size: int | None = 1) -> list[Any]:
        with translated(self._path()):
            return super().fetchmany(size)

    def __next__(self) -> Any:
        with translated(self._path()):
            return super().__next__()


class GuardedConnection(sqlite3.Connection):
    """A connection whose every statement raises StoreError, naming `store_path`, on an sqlite3 error."""

    store_path: str = ""

    def execute(self, sql: str, parameters: Sequence[Any] | Any = (), /) -> GuardedCursor:
        return self.cursor(GuardedCursor).execute(sql, parameters)

    def executemany(self, sql: str, parameters: Iterable[Any], /) -> GuardedCursor:
        return self.cursor(GuardedCursor).executemany(sql, parameters)

    def executescript(self, script: str, /) -> sqlite3.Cursor:
        with translated(self.store_path):
            return super().executescript(script)


def connect(path: str) -> GuardedConnection:
    with translated(path):
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, factory=GuardedConnection)
    assert isinstance(db, GuardedConnection)
    db.store_path = path
    return db

"""The store's one connection, from the file to the statement: how every process opens it (one policy, safe
for a long-lived server beside short CLI runs), how every SQLite error becomes one line naming the file, and
how the store uses it (one lock, one statement or one transaction at a time).

**Opening.** One policy for every process, and other servers on the same file:

- **Only SQLite opens the database file.** Closing any descriptor of a file drops every POSIX lock the
  process holds on it, SQLite's included ("How To Corrupt An SQLite Database File", §2.2): a second
  `open`/`close` of `moot.db` while a connection of the same process is in a transaction let another
  process checkpoint and delete the WAL under it, and a finished debate vanished (issue 27). So a missing
  file is created 0600 with `O_CREAT | O_EXCL` (no connection can hold a file this call has just made, and
  opening is serialised within the process), and an existing one is only ever `chmod`-ed.
- **Every connection is set up alike:** WAL (readers never block the writer), `synchronous=NORMAL`, and a
  `busy_timeout` long enough to wait out another process's commit or checkpoint, so that a lock is waited
  for rather than reported.

**Errors.** A damaged, foreign, read-only or full store is something the user must fix (restore the
file, point MOOT_HOME elsewhere, free space), not a traceback; a lock held too long or an I/O error is
said as such, and only a file SQLite's integrity check fails is called damaged.

The store's connection is a `GuardedConnection`: whatever runs on it (the store's own methods, the batch
tables, blobs, transfers) raises `StoreError` instead of `sqlite3.Error`. A full disk is `StoreFull`, so
that a batch can stop at once instead of failing one item after another.

**Use.** `StoreConnection`, opened under that policy, brought up to the newest schema (`migrations.py`).

The tables' own modules (`debates.py`, `calls.py`) build on `StoreConnection`; `db.py` puts them together
as `Store`.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from moot.errors import UsageError, shown_path
from moot.store.blobs import Blobs
from moot.store.migrations import MIGRATIONS, statements

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


# how long a statement waits for another process's lock before it is reported as busy (milliseconds)
BUSY_TIMEOUT_MS = 30_000
# opening a store (creating its file included) is one at a time within a process: see make_private
_OPENING = threading.Lock()


def moot_home() -> Path:
    """Where moot keeps its files (the store, the trusted projects, caches): `$MOOT_HOME`, or the platform's
    user data folder."""
    home = os.environ.get("MOOT_HOME")
    if home:
        return Path(home)
    import platformdirs

    return Path(platformdirs.user_data_dir("moot", appauthor=False))


def default_db_path() -> Path:
    """`$MOOT_HOME/moot.db`, or the platform's user data folder."""
    return moot_home() / "moot.db"


def make_private(path: Path) -> None:
    """The store holds every prompt and reply: readable by its owner only (0600), as the reports are.

    A missing file is created 0600 before SQLite opens it (SQLite gives its -wal and -shm files the
    database's own permissions). An existing file is never opened here, only tightened with `chmod` (with
    its -wal and -shm) when an older version made it 0644: opening and closing it would drop the locks a
    connection of this process holds on it.
    """
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        for file in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            with contextlib.suppress(OSError):  # a file that is not ours, or gone: SQLite says what is wrong
                if file.stat().st_mode & 0o077:
                    file.chmod(0o600)
        return
    except OSError:
        return  # sqlite3 reports what is wrong with the path, in its own words
    os.close(fd)  # a file made just now, under _OPENING: no connection of this process has it yet


def read_only_problem(path: Path) -> StoreError | None:
    """A store SQLite could not open or write because the file or its file system is read-only, said so."""
    if str(path) == ":memory:":
        return None
    try:
        folder_ro = bool(os.statvfs(path.parent).f_flag & os.ST_RDONLY)
    except OSError:
        folder_ro = False
    if folder_ro or (path.exists() and not os.access(path, os.W_OK)):
        return StoreError(str(path), "is read-only (on a read-only file system, or without write permission)", WRITABLE)
    return None


def open_connection(path: Path) -> GuardedConnection:
    """The store's connection, created private when missing, set up by this module's one policy (WAL, a long
    busy timeout). Raises StoreError naming the file."""
    memory = str(path) == ":memory:"
    if not memory:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(str(path), f"cannot be opened (its folder: {e.strerror or e})", WRITABLE) from None
        if path.is_dir():
            raise StoreError(str(path), "is a folder, not a SQLite file")
    with _OPENING:
        if not memory:
            make_private(path)
        try:
            db = connect(str(path))
        except StoreError as e:
            raise read_only_problem(path) or e from None
    try:
        db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")  # first: switching to WAL waits for another opener too
        _wal(db)
        db.execute("PRAGMA synchronous=NORMAL")
    except StoreError as e:
        db.close()
        raise read_only_problem(path) or e from None
    return db


def _wal(db: GuardedConnection) -> None:
    """Switch the file to WAL. SQLite does not call the busy handler for this switch while another process
    opens the same new file, so a brief "database is locked" is waited out here (up to the busy timeout)."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except StoreError as e:
            if "busy" not in e.problem or time.monotonic() > deadline:
                raise
            time.sleep(0.02)


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

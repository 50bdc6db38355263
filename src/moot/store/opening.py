"""How every process opens the store: one policy, safe for a long-lived server (`moot mcp`, `moot view`)
beside short CLI runs and other servers on the same file.

- **Only SQLite opens the database file.** Closing any descriptor of a file drops every POSIX lock the
  process holds on it, SQLite's included ("How To Corrupt An SQLite Database File", §2.2): a second
  `open`/`close` of `moot.db` while a connection of the same process is in a transaction let another
  process checkpoint and delete the WAL under it, and a finished debate vanished (issue 27). So a missing
  file is created 0600 with `O_CREAT | O_EXCL` (no connection can hold a file this call has just made, and
  opening is serialised within the process), and an existing one is only ever `chmod`-ed.
- **Every connection is set up alike:** WAL (readers never block the writer), `synchronous=NORMAL`, and a
  `busy_timeout` long enough to wait out another process's commit or checkpoint, so that a lock is waited
  for rather than reported.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path

from moot.store.guard import WRITABLE, GuardedConnection, StoreError, connect

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

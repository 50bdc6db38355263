"""One run per batch: an exclusive lock, held for the whole run, on two small files.

- `<results>.lock` beside RESULTS.jsonl: no second run writes (or replaces) the results file under a
  running writer, whatever store it uses;
- `locks/<batch id>.lock` beside the store: no second run of the batch works in the store, whatever
  `--out` it was given.

The lock is `flock`, which the kernel releases when its holder dies, however it dies: a lock file left by
a killed run is taken over by the next one, and a pid reused by another process cannot keep a batch
locked. The holder's pid is written into the file only so that a refusal can name it.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from types import TracebackType
from typing import IO

from moot.errors import UsageError

try:
    import fcntl

    HAVE_FLOCK = True
except ImportError:  # Windows: no flock, no lock (a second run there is not refused)
    HAVE_FLOCK = False


class BatchLock:
    """Held from `acquire` until `release` (or the process's death)."""

    def __init__(self, batch_id: str, paths: list[Path]) -> None:
        self.batch_id = batch_id
        self.paths = paths
        self._held: list[IO[str]] = []

    def acquire(self) -> BatchLock:
        """Raises UsageError: the batch is already running (naming the holder's pid), or a lock file
        cannot be made (a read-only folder)."""
        try:
            for path in self.paths:
                self._held.append(self._take(path))
        except BaseException:
            self.release()
            raise
        return self

    def _take(self, path: Path) -> IO[str]:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle = path.open("a+", encoding="utf-8")
        except OSError as e:
            raise UsageError(f"cannot write the batch's lock file {path}: {e.strerror or e}") from None
        if not HAVE_FLOCK:
            return handle
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            handle.seek(0)
            holder = handle.read().strip() or "unknown"
            handle.close()
            raise UsageError(f"batch {self.batch_id} is already running (pid {holder})") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()}\n")
        handle.flush()
        return handle

    def release(self) -> None:
        """The files stay (removing one could let a third run lock a fresh file while a second waits on
        the old one); their locks go."""
        while self._held:
            handle = self._held.pop()
            with contextlib.suppress(OSError):
                handle.close()

    def __enter__(self) -> BatchLock:
        return self.acquire()

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.release()


def lock_paths(batch_id: str, results: Path, store_path: Path) -> list[Path]:
    """The results file's lock, then the batch's lock beside the store (none for an in-memory store)."""
    paths = [results.with_name(results.name + ".lock")]
    if str(store_path) != ":memory:":
        paths.append(store_path.parent / "locks" / f"{batch_id}.lock")
    return paths

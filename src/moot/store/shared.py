"""One connection to the store per process and file, for a long-lived server (`moot mcp`): every tool call
and every debate it runs share it, instead of opening (and leaking until collected) one per call.

A `Store` serialises its statements under its own lock and commits each write at once, so debates running
side by side in the server interleave their small writes on the one connection; other processes (CLI runs,
other servers, `moot view`) have their own, under the same policy (`moot.store.connection`)."""

from __future__ import annotations

import threading
from pathlib import Path

from moot.store.connection import default_db_path
from moot.store.db import Store

_STORES: dict[Path, Store] = {}
_GUARD = threading.Lock()


def shared_store(path: Path | None = None) -> Store:
    """The process's store at `path` (default: `$MOOT_HOME/moot.db`), opened on first use and kept open."""
    where = (path or default_db_path()).absolute()
    with _GUARD:
        store = _STORES.get(where)
        if store is not None and not where.exists():  # moved or deleted since: open the file now at that path
            store.close()
            store = None
        if store is None:
            store = _STORES[where] = Store(where)
        return store

"""The SQLite store. One connection per Store; writes are small and committed at once (WAL mode), so a
crash or kill loses nothing that had completed, and `moot resume` can replay finished calls.

`Store` is put together from its rooms, one module a job: the connection, its schema and its transactions
(`connection.py`), a debate's rows (`debates.py`: the debate, its rounds, its report sections) and the judge
calls (`calls.py`). Long strings in a call's prompt and a debate's request are kept once (`blobs.py`): rows
hold references, and every reader gives back the text exactly as it was written.

Any SQLite error is a `StoreError` naming the file (`connection.py`). A call answered but not recorded for want
of space (`StoreFull`) is kept in `Store.unsaved`, so that its caller can write it later or elsewhere
instead of paying for it again."""

from __future__ import annotations

from moot.store.calls import CallRecord, CallTable
from moot.store.connection import StoreError, StoreFull, default_db_path, make_private, now_iso
from moot.store.debates import DebateRow, DebateTables

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


class Store(DebateTables, CallTable):
    """The store a debate, a batch or a server opens: every table's methods on one connection."""

    @classmethod
    def open_default(cls) -> Store:
        return cls(default_db_path())

"""Durable state: every debate, round and call in SQLite, written as it completes."""

from moot.store.db import CallRecord, DebateRow, Store, default_db_path

__all__ = ["CallRecord", "DebateRow", "Store", "default_db_path"]

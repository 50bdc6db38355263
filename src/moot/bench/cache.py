"""Where the bench keeps what it downloads or builds: `$MOOT_HOME/bench/`, beside the store, so that one
rule (`moot.store.connection.moot_home`) decides where moot keeps its files."""

from __future__ import annotations

import os
from pathlib import Path

from moot.store.connection import moot_home


def bench_dir() -> Path:
    """`$MOOT_HOME/bench`, or `bench` in the platform's user data folder."""
    return moot_home() / "bench"


def write_atomic(path: Path, data: bytes) -> None:
    """Write all of `data` or nothing: a reader never sees half a cache file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f".{path.name}.{os.getpid()}.part")
    part.write_bytes(data)
    part.replace(path)

"""Several processes opening one new store at the same moment (two batches, a batch and a debate): one of
them migrates it, the others wait for it and find nothing left to do. Before, the losers failed with
"table debates already exists" or "database is locked"."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

OPEN = """
import sys, time
from moot.store import Store
start = float(sys.argv[2])
while time.time() < start:
    pass
store = Store(sys.argv[1])
print(len(store.execute("SELECT id FROM debates")))
store.close()
"""


def test_processes_opening_a_new_store_at_once_all_succeed(tmp_path: Path) -> None:
    for attempt in range(3):
        path = tmp_path / f"moot-{attempt}.db"
        start = __import__("time").time() + 1.5  # every process is loaded and spinning before the moment
        procs = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN, str(path), str(start)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(4)
        ]
        ended = [p.communicate(timeout=60) for p in procs]
        assert [p.returncode for p in procs] == [0, 0, 0, 0], ended
        assert [out.strip() for out, _ in ended] == ["0"] * 4

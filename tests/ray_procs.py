"""A Ray cluster's batch tasks seen from outside it, for the fault tests (no tests here): the processes
running a batch's Ray task, what each had recorded in its own store, and CPU-bound processes that keep
every core busy while a fault lands.

The test process never joins the cluster: it finds the cluster's processes in /proc (by the auth token
the cluster was started with, so that another Ray on the same machine is never touched) and reads each
task's store, the SQLite file the task holds open, as any other reader would.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path


class Busy:
    """A CPU-bound process on every core, from `start()` until `stop()` (each ended by its own id)."""

    def __init__(self) -> None:
        self.hogs: list[subprocess.Popen[bytes]] = []

    def start(self) -> None:
        if not self.hogs:
            self.hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(_cores())]

    def stop(self) -> None:
        hogs, self.hogs = self.hogs, []
        for hog in hogs:
            hog.kill()
            hog.wait()


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 2


def tasks(token: str) -> list[int]:
    """The processes running a batch's Ray task (Ray titles them after the function) in the cluster started
    with auth token `token` (its processes inherit it)."""
    pids = []
    mark = f"RAY_AUTH_TOKEN={token}".encode()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "cmdline").read_bytes().startswith(b"ray::run_units") and mark in (
                    entry / "environ"
                ).read_bytes().split(b"\0"):
                    pids.append(int(entry.name))
            except OSError:
                continue
    return sorted(pids)


def parent(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat.rsplit(")", 1)[1].split()[1])


def task_store(pid: int) -> Path | None:
    """The store a task runs its debates in (a `moot.db` in a temporary folder of its own), if open yet."""
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            target = fd.readlink()
            if target.name == "moot.db" and target.parent.name.startswith("moot-ray-"):
                return target
    except OSError:
        return None
    return None


def recorded(pid: int) -> tuple[set[str], set[tuple[str, str]]]:
    """What task `pid` holds in its store: its debates, and the (debate, model) of every answered call it
    has recorded (a worker sends each such call to the batch's journal as it records it)."""
    path = task_store(pid)
    if path is None:
        return set(), set()
    try:
        with closing(sqlite3.connect(path, timeout=30)) as db:
            debates = {str(r[0]) for r in db.execute("SELECT id FROM debates")}
            calls = {(str(r[0]), str(r[1])) for r in db.execute("SELECT debate_id, model FROM calls WHERE status='ok'")}
    except sqlite3.Error:  # the schema not written yet
        return set(), set()
    return debates, calls

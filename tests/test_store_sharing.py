"""One store, several processes (issue 27): a long-lived `moot mcp` beside CLI runs must never lose a debate.

Before, opening a store ran `open()` and `close()` on moot.db outside SQLite; closing any descriptor drops
every POSIX lock the process holds on the file, SQLite's included, and a CLI run could then checkpoint and
delete the WAL under the server: the CLI's finished debate vanished (3 of 3 runs)."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from moot.cli.app import main
from moot.store import Store
from moot.store import connection as opening
from moot.store.connection import StoreError, translated
from moot.testing import FakeLLMServer

from .replies import CRITERIA
from .scripted_panels import artifact, converging_panel
from .store_processes import cli, http_server
from .test_batch_support import Responder, judges_for


def test_the_cli_debate_survives_a_long_lived_mcp_server(tmp_path: Path, isolated_home: Path) -> None:
    """The issue's reproduction: two MCP debates, `moot list`, a third, then a CLI debate; the server stops."""
    panel, art = converging_panel(tmp_path), artifact(tmp_path)
    args = {"solution": [str(art)], "criteria": CRITERIA, "judges": str(panel), "no_reports": True}
    seen: dict[str, Any] = {}
    with http_server(isolated_home, tmp_path) as (port, _):

        async def run() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                ids = []
                for _ in range(2):
                    ids.append((await client.call_tool("evaluate", args)).structured_content["debate_id"])
                assert cli(isolated_home, tmp_path, "list").returncode == 0
                ids.append((await client.call_tool("evaluate", args)).structured_content["debate_id"])
                seen["mcp"] = ids
                done = cli(
                    isolated_home, tmp_path, "evaluate", "--solution", str(art), "--criteria", CRITERIA,
                    "--judges", str(panel), "--no-reports", "--format", "json", "--no-progress",
                )  # fmt: skip
                assert done.returncode == 0, done.stderr
                seen["cli"] = json.loads(done.stdout)["debate_id"]

        anyio.run(run)
    for debate_id in [*seen["mcp"], seen["cli"]]:
        shown = cli(isolated_home, tmp_path, "show", debate_id, "--format", "json")
        assert shown.returncode == 0, shown.stderr
        assert json.loads(shown.stdout)["debate_id"] == debate_id
    db = sqlite3.connect(isolated_home / "moot.db")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    db.close()


def test_opening_a_store_never_opens_an_existing_file_outside_sqlite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A new file is made 0600 once; an existing one (a 0644 store of an older version) is only chmod-ed."""
    path = tmp_path / "moot.db"
    opened: list[str] = []
    real_open = os.open

    def spying_open(file: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        fd = real_open(file, flags, *args, **kwargs)
        opened.append(str(file))  # a descriptor was made: its close drops the process's locks on the file
        return fd

    monkeypatch.setattr(os, "open", spying_open)
    first = Store(path)
    assert opened == [str(path)] and (path.stat().st_mode & 0o777) == 0o600  # made private, before SQLite
    first.create_debate("d1", "evaluate", {})
    path.chmod(0o644)
    second = Store(path)  # while `first` holds it: no open/close that would drop first's locks
    assert opened == [str(path)]
    assert path.stat().st_mode & 0o777 == 0o600
    assert [r.id for r in second.list_debates()] == ["d1"]
    first.close()
    second.close()


def test_a_malformed_read_on_a_healthy_file_is_not_called_damaged(tmp_path: Path) -> None:
    path = tmp_path / "moot.db"
    Store(path).close()
    with pytest.raises(StoreError) as caught, translated(str(path)):
        raise sqlite3.DatabaseError("database disk image is malformed")
    message = str(caught.value)
    assert "integrity check passes" in message and "nothing in it is damaged" in message
    assert "damaged (" not in message and "restore" not in message


def test_a_lock_held_too_long_is_one_line_busy_exit_2_and_the_debate_resumes(
    tmp_path: Path,
    isolated_home: Path,
    llm_server: FakeLLMServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Another process holds the write lock mid-debate past the busy timeout: the debate stops with one line
    that says the store is busy (not damaged), exit 2; once the lock is gone, `moot resume` finishes it."""
    monkeypatch.setattr(opening, "BUSY_TIMEOUT_MS", 150)
    Store(isolated_home / "moot.db").close()
    held: dict[str, Any] = {}
    inner = Responder()

    first = threading.Lock()  # the judges' calls arrive at once: only the first of them takes the lock

    def locking(model: str, body: dict[str, Any]) -> Any:
        with first:
            if "db" not in held:  # the first call of the debate: take the write lock for 2 s
                db = held["db"] = sqlite3.connect(isolated_home / "moot.db", check_same_thread=False)
                db.execute("BEGIN IMMEDIATE")
                held["timer"] = threading.Timer(2.0, db.rollback)
                held["timer"].start()
        return inner(model, body)

    llm_server.responder = locking
    judges = judges_for("evaluate", tmp_path, llm_server)
    argv = ["evaluate", "--solution", str(artifact(tmp_path)), "--criteria", CRITERIA, "--judges", str(judges)]
    assert main([*argv, "--no-reports", "--no-progress", "--format", "json"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1, err
    line = err.strip()
    assert " is busy (database is locked)" in line and "is damaged (" not in line and "restore" not in line
    held["timer"].join(30)  # the lock is released (however late a loaded machine runs the timer)
    held["db"].close()
    (row,) = Store(isolated_home / "moot.db").list_debates()
    assert row.status in ("interrupted", "running")
    assert main(["resume", row.id, "--format", "json", "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["debate_id"] == row.id
    assert Store(isolated_home / "moot.db").require_debate(row.id).status == "finished"

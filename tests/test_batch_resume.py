"""A batch stopped mid-way (kill -9, SIGTERM) and run again: every item ends once in RESULTS.jsonl, and
no call that had completed is sent to the server again."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from moot.cli.app import main
from moot.testing import FakeLLMServer

from .test_batch_support import Responder, item, judges_for, read_results, serve, write_items

N = 16


def _rows(db: Path, sql: str) -> list[tuple[object, ...]]:
    if not db.exists():
        return []
    with sqlite3.connect(db) as con:
        try:
            return con.execute(sql).fetchall()
        except sqlite3.OperationalError:  # tables not made yet
            return []


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


def _start(items: Path, judges: Path, home: Path) -> subprocess.Popen[str]:
    cmd = [sys.executable, "-m", "moot", "batch", str(items), "--protocol", "evaluate", "--judges", str(judges)]
    cmd += ["--concurrency", "4", "--format", "json"]
    env = {**os.environ, "MOOT_HOME": str(home)}
    return subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(proc: subprocess.Popen[str], ready: object, what: str) -> None:
    deadline = time.monotonic() + 60
    while not ready() and time.monotonic() < deadline:  # type: ignore[operator]
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.02)
    assert ready(), f"timed out waiting for {what}"  # type: ignore[operator]


def _item_of(body: dict[str, object]) -> int:
    """Which item a request is for: each item's artifact ends in its own `return x + N`."""
    text = json.dumps(body)
    (n,) = [n for n in range(N) if f"return x + {n}\\n" in text]
    return n


def test_kill_9_mid_batch_then_again_repays_no_completed_call(
    llm_server: FakeLLMServer, tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # two judges answer at once, the third takes 1.5 s: a running debate has calls completed and one not (long
    # enough that a loaded machine does not complete the third call between the check and the kill)
    serve(llm_server, delays={"ev-neutral": 0.02, "ev-for": 0.05, "ev-against": 1.5})
    judges = judges_for("evaluate", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", n, other=n % 4 == 0) for n in range(N)])
    results = tmp_path / "items.results.jsonl"
    db = isolated_home / "moot.db"
    partial = (
        "SELECT d.id FROM debates AS d JOIN calls AS c ON c.debate_id = d.id"
        " WHERE d.status = 'running' AND c.status = 'ok' GROUP BY d.id HAVING COUNT(*) < 3"
    )

    proc = _start(items, judges, isolated_home)
    _wait_for(proc, lambda: _lines(results) >= 4 and _rows(db, partial), "items done and a debate half way")
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    ended_before = _lines(results)
    assert ended_before < N
    completed = set(_rows(db, "SELECT debate_id, model FROM calls WHERE status = 'ok'"))
    debate_of = {int(str(i)[1:]): d for i, d in _rows(db, "SELECT item_id, debate_id FROM batch_items")}
    half_way = {d for (d,) in _rows(db, partial)}
    assert half_way and all(0 < sum(1 for c in completed if c[0] == d) < 3 for d in half_way)

    llm_server.responder = Responder()  # no more delays
    code = main(["batch", str(items), "--protocol", "evaluate", "--judges", str(judges), "--format", "json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 0 and (summary["done"], summary["failed"]) == (N, 0)
    assert summary["distribution"] == {"PASS": 12, "FAIL": 4}

    # the server's log, over both runs: a call completed before the kill was never sent again
    sent = Counter((_item_of(r.body), r.model) for r in llm_server.requests)
    for n, debate_id in debate_of.items():
        for model in ("ev-neutral", "ev-for", "ev-against"):
            if (debate_id, model) in completed:
                assert sent[(n, model)] == 1, (n, model)
    assert all(sent[(n, m)] >= 1 for n in range(N) for m in ("ev-neutral", "ev-for", "ev-against"))
    repeated = sum(count - 1 for count in sent.values())
    assert repeated <= 4 * 3  # only calls in flight at the kill (4 debates of 3 judges at most) were asked again

    # RESULTS.jsonl ends with one line per item, each done, the lines written before the kill kept
    lines = read_results(results)
    assert len(lines) == N and len({line["id"] for line in lines}) == N
    assert all(line["status"] == "done" for line in lines)
    for d in half_way:  # the debates cut off half way were resumed, not started again
        assert any(line["debate_id"] == d for line in lines)
    assert [s for (s,) in _rows(db, "SELECT DISTINCT status FROM debates")] == ["finished"]


def test_sigterm_marks_the_batch_interrupted_and_it_continues(
    llm_server: FakeLLMServer, tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve(llm_server, delays={"ev-against": 0.3})
    judges = judges_for("evaluate", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", n) for n in range(N)])
    results = tmp_path / "items.results.jsonl"
    db = isolated_home / "moot.db"

    proc = _start(items, judges, isolated_home)
    _wait_for(proc, lambda: _lines(results) >= 2, "two items done")
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert out == "" and "run the same command again to continue batch-" in err
    assert _rows(db, "SELECT status FROM batches") == [("interrupted",)]
    statuses = {s for (s,) in _rows(db, "SELECT status FROM debates")}
    assert "interrupted" in statuses and "running" not in statuses

    code = main(["batch", str(items), "--protocol", "evaluate", "--judges", str(judges), "--format", "json"])
    assert code == 0 and json.loads(capsys.readouterr().out)["done"] == N
    assert _rows(db, "SELECT status FROM batches") == [("finished",)]
    assert len(read_results(results)) == N

"""A challenge killed mid-round resumes from the store: finished calls are replayed, not paid again."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from moot.cli.app import main
from moot.testing import FakeLLMServer, Reply

from .challenge_helpers import confront, opening, rebuttal, verdict, write_judges


def _calls(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db) as c:
            return int(c.execute("SELECT COUNT(*) FROM calls").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def test_killed_challenge_resumes_without_repeating_calls(
    llm_server: FakeLLMServer, isolated_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("prop", opening(), confront({"O1": "ACCEPT", "O2": "PARTIAL"}, "Shard, with a whale plan"))
    llm_server.script("ch-a", verdict("disagree", "strong", ["whales"]), rebuttal("ACCEPT"))
    llm_server.script("ch-b", verdict("partial", "strong", ["reports"]), Reply(text=rebuttal("ACCEPT"), delay=60))
    judges = write_judges(
        tmp_path / "j.yaml",
        {"model": "prop", "api_base": llm_server.base_url},
        [{"model": m, "api_base": llm_server.base_url} for m in ("ch-a", "ch-b")],
    )
    env = {**os.environ, "MOOT_HOME": str(isolated_home)}
    cmd = [sys.executable, "-m", "moot", "challenge", "Shard orders?", "--judges", str(judges), "--format", "json"]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    db = isolated_home / "moot.db"
    deadline = time.monotonic() + 30
    while _calls(db) < 5 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert _calls(db) == 5, proc.stderr.read() if proc.poll() is not None else "timed out waiting"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with sqlite3.connect(db) as c:
        debate_id = str(c.execute("SELECT id FROM debates").fetchone()[0])

    llm_server.script("ch-b", rebuttal("ACCEPT", "the reporting replica settles it"))
    assert main(["resume", debate_id, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["outcome"] == "CONSENSUS" and out["debate_id"] == debate_id
    assert [v["version"] for v in out["position_history"]] == [1, 2]
    assert len(llm_server.calls_for("prop")) == 2 and len(llm_server.calls_for("ch-a")) == 2
    assert len(llm_server.calls_for("ch-b")) == 3  # the cut-off rebuttal had not completed
    assert out["spend"]["calls"] == 6

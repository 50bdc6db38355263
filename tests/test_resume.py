"""A debate killed mid-way loses nothing it paid for: `moot resume` replays finished calls."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from moot.testing import FakeLLMServer, Reply

from .replies import CRITERIA, round1, round2, round3


def _calls(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db) as c:
            return int(c.execute("SELECT COUNT(*) FROM calls").fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def test_kill_mid_round_then_resume_repeats_no_completed_call(
    llm_server: FakeLLMServer,
    judges_file,
    artifact: Path,
    isolated_home: Path,
    tmp_path: Path,  # type: ignore[no-untyped-def]
) -> None:
    llm_server.script("judge-a", round1(3.6, 4), round2(3.5))
    llm_server.script("judge-b", round1(4.3, 4), round2(3.9))
    llm_server.script("judge-c", round1(2.8, 3), Reply(text=round2(3.0), delay=60))
    reports = tmp_path / "reports"
    cmd = [
        sys.executable,
        "-m",
        "moot",
        "evaluate",
        "--solution",
        str(artifact),
        "--criteria",
        CRITERIA,
        "--judges",
        str(judges_file()),
        "--reports-dir",
        str(reports),
        "--format",
        "json",
    ]
    env = {**os.environ, "MOOT_HOME": str(isolated_home)}
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    db = isolated_home / "moot.db"
    deadline = time.monotonic() + 30
    while _calls(db) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _calls(db) == 5, proc.stderr.read() if proc.poll() is not None else "timed out waiting"
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    status = subprocess.run(
        [sys.executable, "-m", "moot", "show", "--format", "json", "x" * 0 + _debate_id(db)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert json.loads(status.stdout)["status"] == "running"  # killed without a chance to say otherwise

    # the judge that was cut off answers afresh; round 3 follows
    llm_server.script("judge-c", round2(3.0), round3(2.9))
    llm_server.script("judge-a", round3(3.5))
    llm_server.script("judge-b", round3(3.8))
    done = subprocess.run(
        [sys.executable, "-m", "moot", "resume", _debate_id(db), "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["rounds_completed"] == 3 and out["majority_judges"] == ["judge-1", "judge-2"]
    # every completed call was replayed, not repeated: a and b were asked 3 times in all
    assert len(llm_server.calls_for("judge-a")) == 3
    assert len(llm_server.calls_for("judge-b")) == 3
    assert len(llm_server.calls_for("judge-c")) == 4  # the cut-off round-2 call had not completed
    assert out["spend"]["judge_calls"] == 9
    for n in (1, 2, 3):
        text = next(reports.glob(f"*.{n}.md")).read_text()
        assert text.count("Done by Judge") == 1
        assert text.count("## Debate Round 2") == 1 and text.count("## Debate Round 3") == 1


def _debate_id(db: Path) -> str:
    with sqlite3.connect(db) as c:
        return str(c.execute("SELECT id FROM debates").fetchone()[0])

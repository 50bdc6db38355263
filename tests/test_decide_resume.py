"""A decision debate killed mid-way loses nothing it paid for: `moot resume` replays finished calls."""

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
import yaml

from moot.cli.app import main
from moot.testing import FakeLLMServer, Reply

from .test_decide_support import decide_judges, question_args, r1, r2


def _count(db: Path, sql: str) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db) as c:
            return int(c.execute(sql).fetchone()[0])
    except sqlite3.OperationalError:
        return 0


def test_kill_in_round_two_then_resume(llm_server: FakeLLMServer, isolated_home: Path, tmp_path: Path) -> None:
    llm_server.script("risk-m", r1("A"), r2("A", challenge={"value": "guess"}))
    llm_server.script("value-m", r1("B"), r2("B", challenge={"risk": "timid"}))
    llm_server.script("effort-m", r1("C"), Reply(text=r2("C", challenge={"risk": "slow"}), delay=60))
    env = {**os.environ, "MOOT_HOME": str(isolated_home)}
    argv = [sys.executable, "-m", "moot", *question_args(decide_judges(tmp_path, llm_server)), "--format", "json"]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path)
    db = isolated_home / "moot.db"
    deadline = time.monotonic() + 30
    while _count(db, "SELECT COUNT(*) FROM calls") < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _count(db, "SELECT COUNT(*) FROM calls") == 5, proc.stderr.read() if proc.poll() is not None else "timeout"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    with sqlite3.connect(db) as c:
        debate_id = str(c.execute("SELECT id FROM debates").fetchone()[0])

    llm_server.script("effort-m", r2("A", challenge={"value": "cost"}, reason="risk's sync argument"))
    done = subprocess.run(
        [sys.executable, "-m", "moot", "resume", debate_id, "--format", "json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["recommended_option"] == "A" and out["rounds_completed"] == 2
    assert out["change_log"] == [
        {"judge": "effort", "round": 2, "from": "C", "to": "A", "reason": "risk's sync argument"}
    ]
    # completed calls were replayed, not repeated
    assert len(llm_server.calls_for("risk-m")) == 2 and len(llm_server.calls_for("value-m")) == 2
    assert len(llm_server.calls_for("effort-m")) == 3  # the cut-off round-2 call had not completed
    assert out["spend"]["judge_calls"] == 6
    assert (tmp_path / ".specs/sadd" / f"debate-{out['question_id']}-effort-r2.md").exists()


def test_judges_without_stances_take_the_seeds_stances(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "plain.yaml"
    judges = [{"model": m, "api_base": llm_server.base_url} for m in ("m1", "m2", "m3")]
    judges[1]["stance"] = "risk"
    path.write_text(yaml.safe_dump({"judges": judges}), encoding="utf-8")
    for m in ("m1", "m2", "m3"):
        llm_server.script(m, r1("B"))
    args = question_args(path)
    assert main([*args, "--format", "json", "--no-files"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(j["judge"], j["model"]) for j in out["judges"]] == [("value", "m1"), ("risk", "m2"), ("effort", "m3")]
    assert (
        "You are the Value Judge with OPTIMISTIC stance"
        in llm_server.calls_for("m1")[0].body["messages"][-1]["content"]
    )

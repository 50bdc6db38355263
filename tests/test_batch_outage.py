"""An outage heals: judges dropped for a transport error (503 past the retries) leave their items `degraded`,
reported apart from `done`, their failed attempts apart from the paid calls; the next run asks the dropped
judges again (replaying every answered call) and the items end done on the whole panel. `--keep-dropped`
keeps them as they are and sends nothing."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from moot.cli.app import main
from moot.testing import FakeLLMServer, Reply

from .test_batch_support import Responder, item, judges_for, read_results, write_items

N = 4


class Outage(Responder):
    """ev-against answers 503 while `down`."""

    down = True

    def __call__(self, model: str, body: dict[str, Any]) -> Reply:
        if self.down and model == "ev-against":
            return Reply(status=503)
        return super().__call__(model, body)


def _batch(capsys: pytest.CaptureFixture[str], items: Path, judges: Path, *extra: str) -> tuple[int, dict[str, Any]]:
    code = main(["batch", str(items), "--protocol", "evaluate", "--judges", str(judges), "--format", "json", *extra])
    return code, json.loads(capsys.readouterr().out)


def test_judges_dropped_by_an_outage_are_asked_again_by_the_next_run(
    llm_server: FakeLLMServer, tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outage = Outage()
    llm_server.responder = outage
    judges = judges_for("evaluate", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", n) for n in range(N)])
    results = tmp_path / "items.results.jsonl"

    code, summary = _batch(capsys, items, judges)
    assert code == 1  # not every item done on its whole panel
    assert (summary["done"], summary["degraded"], summary["failed"]) == (0, N, 0)
    assert sorted(summary["degraded_items"]) == [f"e{n}" for n in range(N)]
    against = len(llm_server.calls_for("ev-against"))
    assert against >= N  # each dropped call was tried (and retried) on the wire
    paid = len(llm_server.requests) - against
    assert (summary["spend"]["calls"], summary["spend"]["failed_attempts"]) == (paid, N)
    assert all(line.get("degraded") is True for line in read_results(results))

    # --keep-dropped: the verdicts on two judges are kept, nothing is sent
    sent = len(llm_server.requests)
    code, kept = _batch(capsys, items, judges, "--keep-dropped")
    assert code == 1 and (kept["done"], kept["degraded"]) == (0, N)
    assert len(llm_server.requests) == sent

    # the vendor is back: the next run asks the dropped judges again, and only what their answers change
    outage.down = False
    code, healed = _batch(capsys, items, judges)
    assert code == 0, healed
    assert (healed["done"], healed["degraded"], healed["failed"]) == (N, 0, 0)
    lines = read_results(results)
    assert sorted(line["id"] for line in lines) == [f"e{n}" for n in range(N)]
    assert all(line["status"] == "done" and "degraded" not in line for line in lines)
    with sqlite3.connect(isolated_home / "moot.db") as con:
        for line in lines:
            rows = dict(
                con.execute(
                    "SELECT call_key, COUNT(*) FROM calls WHERE debate_id = ? GROUP BY call_key", (line["debate_id"],)
                ).fetchall()
            )
            assert rows["r1/judge-1"] == rows["r1/judge-2"] == 1  # answered before the outage: replayed, not re-asked
            assert rows["r1/judge-3"] == 2  # the failed attempt, then the answer
            seats = {
                s for (s,) in con.execute("SELECT DISTINCT seat FROM calls WHERE debate_id = ?", (line["debate_id"],))
            }
            assert seats == {"judge-1", "judge-2", "judge-3"}
            status = con.execute("SELECT status FROM debates WHERE id = ?", (line["debate_id"],)).fetchone()
            assert status == ("finished",)

    text = main(["batch", str(items), "--protocol", "evaluate", "--judges", str(judges), "--no-progress"])
    assert text == 0 and "degraded" not in capsys.readouterr().out


def test_the_summary_text_shows_degraded_items_and_failed_attempts_apart() -> None:
    from moot.batch.summary import Ended, summarize, summary_text
    from moot.store.batches import SpendTotals

    ended = {"a": Ended("done", "PASS"), "b": Ended("done", "PASS", degraded=True), "c": Ended("failed", error="x")}
    s = summarize(
        {"batch_id": "batch-1", "protocol": "evaluate", "status": "finished", "results": "r.jsonl"},
        ["a", "b", "c"],
        ended,
        SpendTotals(calls=5, tokens=10, cost=0.0, failed_attempts=2),
        1.0,
    )
    text = summary_text(s)
    assert "3 items: 1 done, 1 degraded, 1 failed" in text
    assert "5 calls (+2 failed attempts, not paid)" in text
    assert "degraded (a judge dropped after a failed call): b" in text
    assert s.distribution == {"PASS": 2}


def test_a_single_debate_s_dropped_judge_is_asked_again_with_resume_retry_dropped(
    llm_server: FakeLLMServer, tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    outage = Outage()
    llm_server.responder = outage
    judges = judges_for("evaluate", tmp_path, llm_server)
    solution = tmp_path / "f.py"
    solution.write_text(item("evaluate", 1)["artifact"], encoding="utf-8")
    args = ["--solution", str(solution), "--task", "add 1", "--criteria", item("evaluate", 1)["criteria"]]
    code = main(["evaluate", *args, "--judges", str(judges), "--format", "json", "--no-progress"])
    assert code == 0, capsys.readouterr().err
    debate_id = json.loads(capsys.readouterr().out)["debate_id"]

    assert main(["resume", debate_id]) == 2
    err = capsys.readouterr().err
    assert "already finished, without the judge of 1 failed call(s) (r1/judge-3)" in err
    assert f"'moot resume {debate_id} --retry-dropped' asks them again" in err

    outage.down = False
    sent = len(llm_server.requests)
    assert main(["resume", debate_id, "--retry-dropped", "--format", "json", "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["debate_id"] == debate_id
    asked = [r.model for r in llm_server.requests[sent:]]
    assert asked.count("ev-against") >= 1
    with sqlite3.connect(isolated_home / "moot.db") as con:
        counts = dict(
            con.execute("SELECT call_key, COUNT(*) FROM calls WHERE debate_id = ? GROUP BY call_key", (debate_id,))
        )
        assert counts["r1/judge-1"] == counts["r1/judge-2"] == 1 and counts["r1/judge-3"] == 2
    assert main(["resume", debate_id]) == 2
    assert "already finished: use 'moot show" in capsys.readouterr().err

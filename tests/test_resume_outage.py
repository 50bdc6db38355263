"""A debate that died because a vendor was down (5xx, connection refused) finishes on `moot resume` once the
vendor is back, or with `--judges` pointing the failed judges elsewhere: only the calls that had not
completed are sent, and every failed attempt stays in the store as history."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.cli.app import main
from moot.store import Store
from moot.store.migrations import MIGRATIONS
from moot.testing import FakeLLMServer, Reply

from .challenge_helpers import opening, verdict
from .challenge_helpers import write_judges as write_challenge_judges
from .replies import CRITERIA, round1, round2
from .test_decide_support import MODELS, question_args, r1

NO_RETRY = {"max_retries": 0}
DOWN = Reply(status=503)


def dead_url() -> str:
    """An endpoint nobody listens on: connection refused."""
    with FakeLLMServer() as gone:
        url = gone.base_url
    return url


def write_judges(path: Path, judges: list[dict[str, Any]], **extra: Any) -> Path:
    path.write_text(yaml.safe_dump({"debate_judges": judges, "retry": NO_RETRY, **extra}, sort_keys=False))
    return path


def evaluate_judges(path: Path, bases: list[str], models: tuple[str, ...] = ("judge-a", "judge-b", "judge-c")) -> Path:
    stances = ("neutral", "for", "against")
    return write_judges(
        path, [{"model": m, "stance": s, "api_base": b} for m, s, b in zip(models, stances, bases, strict=True)]
    )


def decide_judges(path: Path, bases: list[str], models: tuple[str, ...] = tuple(MODELS.values())) -> Path:
    return write_judges(
        path, [{"model": m, "stance": s, "api_base": b} for m, s, b in zip(models, MODELS, bases, strict=True)]
    )


def only_debate() -> str:
    (row,) = Store.open_default().list_debates()
    assert row.status == "failed", row
    return row.id


def evaluate_args(judges: Path, artifact: Path) -> list[str]:
    return ["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges), "--format", "json"]


def asked(server: FakeLLMServer, since: int = 0) -> list[str]:
    return sorted(r.model for r in server.requests[since:])


# ---------------------------------------------------------------- evaluate


def test_evaluate_outage_then_resume_asks_only_what_failed(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = llm_server.base_url
    judges = evaluate_judges(tmp_path / "j.yaml", [base, base, base])
    llm_server.script("judge-a", round1(4.0, 4))
    llm_server.script("judge-b", DOWN)
    llm_server.script("judge-c", DOWN)
    assert main(evaluate_args(judges, artifact)) == 3
    capsys.readouterr()
    debate_id = only_debate()
    before = len(llm_server.requests)

    # the vendor is back
    llm_server.script("judge-b", round1(4.2, 4))
    llm_server.script("judge-c", round1(4.1, 4))
    assert main(["resume", debate_id, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["consensus_reached"] and out["rounds_completed"] == 1
    assert asked(llm_server, before) == ["judge-b", "judge-c"]  # judge-a's completed call was replayed
    assert out["spend"]["judge_calls"] == 3  # a failure asked again is not counted twice

    # the failures stay in the store as history, numbered; `moot show --calls` lists them
    history = [(c.call_key, c.attempt, c.status) for c in Store.open_default().attempts(debate_id)]
    assert sorted(history) == [
        ("r1/judge-1", 1, "ok"),
        ("r1/judge-2", 1, "error"),
        ("r1/judge-2", 2, "ok"),
        ("r1/judge-3", 1, "error"),
        ("r1/judge-3", 2, "ok"),
    ]
    assert main(["show", debate_id, "--calls", "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)["calls"]
    assert sorted((c["call_key"], c["attempt"], c["status"]) for c in shown) == sorted(history)


@pytest.mark.parametrize(("scores", "code"), [((3.0, 3.1, 3.0), 1), ((4.8, 4.9, 4.8), 0)])
def test_a_resumed_debate_applies_the_gate_and_report_it_was_started_with(
    llm_server: FakeLLMServer,
    artifact: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    scores: tuple[float, float, float],
    code: int,
) -> None:
    """`--fail-under` given to the run that died holds for `moot resume` that finishes it: a verdict below it
    exits 1 with the gate's reason, as the one-shot run does (not 0), and the `--html` report is written."""
    base = llm_server.base_url
    judges = evaluate_judges(tmp_path / "j.yaml", [base, base, base])
    report = tmp_path / "report.html"
    llm_server.script("judge-a", round1(scores[0], int(scores[0])))
    llm_server.script("judge-b", DOWN)
    llm_server.script("judge-c", DOWN)
    assert main([*evaluate_args(judges, artifact), "--fail-under", "4.5", "--html", str(report)]) == 3
    capsys.readouterr()
    assert not report.exists()
    llm_server.script("judge-b", round1(scores[1], int(scores[1])))
    llm_server.script("judge-c", round1(scores[2], int(scores[2])))
    assert main(["resume", only_debate(), "--format", "json"]) == code
    out, err = capsys.readouterr()
    assert json.loads(out)["rounds_completed"] == 1
    assert ("gate failed" in err) == (code == 1) and (code == 0 or "4.5" in err)
    assert report.is_file() and "<html" in report.read_text(encoding="utf-8").lower()


def test_evaluate_resume_with_judges_pointing_at_a_new_endpoint(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dead = dead_url()
    first = evaluate_judges(tmp_path / "j.yaml", [llm_server.base_url, dead, dead])
    llm_server.script("judge-a", round1(4.0, 4))
    assert main(evaluate_args(first, artifact)) == 3
    capsys.readouterr()
    debate_id = only_debate()

    # the two failed seats move: one to another server, the other also to another model name
    with FakeLLMServer() as elsewhere:
        elsewhere.script("judge-b", round1(4.2, 4))
        elsewhere.script("judge-c2", round1(4.1, 4))
        moved = evaluate_judges(
            tmp_path / "moved.yaml",
            [llm_server.base_url, elsewhere.base_url, elsewhere.base_url],
            ("judge-a", "judge-b", "judge-c2"),
        )
        assert main(["resume", debate_id, "--judges", str(moved), "--format", "json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert asked(elsewhere) == ["judge-b", "judge-c2"]
    assert asked(llm_server) == ["judge-a"]  # asked once, in the first run
    assert out["consensus_reached"]
    assert [(j["judge"], j["answered_by"]) for j in out["judges"]] == [
        ("judge-1", "judge-a"),
        ("judge-2", "judge-b"),
        ("judge-3", "judge-c2"),
    ]


def test_a_completed_call_whose_question_changed_is_asked_again(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """judge-3 failed in round 1 and the debate went on without it until judge-2 failed too. On resume
    judge-3 answers round 1, so judge-1's round-2 prompt now quotes it: its stored round-2 reply answered
    another question and is not replayed."""
    base = llm_server.base_url
    judges = evaluate_judges(tmp_path / "j.yaml", [base, base, base])
    llm_server.script("judge-a", round1(3.0, 3), round2(3.2))
    llm_server.script("judge-b", round1(4.5, 4), DOWN)
    llm_server.script("judge-c", DOWN)
    assert main(evaluate_args(judges, artifact)) == 3
    capsys.readouterr()
    debate_id = only_debate()
    before = len(llm_server.requests)

    llm_server.script("judge-a", round2(4.3))
    llm_server.script("judge-b", round2(4.4))
    llm_server.script("judge-c", round1(4.4, 4), round2(4.4))
    assert main(["resume", debate_id, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    again = llm_server.requests[before:]
    assert sorted(r.model for r in again) == ["judge-a", "judge-b", "judge-c", "judge-c"]
    (a_round2,) = [r for r in again if r.model == "judge-a"]
    # judge-3's round-1 report is now among those judge-1 reads (reports go by letter: judge-3 is C)
    assert 'judge="C"' in a_round2.body["messages"][-1]["content"]
    assert out["rounds_completed"] == 2 and out["consensus_reached"]
    # both of judge-1's round-2 replies were paid for, so both count; the two failures asked again do not
    assert out["spend"]["judge_calls"] == 7


# ---------------------------------------------------------------- decide


def test_decide_outage_then_resume_asks_only_what_failed(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = llm_server.base_url
    judges = decide_judges(tmp_path / "j.yaml", [base, base, base])
    llm_server.script("risk-m", r1("A"))
    llm_server.script("value-m", DOWN)
    llm_server.script("effort-m", DOWN)
    argv = [*question_args(judges), "--format", "json", "--no-input", "--no-files"]
    assert main(argv) == 3
    capsys.readouterr()
    debate_id = only_debate()
    before = len(llm_server.requests)

    llm_server.script("value-m", r1("A"))
    llm_server.script("effort-m", r1("A"))
    assert main(["resume", debate_id, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["outcome"] == "RECOMMENDED" and out["recommended_option"] == "A"
    assert asked(llm_server, before) == ["effort-m", "value-m"]
    assert out["spend"]["judge_calls"] == 3
    assert out["judges"][1]["status"] == "ok"  # the judge dropped by the outage is back in the debate


def test_decide_resume_with_judges_pointing_at_a_new_endpoint(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dead = dead_url()
    first = decide_judges(tmp_path / "j.yaml", [llm_server.base_url, dead, dead])
    llm_server.script("risk-m", r1("A"))
    assert main([*question_args(first), "--format", "json", "--no-input", "--no-files"]) == 3
    capsys.readouterr()
    debate_id = only_debate()

    with FakeLLMServer() as elsewhere:
        elsewhere.script("value-m", r1("A"))
        elsewhere.script("effort-m2", r1("B"))
        moved = decide_judges(
            tmp_path / "moved.yaml",
            [llm_server.base_url, elsewhere.base_url, elsewhere.base_url],
            ("risk-m", "value-m", "effort-m2"),
        )
        assert main(["resume", debate_id, "--judges", str(moved), "--format", "json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert asked(elsewhere) == ["effort-m2", "value-m"]
    assert asked(llm_server) == ["risk-m"]
    assert out["recommended_option"] == "A"
    assert [(j["judge"], j["answered_by"]) for j in out["judges"]] == [
        ("risk", "risk-m"),
        ("value", "value-m"),
        ("effort", "effort-m2"),
    ]


# ---------------------------------------------------------------- the store


def test_shipped_migrations_are_never_edited() -> None:
    """A database migrated by an older moot ran these exact scripts; the text is pinned so that a tidy-up of
    how they are written cannot change what they do."""
    shipped = ["98b0722748a4aa61", "db5941b12f7da56f"]
    assert [hashlib.sha256(m.encode()).hexdigest()[:16] for m in MIGRATIONS][: len(shipped)] == shipped


def test_a_store_from_before_attempts_is_migrated_and_replays_only_completed_calls(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:
        db.executescript(f"{MIGRATIONS[0]}; PRAGMA user_version = 1;")
        db.execute(
            "INSERT INTO debates (id, protocol, status, request_json, created_at, updated_at)"
            " VALUES ('d', 'evaluate', 'failed', '{}', 't', 't')"
        )
        for key, status, cost in (("r1/judge-1", "ok", 0.25), ("r1/judge-2", "error", 0.0)):
            db.execute(
                "INSERT INTO calls (debate_id, call_key, round, seat, kind, model, prompt_json, status, cost_usd,"
                " started_at, finished_at) VALUES ('d', ?, 1, ?, 'judge', 'm', '{}', ?, ?, 't', 't')",
                (key, key[3:], status, cost),
            )
    store = Store(path)
    assert store.find_call("d", "r1/judge-2") is None  # a failure is never replayed
    done = store.find_call("d", "r1/judge-1")
    assert done is not None and done.attempt == 1
    retry = store.attempts("d")[1]
    retry.status, retry.cost_usd = "ok", 0.5
    store.record_call(retry)
    again = store.find_call("d", "r1/judge-2")
    assert again is not None and again.attempt == 2
    assert [(c.call_key, c.attempt) for c in store.calls("d")] == [("r1/judge-1", 1), ("r1/judge-2", 2)]
    assert len(store.attempts("d")) == 3
    store.close()


# ---------------------------------------------------------------- challenge


def test_challenge_resume_with_challengers_pointing_at_a_new_endpoint(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dead = dead_url()
    prop = {"model": "prop", "api_base": llm_server.base_url}
    first = write_challenge_judges(
        tmp_path / "j.yaml", prop, [{"model": m, "api_base": dead} for m in ("ch-a", "ch-b")], retry=NO_RETRY
    )
    llm_server.script("prop", opening())
    assert main(["challenge", "Shard orders?", "--judges", str(first), "--format", "json"]) == 3
    capsys.readouterr()
    debate_id = only_debate()

    with FakeLLMServer() as elsewhere:
        elsewhere.script("ch-a", verdict("agree", "minor"))
        elsewhere.script("ch-b", verdict("agree", "minor"))
        moved = write_challenge_judges(
            tmp_path / "moved.yaml", prop, [{"model": m, "api_base": elsewhere.base_url} for m in ("ch-a", "ch-b")]
        )
        assert main(["resume", debate_id, "--judges", str(moved), "--format", "json"]) == 0
        out = json.loads(capsys.readouterr().out)
        assert asked(elsewhere) == ["ch-a", "ch-b"]
    assert asked(llm_server) == ["prop"]  # the opening was replayed
    assert out["outcome"] == "CONSENSUS"

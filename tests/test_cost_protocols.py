"""Cost controls on `moot decide` and `moot challenge`, and in the Python API and `moot resume`: the dry
run's call counts are the calls a debate then makes, `--max-cost` / `max_cost` stop a debate before a
round that could cross the cap (the result says so), and a resumed debate keeps its cap."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot import api
from moot.cli.app import main
from moot.store import Store
from moot.testing import FakeLLMServer, Reply

from .challenge_helpers import confront, opening, rebuttal, verdict, write_judges
from .replies import CRITERIA, round1
from .test_decide_support import MODELS, decide_judges, question_args, r1, r2

# output at $10 per million tokens, input free: a reply of 1000 output tokens costs $0.01; with
# max_tokens 1000 a call's worst case (with its clarification) is $0.02
PRICE = {"input_per_mtok": 0, "output_per_mtok": 10}
TOPIC = "Should we shard the orders table by customer id?"


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any], str]:
    code = main([*argv, "--format", "json"])
    cap = capsys.readouterr()
    return code, (json.loads(cap.out) if cap.out.strip() else {}), cap.err


def bounded(path: Path, *seats: str) -> Path:
    """Give every judge (or the named seats) max_tokens 1000, so that the worst case is a real bound."""
    data = yaml.safe_load(path.read_text())
    for key in seats or ("debate_judges",):
        entries = data[key] if isinstance(data[key], list) else [data[key]]
        for entry in entries:
            entry["max_tokens"] = 1000
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def priced_decide_judges(tmp_path: Path, server: FakeLLMServer) -> Path:
    path = decide_judges(tmp_path, server, extra={"pricing": {m: PRICE for m in MODELS.values()}})
    return bounded(path)


# decide


def test_decide_dry_run_prints_the_table_and_sends_nothing(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([*question_args(priced_decide_judges(tmp_path, llm_server)), "--dry-run"])
    out = capsys.readouterr().out
    assert code == 0 and llm_server.requests == [] and not Path(".specs").exists()
    assert "| Round 1 consensus | 1 | 3 (+ up to 3 clarifications) |" in out
    assert "| Round 2 (max) | 2 | 6 (+ up to 6 clarifications) |" in out
    assert "Dry run: nothing was sent. 3 judges, up to 2 round(s)" in out
    assert Store.open_default().list_debates() == []


@pytest.mark.parametrize("rounds", [1, 2])
def test_decide_dry_run_call_counts_are_the_calls_made(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], rounds: int
) -> None:
    judges = priced_decide_judges(tmp_path, llm_server)
    _, estimate, _ = run_json(capsys, *question_args(judges), "--dry-run")
    assert estimate["protocol"] == "decide" and estimate["rounds_allowed"] == 2
    if rounds == 1:  # two of three on C: consensus in round 1
        llm_server.script("risk-m", r1("C"))
        llm_server.script("value-m", r1("B"))
        llm_server.script("effort-m", r1("C"))
    else:  # a three-way split that stays split: contested after round 2
        llm_server.script("risk-m", r1("A"), r2("A", challenge={"value": "guess"}))
        llm_server.script("value-m", r1("B"), r2("B", challenge={"risk": "timid"}))
        llm_server.script("effort-m", r1("C"), r2("C", challenge={"risk": "slow"}))
    code, out, _ = run_json(capsys, *question_args(judges), "--no-input")
    assert code == 0 and out["rounds_completed"] == rounds
    assert out["consensus"] is (rounds == 1)
    assert out["status"] == "finished"  # ended by its own rules, not by the budget
    row = estimate["scenarios"][rounds - 1]
    assert row["rounds"] == rounds and row["calls"] == len(llm_server.requests) == out["spend"]["judge_calls"]
    planned = sorted((c["round"], c["seat"]) for c in estimate["calls"] if c["round"] <= rounds)
    assert planned == sorted((r, s) for r in range(1, rounds + 1) for s in ("risk", "value", "effort"))
    # round 2 prompts carry every round-1 reply (on a local server, a typical one is 40% of the 768-token default
    # bound): their estimate is larger
    r1_call, r2_call = estimate["calls"][0], estimate["calls"][3]
    assert r2_call["input_tokens"] > r1_call["input_tokens"] + 2 * 300


def test_decide_max_cost_stops_before_round_2_and_says_so(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # round 1: worst $0.06 fits $0.08; it spends $0.03; round 2: 0.03 + 0.06 could cross it
    for model, rec in zip(MODELS.values(), "ABC", strict=True):
        llm_server.script(model, Reply(text=r1(rec), output_tokens=1000), r2(rec))
    judges = priced_decide_judges(tmp_path, llm_server)
    code, out, _ = run_json(capsys, *question_args(judges), "--no-input", "--max-cost", "0.08")
    assert code == 0
    assert len(llm_server.requests) == 3 and out["rounds_completed"] == 1
    assert out["consensus"] is False and out["outcome"] == "CONTESTED"
    assert out["spend"]["cost_usd"] == pytest.approx(0.03)
    assert any("stopped before round 2" in n and "--max-cost $0.08" in n for n in out["notes"])
    assert out["status"] == "stopped"  # the envelope says the budget ended it
    assert all(r.body["max_tokens"] == 1000 for r in llm_server.requests)
    # without the cap the same debate goes on to round 2
    assert all(llm_server.remaining(m) == 1 for m in MODELS.values())


def test_decide_bad_max_cost_and_unpriced_models_are_usage_errors(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for value in ("0", "-2"):
        code, _, err = run_json(capsys, *question_args(priced_decide_judges(tmp_path, llm_server)), "--max-cost", value)
        assert code == 2 and err.startswith("moot: error: --max-cost must be a positive number")
    remote = decide_judges(tmp_path, llm_server)  # on another machine: a server on this one costs $0
    remote.write_text(remote.read_text().replace(llm_server.base_url, "http://gpu-box.invalid:8000/v1"))
    code, _, err = run_json(capsys, *question_args(remote), "--max-cost", "1")
    assert code == 2 and "--max-cost needs a price for effort-m, risk-m, value-m" in err
    code = main([*question_args(decide_judges(tmp_path, llm_server)), "--max-cost", "lots"])
    assert code == 2
    assert llm_server.requests == []


# challenge


def challenge_judges(tmp_path: Path, server: FakeLLMServer, **extra: Any) -> Path:
    models = ["prop", "ch-a", "ch-b"]
    judge = [{"model": m, "api_base": server.base_url, "max_tokens": 1000} for m in models]
    return write_judges(tmp_path / "challenge.yaml", judge[0], judge[1:], pricing={m: PRICE for m in models}, **extra)


def test_challenge_dry_run_counts_a_fast_exit(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judges = challenge_judges(tmp_path, llm_server, max_rounds=3)
    code = main(["challenge", TOPIC, "--judges", str(judges), "--dry-run"])
    text = capsys.readouterr().out
    assert code == 0 and llm_server.requests == []
    assert "| Fast exit | 1 | 3 (+ up to 3 clarifications) |" in text
    assert "| Round 1 consensus | 1 | 6 " in text and "| Round 2 consensus | 2 | 9 " in text
    # three rounds of 3 calls after the opening and challenges, then 3 assumption statements
    assert "| Round 3 (max), tradeoff | 3 | 15 " in text
    assert "round 1 opening" in text and "final assumptions" in text
    _, estimate, _ = run_json(capsys, "challenge", TOPIC, "--judges", str(judges), "--dry-run")
    llm_server.script("prop", opening())
    llm_server.script("ch-a", verdict("agree", "minor"))
    llm_server.script("ch-b", verdict("agree", "minor"))
    code, out, _ = run_json(capsys, "challenge", TOPIC, "--judges", str(judges))
    assert code == 0 and out["fast_exit"] is True
    fast = estimate["scenarios"][0]
    assert fast["label"] == "Fast exit" and fast["calls"] == len(llm_server.requests) == out["spend"]["calls"] == 3


def test_challenge_dry_run_leaves_out_an_unusable_challenger_and_says_so(
    llm_server: FakeLLMServer, agents: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judges = challenge_judges(tmp_path, llm_server)
    data = yaml.safe_load(judges.read_text())
    data["challengers"].append({"cli": "qwen"})  # not on PATH here
    judges.write_text(yaml.safe_dump(data))
    code = main(["challenge", TOPIC, "--judges", str(judges), "--dry-run", "--max-rounds", "1"])
    text = capsys.readouterr().out
    assert code == 0 and llm_server.requests == []
    assert "Skipped, not usable here: challenger-3 (qwen)" in text
    assert "| Fast exit | 1 | 3 " in text and "challenger-3" not in text.split("Calls per round")[1]


def test_challenge_dry_run_counts_a_confrontation_round(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judges = challenge_judges(tmp_path, llm_server)
    _, estimate, _ = run_json(capsys, "challenge", TOPIC, "--judges", str(judges), "--dry-run")
    assert estimate["protocol"] == "challenge" and estimate["rounds_allowed"] == 5
    llm_server.script("prop", opening(), confront({"O1": "ACCEPT", "O2": "PARTIAL"}, "Shard, with a replica"))
    llm_server.script("ch-a", verdict("disagree"), rebuttal("ACCEPT"))
    llm_server.script("ch-b", verdict("partial"), rebuttal("ACCEPT"))
    code, out, _ = run_json(capsys, "challenge", TOPIC, "--judges", str(judges))
    assert code == 0 and out["outcome"] == "CONSENSUS" and out["fast_exit"] is False and out["rounds"] == 1
    row = next(s for s in estimate["scenarios"] if s["label"] == "Round 1 consensus")
    assert row["calls"] == len(llm_server.requests) == out["spend"]["calls"] == 6
    made = sorted(json.loads(c.prompt_json)["meta"]["kind"] for c in Store.open_default().calls(out["debate_id"]))
    planned = sorted(c["phase"] for c in estimate["calls"] if c["round"] == 1)
    assert planned == ["challenge", "challenge", "confrontation", "opening", "rebuttal", "rebuttal"]
    assert made == ["challenge", "challenge", "confront", "opening", "rebuttal", "rebuttal"]


def test_challenge_max_cost_stops_before_the_confrontation(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # opening + 2 challenges: worst $0.06 fits $0.08, spends $0.03; the confrontation (3 calls) could not
    llm_server.script("prop", Reply(text=opening(), output_tokens=1000), confront({}, "unused"))
    llm_server.script("ch-a", Reply(text=verdict("disagree"), output_tokens=1000))
    llm_server.script("ch-b", Reply(text=verdict("partial"), output_tokens=1000))
    judges = challenge_judges(tmp_path, llm_server)
    code, out, _ = run_json(capsys, "challenge", TOPIC, "--judges", str(judges), "--max-cost", "0.08")
    assert code == 0
    assert len(llm_server.requests) == 3 and llm_server.remaining("prop") == 1
    assert out["outcome"] == "TRADEOFF" and out["spend"]["cost_usd"] == pytest.approx(0.03)
    assert any("--max-cost $0.08" in n for n in out["notes"])
    assert out["status"] == "stopped"
    code, _, err = run_json(capsys, "challenge", TOPIC, "--judges", str(judges), "--max-cost", "0")
    assert code == 2 and "--max-cost must be a positive number" in err


# the Python API


def test_api_max_cost_caps_every_protocol(
    llm_server: FakeLLMServer, tmp_path: Path, judges_file: Any, artifact: Path
) -> None:
    for model, rec in zip(MODELS.values(), "ABC", strict=True):
        llm_server.script(model, Reply(text=r1(rec), output_tokens=1000))
    decision = api.decide_sync(
        debate_context=None,
        question="Should the mobile app support offline mode?",
        options=["A=Online only", "B=Full offline", "C=Limited offline"],
        judges=priced_decide_judges(tmp_path, llm_server),
        write_files=False,
        max_cost=0.08,
    )
    assert decision.rounds_completed == 1 and any("stopped before round 2" in n for n in decision.notes)
    assert decision.status == "stopped"

    llm_server.script("prop", Reply(text=opening(), output_tokens=1000))
    llm_server.script("ch-a", Reply(text=verdict("disagree"), output_tokens=1000))
    llm_server.script("ch-b", Reply(text=verdict("disagree"), output_tokens=1000))
    outcome = api.challenge_sync(TOPIC, judges=challenge_judges(tmp_path, llm_server), max_cost=0.08)
    assert outcome.outcome == "TRADEOFF" and any("--max-cost" in n for n in outcome.notes)

    models = ["judge-a", "judge-b", "judge-c"]
    evaluation_judges = bounded(judges_file(pricing={m: PRICE for m in models}))
    with pytest.raises(Exception, match="stopped before round 1"):
        api.evaluate_sync(str(artifact), criteria=CRITERIA, judges=evaluation_judges, reports_dir=None, max_cost=0.01)
    for m in models:
        llm_server.script(m, round1(4.0, 4))
    result = api.evaluate_sync(str(artifact), criteria=CRITERIA, judges=evaluation_judges, reports_dir=None, max_cost=1)
    assert result.rounds_completed == 1
    from moot.errors import UsageError

    with pytest.raises(UsageError, match="max_cost must be a positive number"):
        api.decide_sync("Q?", ["A=a", "B=b"], judges=priced_decide_judges(tmp_path, llm_server), max_cost=-1)


# resume


async def _interrupted_decision(judges: Path, db: Path) -> str:
    """Start a capped decision, and cancel it once two of round 1's three calls are in the store."""
    store = Store(db)
    task = asyncio.create_task(
        api.decide(
            "Should the mobile app support offline mode?",
            ["A=Online only", "B=Full offline", "C=Limited offline"],
            judges=judges,
            write_files=False,
            store=store,
            max_cost=0.08,
        )
    )
    for _ in range(400):
        await asyncio.sleep(0.025)
        with sqlite3.connect(db) as c:
            if c.execute("SELECT COUNT(*) FROM calls").fetchone()[0] >= 2:
                break
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    with sqlite3.connect(db) as c:
        return str(c.execute("SELECT id FROM debates").fetchone()[0])


def test_resumed_debate_keeps_its_cap(
    llm_server: FakeLLMServer, tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("risk-m", Reply(text=r1("A"), output_tokens=1000), r2("A"))
    llm_server.script("value-m", Reply(text=r1("B"), output_tokens=1000), r2("B"))
    llm_server.script("effort-m", Reply(text=r1("C"), output_tokens=1000, delay=30))
    judges = priced_decide_judges(tmp_path, llm_server)
    isolated_home.mkdir(parents=True, exist_ok=True)
    debate_id = asyncio.run(_interrupted_decision(judges, isolated_home / "moot.db"))
    row = Store.open_default().get_debate(debate_id)
    assert row is not None and row.status == "interrupted"
    assert row.request["run_budget"] == {"max_cost_usd": 0.08, "wall_seconds": None}
    assert row.request["run_pricing"]["risk-m"]["output_per_mtok"] == 10  # so that the cap can be kept

    llm_server.script("effort-m", Reply(text=r1("C"), output_tokens=1000), r2("C"))
    code, out, err = run_json(capsys, "resume", debate_id)
    assert code == 0, err
    # round 1 finished (two calls replayed, one made); round 2's worst case would cross the stored cap
    assert out["rounds_completed"] == 1 and any("stopped before round 2" in n for n in out["notes"])
    assert len(llm_server.calls_for("risk-m")) == 1 and len(llm_server.calls_for("effort-m")) == 2
    assert out["spend"]["cost_usd"] == pytest.approx(0.03)


def test_resume_with_a_new_max_cost_replaces_the_stored_cap(
    llm_server: FakeLLMServer, tmp_path: Path, isolated_home: Path
) -> None:
    llm_server.script("risk-m", Reply(text=r1("A"), output_tokens=1000), r2("A", challenge={"value": "guess"}))
    llm_server.script("value-m", Reply(text=r1("B"), output_tokens=1000), r2("B", challenge={"risk": "timid"}))
    llm_server.script("effort-m", Reply(text=r1("C"), output_tokens=1000, delay=30))
    judges = priced_decide_judges(tmp_path, llm_server)
    isolated_home.mkdir(parents=True, exist_ok=True)
    debate_id = asyncio.run(_interrupted_decision(judges, isolated_home / "moot.db"))
    llm_server.script("effort-m", Reply(text=r1("C"), output_tokens=1000), r2("C", challenge={"risk": "slow"}))
    result = api.resume_sync(debate_id, max_cost=1.0)
    assert getattr(result, "rounds_completed") == 2  # noqa: B009 - resume returns any protocol's result
    assert len(llm_server.calls_for("risk-m")) == 2


def test_resume_cli_takes_a_new_max_cost(
    llm_server: FakeLLMServer, tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("risk-m", Reply(text=r1("A"), output_tokens=1000), r2("A", challenge={"value": "guess"}))
    llm_server.script("value-m", Reply(text=r1("B"), output_tokens=1000), r2("B", challenge={"risk": "timid"}))
    llm_server.script("effort-m", Reply(text=r1("C"), output_tokens=1000, delay=30))
    judges = priced_decide_judges(tmp_path, llm_server)
    isolated_home.mkdir(parents=True, exist_ok=True)
    debate_id = asyncio.run(_interrupted_decision(judges, isolated_home / "moot.db"))
    llm_server.script("effort-m", Reply(text=r1("C"), output_tokens=1000), r2("C", challenge={"risk": "slow"}))
    code, out, err = run_json(capsys, "resume", debate_id, "--max-cost", "1.0")
    assert code == 0, err
    assert out["rounds_completed"] == 2 and len(llm_server.calls_for("risk-m")) == 2

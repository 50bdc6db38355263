"""Output bounds and context windows of local judges, checked before any call (tests/test_local_model.py
runs the same on the real model): a `max_tokens` below what a protocol's reply schemas need is exit 2
naming the judge and the minimum, in the run and in `--dry-run`; a step whose real prompt outgrows the
context window mid-debate is a resumable stop with its own exit code (4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.cli.app import main
from moot.testing import FakeLLMServer, Reply

from .replies import CRITERIA, round1, round2


def write_judges(tmp_path: Path, server: FakeLLMServer, stances: bool = True, **extra: Any) -> Path:
    judges = [
        {"model": m, **({"stance": s} if stances else {}), "api_base": server.base_url, **extra}
        for m, s in (("judge-a", "neutral"), ("judge-b", "for"), ("judge-c", "against"))
    ]
    path = tmp_path / "judges.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": judges}), encoding="utf-8")
    return path


def evaluate_args(artifact: Path, judges: Path) -> list[str]:
    return ["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges), "--format", "json"]


def test_a_max_tokens_below_the_schemas_minimum_is_refused_before_any_call_and_by_the_dry_run(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judges = write_judges(tmp_path, llm_server, max_tokens=400)  # the docs' old recipe: cut in round 2
    assert main(evaluate_args(artifact, judges)) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("moot: error: judge 'judge-a' (judge-1): max_tokens 400 is below the ")
    minimum = int(err.split("below the ")[1].split()[0])
    assert 400 < minimum <= 640 and f"set max_tokens: {minimum} or more" in err
    assert llm_server.requests == []
    assert main([*evaluate_args(artifact, judges), "--dry-run"]) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == err
    # at the minimum the run goes ahead
    judges = write_judges(tmp_path, llm_server, max_tokens=minimum)
    for m, score in (("judge-a", 4.0), ("judge-b", 4.0), ("judge-c", 4.0)):
        llm_server.script(m, round1(score, int(score)))
    assert main(evaluate_args(artifact, judges)) == 0


def test_decide_and_challenge_take_smaller_bounds_than_evaluate(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judges = write_judges(tmp_path, llm_server, False, max_tokens=320)
    decide = ["decide", "-q", "Which?", "-o", "A=one", "-o", "B=two", "--judges", str(judges), "--dry-run"]
    assert main([*decide, "--format", "json", "--no-input"]) == 0
    capsys.readouterr()
    judges = write_judges(tmp_path, llm_server, False, max_tokens=100)
    assert main([*decide, "--no-input"]) == 2
    assert "max_tokens 100 is below the" in capsys.readouterr().err
    assert llm_server.requests == []


def test_a_step_that_outgrows_the_context_window_mid_debate_is_a_resumable_stop_with_exit_4(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bound = 700
    judges = write_judges(tmp_path, llm_server, max_tokens=bound, context_tokens=100_000)
    assert main([*evaluate_args(artifact, judges), "--dry-run"]) == 0
    estimate = json.loads(capsys.readouterr().out)
    largest = max(c["input_tokens"] for c in estimate["calls"] if c["round"] <= 2)
    # a window the estimate fits; then round 1's replies are far longer than a typical reply
    judges = write_judges(tmp_path, llm_server, max_tokens=bound, context_tokens=largest + bound + 50)
    long_claim = "a long argument " * 2000
    for m, score in (("judge-a", 2.0), ("judge-b", 4.5), ("judge-c", 3.0)):
        llm_server.script(m, round1(score, int(score)).replace("Score", long_claim), round2(3.0))
    assert main(evaluate_args(artifact, judges)) == 4
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "round 2 prompt is ~" in err and "continue with 'moot resume " in err
    assert len(llm_server.requests) == 3  # round 1 only: nothing of round 2 was sent
    debate_id = err.split("moot resume ")[1].rstrip("'")
    assert main(["show", debate_id, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "failed"


def test_a_reply_cut_at_its_bound_is_reported_as_cut_not_as_unreadable(
    llm_server: FakeLLMServer, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = Reply(text='{"overall_score": 4, "position_statement": "The code', finish_reason="length")
    llm_server.script("judge-a", cut, cut)
    for m, score in (("judge-b", 4.0), ("judge-c", 4.0)):
        llm_server.script(m, round1(score, int(score)))
    assert main(evaluate_args(artifact, write_judges(tmp_path, llm_server, max_tokens=700))) == 0
    result = json.loads(capsys.readouterr().out)
    [judge] = [j for j in result["judges"] if j["judge"] == "judge-1"]
    assert judge["status"] == "unparsed"
    assert "cut off at its output bound (finish_reason: length; raise max_tokens)" in judge["reason"]
    clarify = llm_server.calls_for("judge-a")[1].body["messages"][-1]["content"]
    assert "cut off at its output bound" in clarify  # the judge is told too


def test_doctor_flags_a_max_tokens_below_a_protocols_minimum_and_shows_the_default_bound(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "judges.yaml"
    entries = [
        {"model": "small", "api_base": "http://127.0.0.1:9/v1", "max_tokens": 400},
        {"model": "default", "api_base": "http://127.0.0.1:9/v1"},
    ]
    path.write_text(yaml.safe_dump({"debate_judges": entries}), encoding="utf-8")
    main(["doctor", "--judges", str(path), "--format", "json"])
    rows = {r["judge"]: r for r in json.loads(capsys.readouterr().out)["judges"]}
    assert rows["small"]["output_bound"] == "400 tokens (max_tokens)"
    short = rows["small"]["output_bound_short"]
    assert "evaluate's replies need" in short and "decide" not in short and "challenge" not in short
    assert rows["default"]["output_bound"] == "768 tokens (moot's default for a judge on a local server)"
    assert "output_bound_short" not in rows["default"]


def test_doctor_reports_the_servers_context_window_where_it_says_and_flags_one_too_small(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def props(server: FakeLLMServer, path: str, body: Any, headers: Any) -> tuple[int, dict[str, str], bytes]:
        return 200, {}, json.dumps({"default_generation_settings": {"n_ctx": 2048}}).encode()  # llama-server's

    llm_server.routes["/props"] = props
    path = tmp_path / "judges.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": [{"model": "m", "api_base": llm_server.base_url}]}))
    main(["doctor", "--judges", str(path), "--format", "json"])
    [row] = json.loads(capsys.readouterr().out)["judges"]
    assert row["context_window"].startswith("2048 tokens (the server's /props); too small: less than 4096")

    def models(server: FakeLLMServer, path: str, body: Any, headers: Any) -> tuple[int, dict[str, str], bytes]:
        return 200, {}, json.dumps({"data": [{"id": "m", "max_model_len": 32768}]}).encode()  # vLLM's

    llm_server.routes = {"/models": models}
    main(["doctor", "--judges", str(path)])
    assert "context window: 32768 tokens (the server's /v1/models)" in capsys.readouterr().out
    llm_server.routes = {}
    main(["doctor", "--judges", str(path), "--format", "json"])
    assert "context_window" not in json.loads(capsys.readouterr().out)["judges"][0]  # the server does not say

"""`moot evaluate` end to end: the CLI, the engine and the openai SDK against a real local HTTP server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from moot.cli.app import main
from moot.testing import FakeLLMServer, Reply

from .replies import CRITERIA, round1, round2, round3

FAST_RETRY = {"max_retries": 2, "base_delay": 0.01}


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    code = main(["evaluate", *args, "--format", "json"])
    out = capsys.readouterr().out
    return code, (json.loads(out) if out.strip() else {})


def base_args(artifact: Path, judges: Path) -> list[str]:
    return [
        "--solution",
        str(artifact),
        "--task",
        "Implement REST API",
        "--criteria",
        CRITERIA,
        "--judges",
        str(judges),
    ]


def test_round1_consensus_makes_three_calls(llm_server: FakeLLMServer, judges_file, artifact: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    llm_server.script("judge-a", round1(4.2, 4))
    llm_server.script("judge-b", round1(4.4, 4))
    llm_server.script("judge-c", round1(3.9, 4))
    code, out = run_json(capsys, *base_args(artifact, judges_file()))
    assert code == 0
    assert len(llm_server.requests) == 3
    assert out["consensus_reached"] is True and out["rounds_completed"] == 1
    assert out["summary"]["final_verdict"] == "PASS"
    assert out["summary"]["consensus_method"] == "unanimous"
    assert out["summary"]["consensus_score"] == 4.17
    assert out["verdict_type"] == "consensus"
    assert out["round_progression"]["round_1"] == {
        **out["round_progression"]["round_1"],
        "scores": [4.2, 4.4, 3.9],
        "range": 0.5,
        "consensus": True,
    }
    assert out["spend"]["calls"] == 3 and out["spend"]["judge_calls"] == 3
    assert [j["status"] for j in out["judges"]] == ["ok", "ok", "ok"]
    assert out["judges"][0]["final_scores"]["security"] == 4


def test_round2_consensus_after_rebuttal(
    llm_server: FakeLLMServer, judges_file, artifact: Path, capsys, tmp_path: Path
) -> None:  # type: ignore[no-untyped-def]
    llm_server.script("judge-a", round1(4.0, 4), round2(4.0))
    llm_server.script("judge-b", round1(4.8, 5), round2(4.3, {"security": 4, "design": 4}, as_json=True))
    llm_server.script(
        "judge-c",
        round1(3.0, 3),
        round2(3.9, {k: 4 for k in ["correctness", "design", "security", "performance", "docs"]}),
    )
    code, out = run_json(capsys, *base_args(artifact, judges_file()), "--reports-dir", str(tmp_path / "reports"))
    assert code == 0, out
    assert len(llm_server.requests) == 6
    assert out["rounds_completed"] == 2 and out["consensus_reached_at"] == 2
    assert out["round_progression"]["round_1"]["consensus"] is False
    assert out["round_progression"]["round_2"]["scores"] == [4.0, 4.3, 3.9]
    # each round records every judge's criterion scores; unscored ones carried over from round 1
    assert out["round_progression"]["round_2"]["dimension_scores"]["judge-2"] == {
        "correctness": 5,
        "design": 4,
        "security": 4,
        "performance": 5,
        "docs": 5,
    }
    # rebuttal prompts carry the other judges' latest positions under a letter, in the order recorded for the
    # judge (never its own again), after the round's instructions and template, and say which letter is its own
    r2_prompt = llm_server.calls_for("judge-a")[1].body["messages"][-1]["content"]
    order = out["report_orders"]["r2/judge-1"]
    assert sorted(order) == ["B", "C"]
    starts = [r2_prompt.index(f'<judge_report judge="{letter}"') for letter in order]
    assert starts == sorted(starts) and r2_prompt.count("<judge_report ") == 2
    assert r2_prompt.index("Reply in this template") < starts[0]
    assert r2_prompt.index('You are Judge 1, judge "A" to the others.') > r2_prompt.rindex("</judge_report>")
    # seed 003 report files: created in round 1, round 2 appended
    reports = sorted((tmp_path / "reports").glob("users-api-*.md"))
    assert [p.name.split(".", 1)[1] for p in reports] == ["1.md", "2.md", "3.md", "consensus.md"]
    text = reports[0].read_text()
    assert text.startswith("Done by Judge 1") and text.count("## Debate Round 2") == 1


def test_round3_majority_with_minority(llm_server: FakeLLMServer, judges_file, artifact: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    llm_server.script("judge-a", round1(3.6, 4), round2(3.5), round3(3.5))
    llm_server.script("judge-b", round1(4.3, 4), round2(3.9), round3(3.8))
    llm_server.script("judge-c", round1(2.8, 3), round2(3.0), round3(2.9))
    code, out = run_json(capsys, *base_args(artifact, judges_file()))
    assert code == 0
    assert len(llm_server.requests) == 9
    assert out["rounds_completed"] == 3 and out["consensus_reached"] is False
    assert out["verdict_type"] == "majority" and out["summary"]["consensus_method"] == "majority"
    assert out["majority_judges"] == ["judge-1", "judge-2"] and out["minority_judges"] == ["judge-3"]
    assert out["majority_score"] == 3.65 and out["minority_score"] == 2.9
    assert out["summary"]["final_verdict"] == "CONDITIONAL" and out["summary"]["confidence"] == "MEDIUM"
    assert "judge-3" in out["minority_opinion"]
    assert out["round_progression"]["round_3"]["majority_score"] == 3.65
    # the final round uses the seed's final-positions template
    assert "FINAL POSITIONS" in llm_server.calls_for("judge-c")[2].body["messages"][-1]["content"]


def test_forced_verdict_flags_for_human_review(llm_server: FakeLLMServer, judges_file, artifact: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    llm_server.script("judge-a", round1(1.5, 2), round2(1.5), round3(1.5))
    llm_server.script("judge-b", round1(3.0, 3), round2(3.0), round3(3.0))
    llm_server.script("judge-c", round1(4.5, 4), round2(4.5), round3(4.5))
    code, out = run_json(capsys, *base_args(artifact, judges_file()))
    assert code == 0
    assert out["summary"]["consensus_method"] == "forced" and out["verdict_type"] == "no_consensus"
    assert out["summary"]["consensus_score"] == 3.0 and out["summary"]["confidence"] == "LOW"
    assert out["user_attention_needed"][0]["issue"].startswith("no majority")


def test_critical_finding_accepted_by_all_caps_verdict(
    llm_server: FakeLLMServer, judges_file, artifact: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    llm_server.script("judge-a", round1(4.5, 5), round2(4.5, responses={"C1": "accept"}))
    llm_server.script("judge-b", round1(4.5, 5), round2(4.5, responses={"C1": "accept"}))
    llm_server.script("judge-c", round1(4.4, 5, critical=["DELETE has no auth"]), round2(4.4))
    code, out = run_json(capsys, *base_args(artifact, judges_file()))
    assert code == 0
    assert out["round_progression"]["round_1"]["consensus"] is False  # C1 not yet answered
    assert out["consensus_reached_at"] == 2
    assert out["summary"]["final_verdict"] == "CONDITIONAL"  # 4.47 would PASS, but C1 is accepted by all
    assert out["critical_findings"][0]["state"] == "agreed"
    assert out["recommendations"][0]["priority"] == "MUST"
    # round-2 prompts list the open finding for the judges who must answer it
    assert "C1 (raised by C)" in llm_server.calls_for("judge-a")[1].body["messages"][-1]["content"]


def test_parse_failure_gets_one_clarification(llm_server: FakeLLMServer, judges_file, artifact: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    llm_server.script("judge-a", "I like it a lot!", round1(4.0, 4))
    llm_server.script("judge-b", round1(4.0, 4))
    llm_server.script("judge-c", round1(4.0, 4))
    code, out = run_json(capsys, *base_args(artifact, judges_file()))
    assert code == 0 and out["consensus_reached"]
    assert out["spend"]["calls"] == 4 and out["spend"]["clarifications"] == 1
    clarify = llm_server.calls_for("judge-a")[1].body["messages"]
    assert clarify[-2]["role"] == "assistant" and clarify[-2]["content"] == "I like it a lot!"
    assert "no YAML or JSON block" in clarify[-1]["content"]


def test_judge_failing_clarification_is_dropped(llm_server: FakeLLMServer, judges_file, artifact: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    llm_server.script("judge-a", "nonsense", "still nonsense")
    llm_server.script("judge-b", round1(4.0, 4))
    llm_server.script("judge-c", round1(4.2, 4))
    code, out = run_json(capsys, *base_args(artifact, judges_file()))
    assert code == 0
    # its reply could not be read, even after a clarification: the envelope's "unparsed", and why
    assert out["judges"][0]["status"] == "unparsed" and out["judges"][0]["reason"].startswith("unparsed")
    assert out["judges"][0]["dropped_in_round"] == 1
    assert out["consensus_reached"] and out["round_progression"]["round_1"]["scores"] == [4.0, 4.2]
    assert any("judge-1" in n for n in out["notes"])


def test_timeout_drops_judge_and_debate_continues(
    llm_server: FakeLLMServer, judges_file, artifact: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    llm_server.script("judge-a", round1(4.0, 4))
    llm_server.script("judge-b", round1(4.1, 4))
    llm_server.script("judge-c", Reply(text=round1(4.0, 4), delay=3.0))
    code, out = run_json(capsys, *base_args(artifact, judges_file(timeout=0.5)))
    assert code == 0
    assert out["judges"][2]["status"] == "dropped" and out["judges"][2]["reason"].startswith("timeout")
    assert out["summary"]["final_verdict"] == "PASS"


def test_429_is_retried_after_retry_after(llm_server: FakeLLMServer, judges_file, artifact: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    llm_server.script("judge-a", Reply(status=429, headers={"Retry-After": "0.3"}), round1(4.0, 4))
    llm_server.script("judge-b", Reply(status=500), round1(4.0, 4))
    llm_server.script("judge-c", round1(4.0, 4))
    code, out = run_json(capsys, *base_args(artifact, judges_file(retry=FAST_RETRY)))
    assert code == 0
    a = llm_server.calls_for("judge-a")
    assert len(a) == 2 and a[1].at - a[0].at >= 0.3
    assert out["spend"]["calls"] == 3  # retries are not judge calls...
    assert out["spend"]["retries"] == 2  # ...but they are counted


def test_all_judges_failing_aborts_with_exit_3(llm_server: FakeLLMServer, judges_file, artifact: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    for m in ("judge-a", "judge-b", "judge-c"):
        llm_server.script(m, *[Reply(status=500)] * 3)
    code = main(["evaluate", *base_args(artifact, judges_file(retry=FAST_RETRY)), "--format", "json"])
    captured = capsys.readouterr()
    assert code == 3
    assert captured.out == ""
    assert captured.err.startswith("moot: error: fewer than two judges left after round 1")
    assert "Traceback" not in captured.err


def test_quick_mode_is_one_round(llm_server: FakeLLMServer, judges_file, artifact: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    llm_server.script("judge-a", round1(3.0, 3))
    llm_server.script("judge-b", round1(4.5, 4))
    llm_server.script("judge-c", round1(3.2, 3))
    code, out = run_json(capsys, *base_args(artifact, judges_file()), "--mode", "quick")
    assert code == 0 and len(llm_server.requests) == 3
    assert out["rounds_completed"] == 1 and out["verdict_type"] == "majority"
    assert out["majority_judges"] == ["judge-1", "judge-3"]


def test_moderator_writes_prose_engine_keeps_numbers(
    llm_server: FakeLLMServer, judges_file, artifact: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    llm_server.script("judge-a", round1(4.0, 4))
    llm_server.script("judge-b", round1(4.0, 4))
    llm_server.script("judge-c", round1(4.0, 4))
    llm_server.script(
        "mod",
        "majority_opinion: All agree it is solid.\nrecommendations:\n  - priority: SHOULD\n    action: Add tests\n"
        "self_critique: {questions_passed: 5/5, synthesis_quality: HIGH, potential_bias: none}\n"
        "consensus_score: 1.0\n",
    )
    path = judges_file(moderator={"model": "mod", "api_base": llm_server.base_url})
    code, out = run_json(capsys, *base_args(artifact, path))
    assert code == 0
    assert out["synthesis_by"] == "moderator:mod"
    assert out["majority_opinion"] == "All agree it is solid."
    assert out["recommendations"] == [{"priority": "SHOULD", "action": "Add tests", "rationale": ""}]
    assert out["summary"]["consensus_score"] == 4.0  # the moderator cannot change the numbers
    assert out["self_critique"]["questions_passed"] == "5/5"
    assert out["spend"]["moderator_calls"] == 1 and out["spend"]["calls"] == 4


def test_text_format_shows_score_table_and_progress(
    llm_server: FakeLLMServer, judges_file, artifact: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    llm_server.script("judge-a", round1(4.0, 4))
    llm_server.script("judge-b", round1(4.0, 4))
    llm_server.script("judge-c", round1(4.0, 4))
    assert main(["evaluate", *base_args(artifact, judges_file())]) == 0
    captured = capsys.readouterr()
    assert "Verdict: PASS" in captured.out
    assert "| security | 4/5 | 4/5 | 4/5 | 4/5 |" in captured.out
    assert "round 1: asking judge-1, judge-2, judge-3" in captured.err


def test_show_prints_a_finished_debate_again(llm_server: FakeLLMServer, judges_file, artifact: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    for m in ("judge-a", "judge-b", "judge-c"):
        llm_server.script(m, round1(4.0, 4))
    _, out = run_json(capsys, *base_args(artifact, judges_file()))
    assert main(["show", out["debate_id"], "--format", "json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert again == out
    assert main(["show", out["debate_id"][:8]]) == 0
    assert "Verdict: PASS" in capsys.readouterr().out
    assert main(["show", out["debate_id"], "--calls"]) == 0
    assert capsys.readouterr().out.count("judge-") >= 3

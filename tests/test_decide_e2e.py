"""`moot decide` end to end: the CLI, the engine and the openai SDK against a real local HTTP server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from moot.cli.app import main
from moot.testing import FakeLLMServer, Reply

from .test_decide_support import MODELS, decide_judges, last_user_message, question_args, r1, r2, system_message


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    code = main([*args, "--format", "json"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if captured.out.strip() else {"stderr": captured.err})


def test_two_of_three_in_round_one_is_consensus_with_three_calls(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("risk-m", r1("C", "limited offline keeps sync risk small"))
    llm_server.script("value-m", r1("B", "field workers need full offline"))
    llm_server.script("effort-m", r1("Option C", "80% of the value for 20% of the effort"))
    code, out = run_json(capsys, *question_args(decide_judges(tmp_path, llm_server)))
    assert code == 0, out
    assert len(llm_server.requests) == 3  # one per judge, no round 2
    assert out["consensus"] is True and out["outcome"] == "RECOMMENDED" and out["confidence"] == "HIGH"
    assert out["recommended_option"] == "C" and out["decision"] == "C"
    assert out["rounds_completed"] == 1 and out["change_log"] == []
    assert out["perspectives"] == {
        "risk": "Option C - limited offline keeps sync risk small",
        "value": "Option B - field workers need full offline",
        "effort": "Option C - 80% of the value for 20% of the effort",
    }
    assert out["distribution"] == {"B": ["value"], "C": ["risk", "effort"]}
    assert out["debate_result"]["consensus"] is True and out["debate_result"]["recommended_option"] == "C"
    assert out["debate_result"]["spend"]["calls"] == 3 and out["debate_result"]["spend"]["input_tokens"] > 0
    assert out["spend"]["judge_calls"] == 3
    # the seed's files: round-1 files for each stance, no -r2 files, and the decision record
    sadd = Path(".specs/sadd")
    qid = out["question_id"]
    assert qid == "should-the-mobile-app-support-offline-mode"
    assert sorted(p.name for p in sadd.iterdir()) == sorted(
        [f"debate-{qid}-{s}.md" for s in ("risk", "value", "effort")] + [f"debate-{qid}-decision.md"]
    )
    record = (sadd / f"debate-{qid}-decision.md").read_text()
    assert "**RECOMMENDED: C**" in record and "| value | value | value-m | B |" in record


def test_split_then_documented_change_gives_round_two_consensus(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("risk-m", r1("A", "sync bugs appear after weeks"), r2("A", challenge={"value": "40% is a guess"}))
    llm_server.script(
        "value-m",
        r1("B", "field workers need it"),
        r2(
            "C",
            challenge={"risk": "online-only loses field sales", "effort": "the cache may be too small"},
            reason="Convinced by effort judge's ROI analysis",
            why="limited offline delivers the core value now",
        ),
    )
    llm_server.script("effort-m", r1("C", "ship now, expand later"), r2("C", challenge={"value": "B costs 3x"}))
    code, out = run_json(capsys, *question_args(decide_judges(tmp_path, llm_server)))
    assert code == 0, out
    assert len(llm_server.requests) == 6
    assert out["consensus"] is True and out["recommended_option"] == "C"
    assert out["rounds_completed"] == 2 and out["consensus_reached_at"] == 2
    assert out["rounds"]["round_1"]["consensus"] is False
    assert out["change_log"] == [
        {"judge": "value", "round": 2, "from": "B", "to": "C", "reason": "Convinced by effort judge's ROI analysis"}
    ]
    assert out["perspectives"]["value"] == "Option C - limited offline delivers the core value now (changed from B)"
    # isolation: no round-1 prompt holds another judge's position
    for model in MODELS.values():
        first = last_user_message(llm_server, model, 0) + system_message(llm_server, model, 0)
        assert "judge_report" not in first and "Long reasoning for" not in first
        assert "INDEPENDENT RECOMMENDATION" in first and "in isolation" in first
    # round 2: every judge's round-1 file in full (seat order, its own said to be its own), the challenge
    # requirement against the others, the stance restated
    risk2 = last_user_message(llm_server, "risk-m", 1)
    starts = [risk2.index(f'<judge_report judge="{j}"') for j in ("risk", "value", "effort")]
    assert starts == sorted(starts) and risk2.count("<judge_report ") == 3
    assert 'Your own round 1 report is the one above labelled judge="risk"' in risk2
    assert "The judges whose positions you challenge: value, effort." in risk2
    assert "Long reasoning for B" in risk2 and "Long reasoning for C" in risk2
    assert "CHALLENGE their positions" in risk2 and "document EXACTLY what convinced you" in risk2
    assert "You are the Risk Judge with SKEPTICAL stance" in risk2
    assert "You are the Risk Judge with SKEPTICAL stance" in last_user_message(llm_server, "risk-m", 0)
    assert "You are the Value Judge with OPTIMISTIC stance" in last_user_message(llm_server, "value-m", 1)
    assert "You are the Effort Judge with PRAGMATIC stance" in last_user_message(llm_server, "effort-m", 1)
    qid = out["question_id"]
    r2_file = Path(f".specs/sadd/debate-{qid}-value-r2.md").read_text()
    assert "**Changed from**: B" in r2_file and "to **risk**: online-only loses field sales" in r2_file
    assert len([f for f in out["files"] if f.endswith("-r2.md")]) == 3


def test_split_in_both_rounds_is_contested_and_exits_zero(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script(
        "risk-m",
        r1("A", "offline is risky"),
        r2("A", challenge={"value": "guess"}, why="sync has high complexity risk"),
    )
    llm_server.script("value-m", r1("B", "competitive advantage"), r2("B", challenge={"risk": "too timid"}))
    llm_server.script("effort-m", r1("C", "80/20"), r2("C", challenge={"risk": "overcautious"}))
    code, out = run_json(capsys, *question_args(decide_judges(tmp_path, llm_server)))
    assert code == 0
    assert len(llm_server.requests) == 6
    assert out["consensus"] is False and out["outcome"] == "CONTESTED"
    assert out["confidence"] == "REQUIRES_INPUT" and out["recommended_option"] is None
    assert out["distribution"] == {"A": ["risk"], "B": ["value"], "C": ["effort"]}
    assert out["rounds_completed"] == 2 and out["decision"] is None and out["user_choice"] is None
    seed = out["debate_result"]
    assert seed["outcome"] == "CONTESTED" and seed["distribution"] == out["distribution"]
    assert seed["perspectives"]["risk_favors"] == "Option A - sync has high complexity risk"
    assert seed["message"] == "Judges disagree. Review perspectives below."
    assert seed["user_prompt"].startswith("⚠️ Judges disagreed on this question.")
    assert "[B] Full offline: everything works offline and syncs later" in seed["user_prompt"]
    # text output without a terminal: the result and the prompt, no question asked, exit 0
    llm_server.script("risk-m", r1("A"), r2("A", challenge={"value": "guess"}))
    llm_server.script("value-m", r1("B"), r2("B", challenge={"risk": "too timid"}))
    llm_server.script("effort-m", r1("C"), r2("C", challenge={"risk": "overcautious"}))
    assert main([*question_args(decide_judges(tmp_path, llm_server)), "--quiet"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("CONTESTED") and "Which option would you like to proceed with?" in text
    assert "Your choice" not in text


def test_timed_out_judge_is_dropped_with_a_note(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("risk-m", Reply(text=r1("A"), delay=2.0))
    llm_server.script("value-m", r1("B"), r2("B", challenge={"effort": "too little"}))
    llm_server.script("effort-m", r1("C"), r2("B", challenge={"value": "cost"}, reason="value's field data"))
    judges = decide_judges(tmp_path, llm_server, timeout=0.4, extra={"retry": {"max_retries": 0}})
    code, out = run_json(capsys, *question_args(judges))
    assert code == 0, out
    assert "Risk judge timed out in round 1 - only 2 perspectives available" in out["notes"]
    assert (
        out["judges"][0]["status"] == "dropped"
        and out["judges"][0]["reason"].startswith("timeout")
        and out["judges"][0]["dropped_in_round"] == 1
    )
    assert len(llm_server.calls_for("risk-m")) == 1  # not asked again in round 2
    # the threshold applies to the two that answered: 1 of 2 in round 1, 2 of 2 in round 2
    assert out["rounds"]["round_1"]["answered"] == 2 and out["rounds"]["round_1"]["consensus"] is False
    assert out["consensus"] is True and out["recommended_option"] == "B"
    assert set(out["perspectives"]) == {"value", "effort"}
    # round 2 tells who left, and asks for challenges of the judges still there only
    effort2 = last_user_message(llm_server, "effort-m", 1)
    assert "Judges no longer in the debate: risk (timeout" in effort2 and 'judge_report judge="risk"' not in effort2


def test_reply_without_recommendation_gets_one_clarification_then_counts_as_none(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("risk-m", "It depends on many factors.", "I would rather not pick one.")
    llm_server.script("value-m", r1("B"))
    llm_server.script("effort-m", r1("B"))
    code, out = run_json(capsys, *question_args(decide_judges(tmp_path, llm_server)))
    assert code == 0, out
    assert len(llm_server.calls_for("risk-m")) == 2 and out["spend"]["clarifications"] == 1
    clarify = llm_server.calls_for("risk-m")[1].body["messages"]
    assert clarify[-2] == {"role": "assistant", "content": "It depends on many factors."}
    assert "could not be used" in clarify[-1]["content"] and "A, B, C" in clarify[-1]["content"]
    # no recommendation, but still one of three voices: 2 of 3 on B
    assert out["rounds"]["round_1"]["recommendations"]["risk"] is None
    assert out["rounds"]["round_1"]["answered"] == 3
    assert out["consensus"] is True and out["recommended_option"] == "B"
    assert out["perspectives"]["risk"].startswith("No recommendation")
    assert any(n.startswith("risk gave no usable recommendation in round 1") for n in out["notes"])


def test_unknown_option_is_clarified_and_then_accepted(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("risk-m", r1("D"), r1("A", key="recommended_option", as_json=True))
    llm_server.script("value-m", r1("B"), r2("B", challenge={"risk": "timid"}))
    llm_server.script("effort-m", r1("C", prose="Here is my view."), r2("C", challenge={"risk": "slow"}))
    llm_server.script("risk-m", r2("A", challenge={"value": "guess"}))
    code, out = run_json(capsys, *question_args(decide_judges(tmp_path, llm_server)))
    assert code == 0, out
    assert "is not one of the option ids (A, B, C)" in last_user_message(llm_server, "risk-m", 1)
    assert out["rounds"]["round_1"]["recommendations"] == {"risk": "A", "value": "B", "effort": "C"}
    assert out["outcome"] == "CONTESTED"


def test_revision_without_reason_is_sent_back_once(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("risk-m", r1("A"), r2("A", challenge={"value": "guess"}))
    llm_server.script(
        "value-m",
        r1("B"),
        r2("A", challenge={"risk": "timid"}),  # changed, no reason
        r2("A", challenge={"risk": "timid"}, reason="risk's point that sync bugs surface late"),
    )
    llm_server.script("effort-m", r1("C"), r2("C", challenge={"risk": "slow"}))
    code, out = run_json(capsys, *question_args(decide_judges(tmp_path, llm_server)))
    assert code == 0, out
    assert len(llm_server.calls_for("value-m")) == 3
    clarify = last_user_message(llm_server, "value-m", 2)
    assert "you changed your recommendation from B to A without `change_reason`" in clarify
    assert out["change_log"] == [
        {"judge": "value", "round": 2, "from": "B", "to": "A", "reason": "risk's point that sync bugs surface late"}
    ]
    assert out["recommended_option"] == "A"


def test_revision_never_explained_does_not_count(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("risk-m", r1("A"), r2("A", challenge={"value": "guess"}))
    llm_server.script("value-m", r1("B"), r2("A", challenge={"risk": "x"}), r2("A", challenge={"risk": "x"}))
    llm_server.script("effort-m", r1("C"), r2("C", challenge={"risk": "slow"}))
    code, out = run_json(capsys, *question_args(decide_judges(tmp_path, llm_server)))
    assert code == 0, out
    assert out["change_log"] == [] and out["outcome"] == "CONTESTED"
    assert out["rounds"]["round_2"]["recommendations"]["value"] == "B"
    assert any("value changed from B to A in round 2 without saying what convinced it" in n for n in out["notes"])


def test_round_two_reply_that_challenges_nobody_is_sent_back_once(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("risk-m", r1("A"), r2("A"), r2("A", challenge={"the Value judge": "40% is a guess"}))
    llm_server.script("value-m", r1("B"), r2("B", challenge={"risk": "timid"}))
    llm_server.script("effort-m", r1("C"), r2("C"), r2("C"))  # never challenges anyone
    code, out = run_json(capsys, *question_args(decide_judges(tmp_path, llm_server)))
    assert code == 0, out
    assert len(llm_server.calls_for("risk-m")) == 3 and len(llm_server.calls_for("effort-m")) == 3
    assert "the reply challenges nobody" in last_user_message(llm_server, "risk-m", 2)
    assert out["spend"]["clarifications"] == 2
    assert "effort challenged nobody in round 2, even when asked" in out["notes"]
    assert out["rounds"]["round_2"]["recommendations"] == {"risk": "A", "value": "B", "effort": "C"}


SEED_CONTEXT = """\
debate_context:
  question_id: "Q3-offline"
  question_text: "Should the mobile app support offline mode?"
  options:
    - id: "A"
      label: "Online only"
      description: "Every screen needs a connection"
    - id: "B"
      label: "Full offline"
      description: "Everything works offline, syncs later"
    - id: "C"
      label: "Limited offline"
      description: "Read-only cache of recent data"

  spec_context: |
    Field workers (40% of revenue) often lose their connection.

  feature_name: "mobile-sync"
  feature_dir: "specs/007-mobile-sync"
"""

SEED_CONFIG = """\
debate_config:
  max_rounds: 2
  consensus_threshold: 0.67  # 2/3 agreement
  timeout_per_judge: 120
  require_stance_maintenance: true
  require_change_documentation: true
"""


def test_seed_blocks_load_unchanged(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    question = tmp_path / "question.yaml"
    question.write_text(SEED_CONTEXT, encoding="utf-8")
    judges = decide_judges(tmp_path, llm_server)
    data = yaml.safe_load(judges.read_text()) | yaml.safe_load(SEED_CONFIG)
    judges.write_text(yaml.safe_dump(data), encoding="utf-8")
    llm_server.script("risk-m", r1("C"))
    llm_server.script("value-m", r1("C"))
    llm_server.script("effort-m", r1("A"))
    code, out = run_json(capsys, "decide", "--debate-context", str(question), "--judges", str(judges))
    assert code == 0, out
    assert out["question_id"] == "Q3-offline" and out["consensus_threshold"] == 0.67
    assert out["recommended_option"] == "C"
    prompt = system_message(llm_server, "risk-m", 0) + last_user_message(llm_server, "risk-m", 0)
    assert "Field workers (40% of revenue)" in prompt and "Read-only cache of recent data" in prompt
    assert Path("specs/007-mobile-sync/sadd/debate-Q3-offline-risk.md").exists()
    assert Path("specs/007-mobile-sync/sadd/debate-Q3-offline-decision.md").exists()


def test_debate_config_threshold_and_rounds_apply(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    judges = decide_judges(tmp_path, llm_server, debate_config={"consensus_threshold": 1.0, "max_rounds": 1})
    llm_server.script("risk-m", r1("C"))
    llm_server.script("value-m", r1("C"))
    llm_server.script("effort-m", r1("A"))
    code, out = run_json(capsys, *question_args(judges), "--no-files")
    assert code == 0, out
    assert len(llm_server.requests) == 3  # max_rounds 1: no adversarial round
    assert out["outcome"] == "CONTESTED" and out["distribution"] == {"A": ["effort"], "C": ["risk", "value"]}
    assert out["files"] == [] and not Path(".specs").exists()


def test_contested_at_a_terminal_asks_and_records_the_choice(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from moot.protocols.decide import terminal

    llm_server.script("risk-m", r1("A"), r2("A", challenge={"value": "guess"}))
    llm_server.script("value-m", r1("B"), r2("B", challenge={"risk": "timid"}))
    llm_server.script("effort-m", r1("C"), r2("C", challenge={"risk": "slow"}))
    monkeypatch.setattr(terminal, "_at_terminal", lambda: True)
    monkeypatch.setattr("sys.stdin", io.StringIO("Z\nc\n"))
    assert main([*question_args(decide_judges(tmp_path, llm_server)), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "Which option would you like to proceed with?" in captured.out
    assert "'Z' is not one of the options (A, B, C)" in captured.err
    assert captured.out.rstrip().endswith("Decision recorded: C (chosen by you)")
    # the choice is the decision, in the store and in the decision record
    debate_id = captured.out.splitlines()[1].split()[1].rstrip(":")
    assert main(["show", debate_id, "--format", "json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["user_choice"] == "C" and shown["decided_by"] == "user" and shown["decision"] == "C"
    assert shown["outcome"] == "CONTESTED"
    record = next(Path(".specs/sadd").glob("*-decision.md")).read_text()
    assert "**Decided by the user: C**" in record


def test_no_input_never_asks(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import io

    from moot.protocols.decide import terminal

    llm_server.script("risk-m", r1("A"), r2("A", challenge={"value": "guess"}))
    llm_server.script("value-m", r1("B"), r2("B", challenge={"risk": "timid"}))
    llm_server.script("effort-m", r1("C"), r2("C", challenge={"risk": "slow"}))
    monkeypatch.setattr(terminal, "_at_terminal", lambda: True)
    monkeypatch.setattr("sys.stdin", io.StringIO("A\n"))
    assert main([*question_args(decide_judges(tmp_path, llm_server)), "--no-input", "--format", "yaml"]) == 0
    out = yaml.safe_load(capsys.readouterr().out)
    assert out["outcome"] == "CONTESTED" and out["user_choice"] is None


def test_show_prints_a_decision_again(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("risk-m", r1("A"))
    llm_server.script("value-m", r1("A"))
    llm_server.script("effort-m", r1("B"))
    _, out = run_json(capsys, *question_args(decide_judges(tmp_path, llm_server)))
    assert main(["show", out["debate_id"], "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == out
    assert main(["show", out["debate_id"][:8]]) == 0
    text = capsys.readouterr().out
    assert text.startswith("RECOMMENDED: A") and "value: Option A" in text
    assert main(["list"]) == 0
    assert "RECOMMENDED" in capsys.readouterr().out


def test_budget_stops_before_round_two_and_says_so(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prices = {m: {"input_per_mtok": 1.0, "output_per_mtok": 10.0} for m in MODELS.values()}
    judges = decide_judges(tmp_path, llm_server, extra={"pricing": prices, "budget": {"max_cost_usd": 1.0}})
    data = yaml.safe_load(judges.read_text())
    for j in data["debate_judges"]:
        j["max_tokens"] = 8192  # a bound as large as a vendor's default (a local judge's own default is 768)
    judges.write_text(yaml.safe_dump(data), encoding="utf-8")
    for model, rec in zip(MODELS.values(), "ABC", strict=True):
        llm_server.script(model, Reply(text=r1(rec), output_tokens=20_000))  # $0.20 each
    code, out = run_json(capsys, *question_args(judges))
    assert code == 0, out
    assert len(llm_server.requests) == 3  # round 2's worst case on top of $0.60 could cross $1
    assert out["outcome"] == "CONTESTED" and out["rounds_completed"] == 1
    assert any(n.startswith("stopped before round 2") for n in out["notes"])
    assert out["spend"]["cost_usd"] == pytest.approx(0.6, abs=0.01)


def test_a_literal_api_key_is_never_written(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str], isolated_home: Path
) -> None:
    judges = decide_judges(tmp_path, llm_server)
    data = yaml.safe_load(judges.read_text())
    for j in data["debate_judges"]:
        j["api_key"] = "sk-live-SECRET-12345"
    judges.write_text(yaml.safe_dump(data), encoding="utf-8")
    for model, rec in zip(MODELS.values(), "AAB", strict=True):
        llm_server.script(model, r1(rec))
    code, out = run_json(capsys, *question_args(judges))
    assert code == 0 and out["recommended_option"] == "A"
    assert llm_server.requests[0].headers["authorization"] == "Bearer sk-live-SECRET-12345"
    written = [*Path(".specs").rglob("*.md"), *isolated_home.glob("moot.db*")]
    assert written and all(b"SECRET-12345" not in p.read_bytes() for p in written)
    assert "SECRET" not in json.dumps(out)


def test_no_usable_recommendation_from_any_judge_exits_3_and_never_says_they_disagreed(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for model in MODELS.values():
        llm_server.script(model, "It depends on many factors.", "I would rather not pick one.")
    code = main([*question_args(decide_judges(tmp_path, llm_server)), "--no-progress"])
    captured = capsys.readouterr()
    assert code == 3  # as evaluate does when its judges' replies cannot be used
    assert captured.out == ""
    assert "disagreed" not in captured.err.lower() and "CONTESTED" not in captured.err
    assert "fewer than two judges gave a usable recommendation in round 1" in captured.err
    assert len(llm_server.requests) == 6  # one call and one clarification each, no round 2


def test_a_judge_whose_last_reply_was_unusable_is_not_reported_ok(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("risk-m", "It depends on many factors.", "I would rather not pick one.")
    llm_server.script("value-m", r1("B"))
    llm_server.script("effort-m", r1("B"))
    code, out = run_json(capsys, *question_args(decide_judges(tmp_path, llm_server)))
    assert code == 0 and out["consensus"] is True
    status = {j["seat"]: (j["status"], j["reason"]) for j in out["judges"]}
    assert status == {
        "risk": ("unparsed", "no usable recommendation in round 1"),
        "value": ("ok", None),
        "effort": ("ok", None),
    }

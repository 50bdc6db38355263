"""The CI gate: `--fail-under` / `--require` exit codes, and `--format github` Markdown."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from moot.api.report import github_markdown
from moot.cli.app import main
from moot.cli.gate import gate_failure
from moot.render.github import cell, md

from .scripted_panels import (
    challenge_args,
    challenge_panel,
    contested_decide_panel,
    converging_panel,
    decide_args,
    decide_panel,
    evaluate_args,
)


def result(score: float | None, verdict: str | None) -> dict:  # type: ignore[type-arg]
    """An evaluation's JSON as far as the gate reads it: the envelope's verdict, evaluate's own score."""
    out: dict = {"protocol": "evaluate", "summary": {}}  # type: ignore[type-arg]
    if score is not None:
        out["summary"]["consensus_score"] = score
    if verdict is not None:
        out["verdict"] = {"kind": "consensus", "answer": verdict, "confidence": "HIGH", "needs_human": False}
    return out


@pytest.mark.parametrize(
    ("score", "fail_under", "fails"),
    [(4.0, 4.0, False), (3.99, 4.0, True), (4.5, 4.0, False), (1.0, 1.0, False), (None, 3.0, True)],
)
def test_fail_under_boundaries(score: float | None, fail_under: float, fails: bool) -> None:
    why = gate_failure(result(score, "PASS"), fail_under=fail_under)
    assert (why is not None) is fails
    if fails:
        assert "fail-under" in str(why)


@pytest.mark.parametrize(
    ("verdict", "require", "fails"),
    [
        ("PASS", "PASS", False),
        ("CONDITIONAL", "PASS", True),
        ("FAIL", "PASS", True),
        ("CONDITIONAL", "CONDITIONAL", False),
        ("PASS", "CONDITIONAL", False),
        ("FAIL", "CONDITIONAL", True),
        (None, "CONDITIONAL", True),
    ],
)
def test_require_orders_verdicts(verdict: str | None, require: str, fails: bool) -> None:
    assert (gate_failure(result(4.0, verdict), require=require) is not None) is fails


def test_no_gate_never_fails_and_both_reasons_are_given() -> None:
    assert gate_failure(result(None, None)) is None
    why = gate_failure(result(2.0, "FAIL"), fail_under=3.0, require="PASS")
    assert why is not None and "2 is under" in why and "FAIL is below" in why


def test_cli_gate_passes_with_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        evaluate_args(
            tmp_path, converging_panel(tmp_path), "--format", "json", "--fail-under", "4.0", "--require", "pass"
        )
    )
    out = json.loads(capsys.readouterr().out)
    assert out["summary"]["final_verdict"] == "PASS" and out["summary"]["consensus_score"] == 4.07
    assert code == 0


@pytest.mark.parametrize("gate", [["--fail-under", "4.1"], ["--require", "PASS"], ["--require", "CONDITIONAL"]])
def test_cli_gate_fails_with_exit_1_and_still_prints_the_result(
    gate: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    panel = converging_panel(tmp_path, low=gate != ["--fail-under", "4.1"])
    code = main(evaluate_args(tmp_path, panel, "--format", "json", *gate))
    captured = capsys.readouterr()
    assert code == 1
    assert json.loads(captured.out)["debate_id"]
    assert "moot: gate failed: " in captured.err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fail-under", "7"], "--fail-under must be a score between 1 and 5"),
        (["--require", "GREAT"], "--require must be PASS or CONDITIONAL"),
        (["--format", "html"], "--format must be one of text, json, yaml, sarif, github"),
    ],
)
def test_bad_gate_options_exit_2_before_any_call(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(evaluate_args(tmp_path, converging_panel(tmp_path), *args)) == 2
    err = capsys.readouterr().err
    assert err.startswith("moot: error: ") and message in err and err.count("\n") == 1
    assert main(["list", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["debates"] == []  # no debate was started


def test_format_github_is_a_job_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        evaluate_args(tmp_path, converging_panel(tmp_path, inject=True), "--format", "github", "--task", "<i>t</i>")
    )
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("## ✅ moot evaluate: PASS (4.07/5)")
    assert "| **overall** | **4** | **4.3** | **3.9** |" in out
    assert "<i>" not in out and "&lt;i&gt;t&lt;/i&gt;" in out
    assert "<details><summary>Rounds</summary>" in out


def test_github_markdown_keeps_untrusted_text_inert() -> None:
    assert md("<script>x</script> @octocat") == "&lt;script&gt;x&lt;/script&gt; @\u200boctocat"
    assert cell("a|b\nc") == "a\\|b c"  # one line: a line break in judge text is a space
    text = github_markdown(
        {
            "protocol": "evaluate",
            "verdict": {"kind": "majority", "answer": "FAIL", "confidence": "MEDIUM", "needs_human": False},
            "summary": {"final_verdict": "FAIL", "consensus_score": 2.0},
            "recommendations": [{"priority": "MUST", "action": "<img src=x onerror=alert(1)>"}],
            "minority_opinion": "@team please </details> look",
        }
    )
    assert text.startswith("## ❌ moot evaluate: FAIL (2/5)")
    assert "<img" not in text and "&lt;/details&gt;" in text and "@\u200bteam" in text


def test_github_markdown_of_another_protocol_names_its_answer() -> None:
    verdict = {"kind": "contested", "answer": "maybe later", "confidence": "LOW", "needs_human": True}
    text = github_markdown({"protocol": "someday", "verdict": verdict, "outcome": "CONTESTED", "rounds_completed": 2})
    assert text.startswith("## moot someday: maybe later")  # the envelope's answer, not a guessed key
    assert "**outcome**: CONTESTED" in text and "**rounds completed**: 2" in text


def test_decide_require_recommended_gates_a_contested_decision(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(decide_args(decide_panel(tmp_path), "--format", "json", "--require", "recommended")) == 0
    assert json.loads(capsys.readouterr().out)["recommended_option"] == "C"
    assert main(decide_args(contested_decide_panel(tmp_path), "--format", "json", "--require", "RECOMMENDED")) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["outcome"] == "CONTESTED"
    assert "moot: gate failed: outcome CONTESTED is not --require RECOMMENDED" in captured.err


def test_challenge_require_consensus_gates_a_tradeoff(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(challenge_args(challenge_panel(tmp_path), "--format", "github", "--require", "CONSENSUS")) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("## ⚠️ moot challenge: TRADEOFF")
    assert "| the largest customer keeps growing | challenger-2 | challenger-2 |" in captured.out
    assert "outcome TRADEOFF is not --require CONSENSUS" in captured.err


def test_decide_format_github(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(decide_args(decide_panel(tmp_path, inject=True), "--format", "github")) == 0
    out = capsys.readouterr().out
    assert out.startswith("## ✅ moot decide: option C (Limited offline)")
    assert "| C | Limited offline | value, effort |" in out
    assert "value, round 2: B → C: Convinced by the ROI analysis" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--fail-under", "3"], "No such option: --fail-under"),
        (["--require", "PASS"], "--require must be RECOMMENDED (got 'PASS')"),
    ],
)
def test_decide_gate_options_that_do_not_apply_are_bad_input(
    args: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(decide_args(decide_panel(tmp_path), *args)) == 2
    assert message in capsys.readouterr().err


def test_fail_under_is_refused_for_protocols_without_a_score() -> None:
    from moot.cli.gate import check_gate_options
    from moot.errors import UsageError

    with pytest.raises(UsageError, match="applies to scored evaluations"):
        check_gate_options(3.0, None, "challenge")
    assert check_gate_options(None, "consensus", "challenge") == "CONSENSUS"

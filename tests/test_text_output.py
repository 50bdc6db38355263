"""What a person reads: the text result piped and at a terminal, and results that say who really answered."""

from __future__ import annotations

import asyncio
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from moot.cli.app import main
from moot.judges.function import FunctionJudge
from moot.judges.scripted import ScriptedJudge
from moot.protocols.evaluate.schemas import EvaluationResult
from moot.protocols.evaluate.text import evaluation_report
from moot.render.terminal import render_terminal
from moot.schemas.messages import SCRIPTED_JUDGE, Message, Prompt

ESCAPE = re.compile(r"\x1b\[")
ESCAPE_CODES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
COLOUR = re.compile(r"\x1b\[[0-9;]*3[0-7]m|\x1b\[[0-9;]*38;")


def demo_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    assert main(["demo", "--reports-dir", str(tmp_path / "r"), "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_scripted_judges_never_claim_the_model_they_stand_in_for(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = demo_json(tmp_path, capsys)
    assert [j["answered_by"] for j in out["judges"]] == [SCRIPTED_JUDGE] * 3
    assert main(["show", out["debate_id"], "--calls"]) == 0
    listing = capsys.readouterr().out
    assert "gemini-3-pro-preview" not in listing and listing.count(SCRIPTED_JUDGE) == 10


def test_function_and_scripted_judges_report_a_scripted_judge() -> None:
    prompt = Prompt(system="s", messages=[Message(role="user", content="u")])
    by_function = asyncio.run(FunctionJudge(lambda p: "x", model="gpt-5.2").complete(prompt, timeout=1))
    by_script = asyncio.run(ScriptedJudge(["x"], model="grok-4").complete(prompt, timeout=1))
    assert by_function.model == by_script.model == SCRIPTED_JUDGE


def test_disputes_say_whose_view_they_are(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = demo_json(tmp_path, capsys)
    said = [d["finding"] for d in out["divergent_findings"]] + [a["issue"] for a in out["user_attention_needed"]]
    assert said and not any("mine:" in s for s in said)
    assert "overall severity (judge-1's view: 3.5: conditional pass; opposing view: judge-3: 2.9" in said[0]


def test_piped_text_is_plain_compact_and_names_wall_and_call_time(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--reports-dir", str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out
    assert not ESCAPE.search(out)
    assert re.search(r"wall \d+\.\d s, call time \(sum over calls\) \d+\.\d s", out)
    assert "| Judge | Stance | Model | Round 1 | Round 2 | Round 3 | Status |" in out
    assert "Reports (one per judge, and the consensus report): " in out and ".{1,2,3,consensus}.md" in out
    # 63 before, with a judge list, round lines and disputes twice; +1 for what the debate changed (issue 11);
    # +1 for the verdict score's own row, labelled apart from the mean of all judges (issue 18)
    assert len(out.splitlines()) <= 57
    assert "| **overall** | 3.5/5 | 3.8/5 | 2.9/5 | 3.4/5 |" in out
    assert "| **verdict (majority)** |  |  |  | 3.65/5 |" in out  # the majority's mean, labelled apart


def terminal(result: EvaluationResult, width: int = 110, **console: Any) -> str:
    return render_terminal(evaluation_report(result), Console(file=io.StringIO(), width=width, **console))


def test_at_80_columns_a_model_name_is_never_cut_mid_word(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    result = EvaluationResult.model_validate(demo_json(tmp_path, capsys))
    shown = terminal(result, width=80)
    assert "gemini-3-pro-preview" in shown and "haiku" in shown
    assert all(len(line) <= 80 for line in shown.splitlines())
    assert "$0.0000" in shown.splitlines()[7]  # the last column is not cut off either


def test_terminal_face_is_a_panel_and_tables_in_about_40_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    result = EvaluationResult.model_validate(demo_json(tmp_path, capsys))
    shown = terminal(result, force_terminal=True, color_system="standard")
    assert "╭" in shown.splitlines()[0] and COLOUR.search(shown)
    assert "| Criterion |" not in shown and "Tokens in/out" in shown  # rich tables, spend beside each judge
    assert "call time (sum over calls)" in shown
    # 42, and what the debate changed: a verdict, a judge and its reason; and the verdict's own row (issue 18)
    assert len(shown.splitlines()) <= 46
    plain_colours = terminal(result, force_terminal=True, color_system="standard", no_color=True)
    assert plain_colours.startswith("╭") and not COLOUR.search(plain_colours)


@pytest.mark.parametrize(
    ("env", "panel", "colour"),
    [({}, False, False), ({"FORCE_COLOR": "1"}, True, True), ({"FORCE_COLOR": "1", "TERM": "dumb"}, True, False)],
)
def test_text_goes_rich_only_where_rich_sees_a_terminal(
    env: dict[str, str],
    panel: bool,
    colour: bool,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from moot.cli.output import text_for

    data = demo_json(tmp_path, capsys)
    for name in ("FORCE_COLOR", "NO_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("TERM", "xterm")
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    shown = text_for(evaluation_report(EvaluationResult.model_validate(data)), io.StringIO())
    assert ("╭" in shown.splitlines()[0]) is panel and bool(COLOUR.search(shown)) is colour
    assert shown.startswith("Verdict: CONDITIONAL") is not panel


def split_decision(tmp_path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    from .scripted_panels import decide_args
    from .test_decide_support import r1, r2

    split = [
        ("risk", [r1("A"), r2("A", challenge={"value": "guess"})]),
        ("value", [r1("B"), r2("B", challenge={"risk": "timid"})]),
        ("effort", [r1("C"), r2("C", challenge={"risk": "slow"})]),
    ]
    panel = tmp_path / "split.yaml"
    judges = [{"model": "scripted", "stance": s, "replies": replies} for s, replies in split]
    panel.write_text(json.dumps({"debate_judges": judges}), encoding="utf-8")
    assert main([*decide_args(panel), *extra]) == 0  # decide_args passes --no-input
    return capsys.readouterr().out


def test_no_input_states_the_choice_and_asks_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = split_decision(tmp_path, capsys)
    assert out.startswith("CONTESTED") and "Which option would you like" not in out
    assert "?" not in out.split("\n", 3)[3]  # after the question line, nothing asks
    assert "The judges did not agree; the choice is yours (nobody was asked: --no-input):" in out
    assert "[B] Full offline: everything works offline and syncs later" in out


def test_a_question_for_the_reader_comes_last_at_a_terminal(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from moot.protocols.decide.schemas import DecisionResult
    from moot.protocols.decide.text import decision_report

    result = DecisionResult.model_validate(json.loads(split_decision(tmp_path, capsys, "--format", "json")))
    console = Console(file=io.StringIO(), width=100, force_terminal=True, no_color=True)
    shown = ESCAPE_CODES.sub("", render_terminal(decision_report(result, asking=True), console)).rstrip()
    assert shown.index("Distribution:") < shown.index("Which option would you like to proceed with?")
    assert shown.endswith("[C] Limited offline: read-only cache of recent data")
    assert "Which option" not in render_terminal(decision_report(result, asking=False), console)


def test_report_files_name_wall_and_call_time(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    demo_json(tmp_path, capsys)
    (consensus,) = (tmp_path / "r").glob("*.consensus.md")
    assert re.search(r"wall \d+\.\d s, call time \(sum over calls\) \d+\.\d s", consensus.read_text())


def test_challenge_at_a_terminal_renders_its_markdown_one_fact_a_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from moot.protocols.challenge.schemas import ChallengeResult
    from moot.protocols.challenge.text import challenge_report

    from .scripted_panels import challenge_args, challenge_panel

    assert main([*challenge_args(challenge_panel(tmp_path)), "--format", "json"]) == 0
    result = ChallengeResult.model_validate(json.loads(capsys.readouterr().out))
    console = Console(file=io.StringIO(), width=100, force_terminal=True, no_color=True)
    shown = ESCAPE_CODES.sub("", render_terminal(challenge_report(result), console))
    assert "DEBATE OUTCOME: TRADEOFF" in shown and "## " not in shown and "**" not in shown
    lines = [line.strip() for line in shown.splitlines()]
    assert "Confidence: MEDIUM" in lines and any(line.startswith("Core disagreement: ") for line in lines)
    assert re.search(r"wall \d+\.\d s, call time \(sum over calls\)", " ".join(lines))


def test_challenge_plain_text_shows_judge_text_unescaped_as_evaluate_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Escaping is for renderers (files, GitHub, the terminal's Markdown): piped text shows `<` and `|` as written."""
    from moot.protocols.challenge.schemas import ChallengeResult
    from moot.protocols.challenge.text import challenge_markdown, challenge_report

    from .scripted_panels import challenge_args, challenge_panel

    assert main([*challenge_args(challenge_panel(tmp_path)), "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    data["topic"] = "Is a <b> tag | a pipe safe?\x1b[31m"
    result = ChallengeResult.model_validate(data)
    plain = challenge_report(result).plain()
    assert "**Topic:** Is a <b> tag | a pipe safe?" in plain and "&lt;" not in plain and "\x1b" not in plain
    assert "Is a &lt;b> tag \\| a pipe safe?" in challenge_markdown(result)  # the Markdown stays inert

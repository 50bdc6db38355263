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
from moot.reports.terminal import render_terminal
from moot.reports.text import evaluation_report
from moot.schemas.evaluate import EvaluationResult
from moot.schemas.messages import SCRIPTED_JUDGE, Message, Prompt

ESCAPE = re.compile(r"\x1b\[")
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

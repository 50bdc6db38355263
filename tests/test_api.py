"""The Python API: judges built in code, async and sync, results as typed models."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import moot
from moot.api import Panelist
from moot.judges import FunctionJudge, ScriptedJudge
from moot.schemas.messages import Prompt

from .replies import CRITERIA, round1, round2


def test_evaluate_sync_with_function_judges(artifact: Path, tmp_path: Path) -> None:
    seen: list[Prompt] = []

    def generous(prompt: Prompt) -> str:
        seen.append(prompt)
        return round1(4.5, 5) if prompt.meta["round"] == 1 else round2(4.5)

    def strict(prompt: Prompt) -> str:
        return (
            round1(3.0, 3)
            if prompt.meta["round"] == 1
            else round2(4.2, {k: 4 for k in ["correctness", "design", "security", "performance", "docs"]})
        )

    result = moot.evaluate_sync(
        str(artifact),
        task="t",
        criteria=CRITERIA,
        judges=[Panelist(FunctionJudge(generous), stance="for"), Panelist(FunctionJudge(strict), stance="against")],
        reports_dir=tmp_path / "reports",
    )
    assert isinstance(result, moot.EvaluationResult)
    assert result.consensus_reached_at == 2
    assert result.summary.final_verdict == "PASS"
    assert [j.model for j in result.judges] == ["generous", "strict"]
    # the artifact reaches the judge inside its delimited block, with its path
    assert f'<artifact path="{artifact}">' in seen[0].system
    assert "Advocate for this plan's strengths" in seen[0].messages[0].content


def test_evaluate_async_with_scripted_judges(artifact: Path) -> None:
    judges = [
        Panelist(ScriptedJudge([round1(4.0, 4)], model="s1")),
        Panelist(ScriptedJudge([round1(4.2, 4)], model="s2")),
    ]
    result = asyncio.run(moot.evaluate(str(artifact), criteria=CRITERIA, judges=judges, reports_dir=None))
    assert result.consensus_reached and result.reports == []


def test_scripted_judge_fails_loudly_when_script_runs_out(artifact: Path) -> None:
    judges = [
        Panelist(ScriptedJudge([round1(1.0, 1)], model="s1")),
        Panelist(ScriptedJudge([round1(5.0, 5)], model="s2")),
        Panelist(ScriptedJudge([round1(3.0, 3)], model="s3")),
    ]
    with pytest.raises(moot.errors.DebateAborted, match="ran out of replies"):
        moot.evaluate_sync(str(artifact), criteria=CRITERIA, judges=judges, reports_dir=None)


PUBLIC_SURFACE = [
    "ChallengeResult",
    "DecisionResult",
    "EvaluationResult",
    "cancel_debate",
    "challenge",
    "challenge_sync",
    "decide",
    "decide_sync",
    "estimate",
    "estimate_sync",
    "evaluate",
    "evaluate_sync",
    "resume",
    "resume_sync",
    "submit_replies",
    "submit_replies_sync",
]


def test_public_surface_is_pinned() -> None:
    """What users import from `moot` is written down here: adding or removing a name is a decision."""
    assert sorted(moot.__all__) == PUBLIC_SURFACE
    assert len(set(moot.__all__)) == len(moot.__all__)  # listed once
    for name in moot.__all__:
        assert getattr(moot, name) is not None
    assert {"evaluate", "evaluate_sync", "resume", "resume_sync", "EvaluationResult"} <= set(moot.__all__)

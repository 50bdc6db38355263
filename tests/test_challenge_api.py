"""The `challenge` Python API with judges built in code (FunctionJudge panelists): no server, no CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

import moot
from moot.api import Panelist
from moot.errors import NotUsableHere, UsageError
from moot.judges.function import FunctionJudge
from moot.schemas.config import Artifact
from moot.schemas.messages import Prompt

from .challenge_helpers import SUBSTANTIVE, confront, opening, rebuttal, verdict


def by_kind(replies: dict[str, list[str]]) -> FunctionJudge:
    """A judge answering each kind of request (opening, challenge, ...) from its own queue."""

    def answer(prompt: Prompt) -> str:
        return replies[str(prompt.meta["kind"])].pop(0)

    return FunctionJudge(answer)


def test_challenge_sync_with_code_built_judges() -> None:
    proponent = by_kind({"opening": [opening()], "confront": [confront({"O1": "ACCEPT"}, "Shard, whales apart")]})
    critic = by_kind({"challenge": [verdict("disagree", "strong", ["whales"])], "rebuttal": [rebuttal("ACCEPT")]})
    fan = by_kind({"challenge": [verdict("agree", "minor", reasoning=SUBSTANTIVE)]})
    result = moot.challenge_sync(
        "Shard orders?",
        proponent=Panelist(proponent, name="prop"),
        challengers=[Panelist(critic, name="critic"), Panelist(fan, name="fan")],
    )
    assert isinstance(result, moot.ChallengeResult)
    assert result.outcome == "CONSENSUS" and result.final_position == "Shard, whales apart"
    assert [c.status for c in result.challengers] == ["accepted in round 1", "agreed"]
    assert [c.kind for c in result.challengers] == ["code", "code"]
    assert len(fan.asked) == 1  # an agreeing challenger is not asked to rebut
    assert '<objection id="O1"' in proponent.asked[1].messages[-1].content


def test_api_errors() -> None:
    with pytest.raises(UsageError, match="challenger list is empty"):
        moot.challenge_sync("t", proponent="gpt-5.2", challengers=[])
    with pytest.raises(NotUsableHere, match=r"proponent 'gpt-5\.2' is not usable here: credential missing"):
        moot.challenge_sync("t", proponent="gpt-5.2", challengers=["grok-4"])


def test_context_takes_texts_held_in_memory_beside_files(tmp_path: Path) -> None:
    """A held text is shown under the name its caller gives; a path is read from disk, as ever."""
    from moot.protocols.challenge.api import plan_challenge

    (tmp_path / "design.md").write_text("Shard by tenant.", encoding="utf-8")
    held = Artifact(path="notes/context.md", text="Orders grow 40% a year.")
    plan = plan_challenge("Shard the orders table?", context=[held, str(tmp_path / "design.md")])
    assert [(a.path, a.text) for a in plan.context] == [
        ("notes/context.md", "Orders grow 40% a year."),
        (str(tmp_path / "design.md"), "Shard by tenant."),
    ]

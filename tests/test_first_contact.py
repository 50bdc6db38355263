"""Issue 33, "first contact, round 3": what a new user met that the docs did not say. One test per row
that is not better tested next to its code (the servers' stop, the view's pages, the live view and the
docs' shown output have theirs)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from moot.cli.app import main
from moot.testing import FakeLLMServer, Reply

from .test_cost_protocols import _interrupted_decision, priced_decide_judges
from .test_decide_support import r1


def test_show_of_an_interrupted_debate_says_how_to_continue_once(
    llm_server: FakeLLMServer, tmp_path: Path, isolated_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for model, option in (("risk-m", "A"), ("value-m", "B")):
        llm_server.script(model, Reply(text=r1(option)))
    llm_server.script("effort-m", Reply(text=r1("C"), delay=30))
    isolated_home.mkdir(parents=True, exist_ok=True)
    debate_id = asyncio.run(_interrupted_decision(priced_decide_judges(tmp_path, llm_server), isolated_home / "moot.db"))
    assert main(["show", debate_id]) == 0
    out = capsys.readouterr().out
    assert f"Debate {debate_id} (decide): interrupted" in out
    assert out.count(f"moot resume {debate_id}") == 1, out

"""One dry run for every surface: `moot.estimate(...)` in Python, `dry_run: true` on the MCP tools and
`--dry-run` in the CLI give the same figures, rendered from the same plan, and send nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

import moot
from moot.cli.app import main
from moot.errors import UsageError
from moot.mcp import build_server
from moot.store import Store
from moot.testing import FakeLLMServer

from .replies import CRITERIA
from .scripted_panels import artifact, converging_panel


def cli_dry_run(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main([*argv, "--dry-run", "--format", "json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def mcp_dry_run(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    seen: dict[str, Any] = {}

    async def run() -> None:
        async with Client(build_server()) as client:
            r = await client.call_tool(tool, {**args, "dry_run": True})
            assert not r.is_error, r.content
            seen["data"] = r.structured_content

    anyio.run(run)
    return seen["data"]  # type: ignore[no-any-return]


def test_evaluate_estimate_matches_the_cli_and_the_mcp_tool(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], llm_server: FakeLLMServer
) -> None:
    solution, judges = str(artifact(tmp_path)), str(converging_panel(tmp_path))
    from_api = moot.estimate_sync("evaluate", solution, criteria=CRITERIA, judges=judges)
    from_cli = cli_dry_run(capsys, "evaluate", "-s", solution, "--criteria", CRITERIA, "--judges", judges)
    from_mcp = mcp_dry_run("evaluate", {"solution": [solution], "criteria": CRITERIA, "judges": judges})
    assert from_api == from_cli == from_mcp
    assert from_api["dry_run"] is True and from_api["protocol"] == "evaluate"
    assert [c["round"] for c in from_api["calls"]] == [1, 1, 1, 2, 2, 2, 3, 3, 3]
    assert [s["calls"] for s in from_api["scenarios"]] == [3, 6, 9]
    later, first = from_api["calls"][3]["input_tokens"], from_api["calls"][0]["input_tokens"]
    assert later > first  # round 2 prompts carry the other judges' round-1 replies
    assert llm_server.requests == [] and Store.open_default().list_debates() == []


def test_estimate_rejects_an_unknown_protocol() -> None:
    with pytest.raises(UsageError, match="unknown protocol 'vote'"):
        moot.estimate_sync("vote", "x")


def test_decide_estimate_matches_the_cli_and_the_mcp_tool(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from .scripted_panels import decide_panel
    from .test_decide_support import OPTIONS, QUESTION

    judges = str(decide_panel(tmp_path))
    from_api = moot.estimate_sync("decide", QUESTION, OPTIONS, judges=judges, write_files=False)
    argv = ["decide", "--question", QUESTION, *(a for o in OPTIONS for a in ("--option", o)), "--judges", judges]
    from_cli = cli_dry_run(capsys, *argv, "--no-files")
    from_mcp = mcp_dry_run("decide", {"question": QUESTION, "option": OPTIONS, "judges": judges, "no_files": True})
    assert from_api == from_cli == from_mcp
    assert [c["round"] for c in from_api["calls"]] == [1, 1, 1, 2, 2, 2]
    assert [s["calls"] for s in from_api["scenarios"]] == [3, 6]
    assert not (tmp_path / ".specs").exists()


def test_challenge_estimate_matches_the_cli_and_the_mcp_tool(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from .scripted_panels import challenge_panel

    judges, topic = str(challenge_panel(tmp_path)), "Should we shard the orders table?"
    from_api = moot.estimate_sync("challenge", topic, judges=judges, max_rounds=2)
    from_cli = cli_dry_run(capsys, "challenge", topic, "--judges", judges, "--max-rounds", "2")
    from_mcp = mcp_dry_run("challenge", {"topic": topic, "judges": judges, "max_rounds": 2})
    assert from_api == from_cli == from_mcp
    phases = [(c["round"], c["phase"]) for c in from_api["calls"]]
    assert phases[:3] == [(1, "opening"), (1, "challenge"), (1, "challenge")]
    assert phases[-3:] == [(0, "assumptions")] * 3
    assert from_api["scenarios"][0]["label"] == "Fast exit"


def test_a_challenge_dry_run_needs_no_api_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A proponent and challengers on vendor clouds, no key set: the plan is priced, nothing is sent; the
    real run still refuses, naming the missing key."""
    for var in ("OPENAI_API_KEY", "XAI_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY", "ANTHROPIC_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    argv = ["challenge", "Shard the orders table?", "--proponent", "gpt-5.2", "--challenger", "grok-4"]
    plan = cli_dry_run(capsys, *argv, "--challenger", "gemini-3-pro-preview", "--max-rounds", "1")
    assert [c["seat"] for c in plan["calls"][:3]] == ["proponent", "challenger-1", "challenger-2"]
    assert moot.estimate_sync("challenge", "Shard?", proponent="gpt-5.2", challengers=["grok-4"])["dry_run"]
    assert main(argv) in (2, 3)
    assert "OPENAI_API_KEY" in capsys.readouterr().err

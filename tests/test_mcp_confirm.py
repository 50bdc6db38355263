"""Confirmation before a debate runs, through the official SDK's client with an elicitation callback, on both
protocol versions: a worst case over `moot mcp --confirm-over USD`, or a panel that runs programs, is asked
first; a declined debate sends nothing; a client without elicitation runs as before."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import ElicitRequestParams, ElicitResult

from moot.mcp import build_server
from moot.testing import FakeLLMServer, Reply

from .replies import CRITERIA, round1
from .scripted_panels import artifact
from .test_mcp_confine import command_panel

PRICE = {"input_per_mtok": 900.0, "output_per_mtok": 900.0}  # dear enough for any plan to pass a few cents


def _priced_args(tmp_path: Path, llm: FakeLLMServer) -> dict[str, Any]:
    """A one-round evaluate by two priced judges of the fake server."""
    llm.responder = lambda model, body: Reply(text=round1(4.0, 4))
    judges = [{"model": m, "stance": s, "api_base": llm.base_url} for m, s in (("p-a", "for"), ("p-b", "against"))]
    panel = tmp_path / "priced.yaml"
    panel.write_text(json.dumps({"debate_judges": judges, "pricing": {"p-a": PRICE, "p-b": PRICE}}), encoding="utf-8")
    args = {"solution": [str(artifact(tmp_path))], "criteria": CRITERIA, "judges": str(panel)}
    return args | {"mode": "quick", "no_reports": True}


def _call(server: Any, args: dict[str, Any], answer: dict[str, Any] | None, mode: str = "auto") -> dict[str, Any]:
    seen: dict[str, Any] = {"asked": []}

    async def on_elicit(context: Any, params: ElicitRequestParams) -> ElicitResult:
        seen["asked"].append(params.message)
        assert answer is not None
        return ElicitResult(**answer)

    async def body() -> None:
        callback = {"elicitation_callback": on_elicit} if answer is not None else {}
        async with Client(server, mode=mode, **callback) as client:  # type: ignore[arg-type]
            seen["result"] = await client.call_tool("evaluate", args)

    anyio.run(body)
    return seen


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_debate_over_the_threshold_is_confirmed_before_any_call(tmp_path: Path, mode: str) -> None:
    with FakeLLMServer() as llm:
        args = _priced_args(tmp_path, llm)
        declined = _call(build_server(confirm_over=0.05), args, {"action": "decline"}, mode)
        calls_after_decline = len(llm.requests)
        accepted = _call(build_server(confirm_over=0.05), args, {"action": "accept", "content": {"run": True}}, mode)
    (asked,) = declined["asked"]
    assert "over the $0.05 set with --confirm-over. Run it?" in asked and "worst case costs $" in asked
    assert declined["result"].is_error and "not run: the user did not confirm it" in declined["result"].content[0].text
    assert calls_after_decline == 0  # nothing was sent
    assert len(accepted["asked"]) == 1 and not accepted["result"].is_error
    assert accepted["result"].structured_content["status"] == "finished" and len(llm.requests) == 2


def test_under_the_threshold_or_without_elicitation_nothing_is_asked(tmp_path: Path) -> None:
    with FakeLLMServer() as llm:
        args = _priced_args(tmp_path, llm)
        under = _call(build_server(confirm_over=10_000), args, {"action": "decline"})
        unable = _call(build_server(confirm_over=0.05), args, None)
        unset = _call(build_server(), args, {"action": "decline"})
    for seen in (under, unable, unset):
        assert seen["asked"] == [] and seen["result"].structured_content["status"] == "finished"


def test_a_panel_that_runs_programs_is_confirmed_first(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    panel = command_panel(tmp_path, marker)
    (tmp_path / "plan.md").write_text("# Plan\n", encoding="utf-8")
    args = {"solution": ["plan.md"], "criteria": CRITERIA, "judges": str(panel), "mode": "quick", "no_reports": True}
    declined = _call(build_server(allow_commands=True), args, {"action": "decline"})
    assert not marker.exists()  # the program never ran
    accepted = _call(build_server(allow_commands=True), args, {"action": "accept", "content": {"run": True}})
    assert "it runs programs on this machine for judge-3" in declined["asked"][0]
    assert declined["result"].is_error and len(accepted["asked"]) == 1
    assert accepted["result"].structured_content["status"] == "finished" and marker.exists()

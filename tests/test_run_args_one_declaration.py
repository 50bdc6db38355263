"""One declaration per run option: a field added to the run options (`RunArgs`) of a copy of the toy
protocol, and nothing else written for it, is an option of its command, an argument of its MCP tool, a
parameter of its Python function and a key a batch item may hold; a sampling option given at any of these
doors reaches every judge's request (the local server reads it in the request's body)."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
import typer
import yaml
from mcp import Client
from mcp.server.mcpserver import MCPServer
from typer.testing import CliRunner

from moot.cli import protocol_cmd
from moot.mcp.server import protocol_tool
from moot.protocol import Arg, ProtocolSpec, RunArgs, api_function, arg
from moot.store.db import Store
from moot.testing import FakeLLMServer

TOY = Path(__file__).resolve().parent / "toy_protocol"
MODELS = ("v1", "v2", "v3")


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(TOY))
    import moot_toy.api

    return moot_toy.api


@pytest.fixture
def seeded(toy: ModuleType, monkeypatch: pytest.MonkeyPatch) -> ProtocolSpec[Any]:
    """A copy of the toy whose run options take one more, a sampling seed: its one declaration."""

    class SeededRun(RunArgs):
        seed: int | None = arg(None, Arg(help="The seed every judge samples with.", sampling=True))

    class SeededArgs(toy.VoteArgs):  # type: ignore[name-defined,misc]  # a module found at run time
        run = SeededRun

    vote = api_function("vote", SeededArgs, toy.SPEC.build, toy.VoteResult, doc="vote, seeded")
    spec = ProtocolSpec.of(
        vote, toy.SPEC.reprepare, toy.SPEC.views, exports={"vote": vote}, cli=toy.SPEC.cli, verdict=toy.SPEC.verdict
    )
    known = {"spec_for": lambda name: spec, "names": lambda: ["vote"], "entry": lambda name: name}
    for where in ("moot.protocols", "moot.batch.items", "moot.batch.setup", "moot.api.resume", "moot.api"):
        module = importlib.import_module(where)  # the registry, and where it was imported by name
        for name, value in known.items():
            if hasattr(module, name):
                monkeypatch.setattr(module, name, value)
    return spec


def _agree(server: FakeLLMServer) -> Path:
    """Every judge answers yes in round 1; the judges file that seats them on the local server."""
    reply = "```yaml\n" + yaml.safe_dump({"answer": "yes", "reason": "it is ready"}) + "```"
    for model in MODELS:
        server.script(model, reply)
    path = Path.cwd() / "judges.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": [{"model": m, "api_base": server.base_url} for m in MODELS]}))
    return path


def _seeds(server: FakeLLMServer) -> list[Any]:
    return [seen.body.get("seed", "none") for model in MODELS for seen in server.calls_for(model)]


@pytest.fixture(autouse=True)
def _here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


def test_the_command_offers_it_and_sends_it(seeded: ProtocolSpec[Any], llm_server: FakeLLMServer) -> None:
    app = typer.Typer(add_completion=False, rich_markup_mode=None)
    app.command("vote")(protocol_cmd.protocol_command("vote"))
    shown = CliRunner().invoke(app, ["--help"], env={"COLUMNS": "200"}).output
    assert "--seed" in shown and "The seed every judge samples with." in shown
    judges = str(_agree(llm_server))
    done = CliRunner().invoke(app, ["Ship it?", "--judges", judges, "--seed", "7", "--format", "json"])
    assert done.exit_code == 0, done.output
    assert _seeds(llm_server) == [7, 7, 7]


def test_the_tool_offers_it_and_sends_it(seeded: ProtocolSpec[Any], llm_server: FakeLLMServer) -> None:
    server = MCPServer(name="t")
    server.add_tool(protocol_tool(seeded), name="vote", structured_output=False)
    judges = str(_agree(llm_server))
    seen: dict[str, Any] = {}

    async def run() -> None:
        async with Client(server) as client:
            [tool] = (await client.list_tools()).tools
            seen["seed"] = tool.input_schema["properties"]["seed"]
            seen["result"] = await client.call_tool("vote", {"question": "Ship it?", "judges": judges, "seed": 8})

    anyio.run(run)
    assert seen["seed"]["description"] == "The seed every judge samples with."
    assert not seen["result"].is_error, seen["result"].content
    assert _seeds(llm_server) == [8, 8, 8]


def test_the_function_takes_it_and_sends_it(seeded: ProtocolSpec[Any], llm_server: FakeLLMServer) -> None:
    vote = seeded.exports["vote"]
    parameter = inspect.signature(vote).parameters["seed"]
    assert (parameter.kind, parameter.default, parameter.annotation) == (
        inspect.Parameter.KEYWORD_ONLY,
        None,
        "int | None",
    )
    judges = str(_agree(llm_server))
    result = asyncio.run(vote("Ship it?", judges=judges, seed=9))
    assert result.verdict.answer == "yes"
    assert _seeds(llm_server) == [9, 9, 9]


def test_a_batch_item_holds_it_and_sends_it(seeded: ProtocolSpec[Any], llm_server: FakeLLMServer) -> None:
    from moot.batch import run_batch

    judges = str(_agree(llm_server))
    items = Path.cwd() / "items.jsonl"
    items.write_text(json.dumps({"id": "a", "question": "Ship it?", "seed": 10}) + "\n", encoding="utf-8")
    summary = asyncio.run(run_batch(items, "vote", judges=judges))
    assert (summary.done, summary.failed) == (1, 0)
    assert _seeds(llm_server) == [10, 10, 10]


def test_without_it_no_request_carries_a_seed(seeded: ProtocolSpec[Any], llm_server: FakeLLMServer) -> None:
    judges = str(_agree(llm_server))
    asyncio.run(seeded.exports["vote"]("Ship it?", judges=judges))
    assert _seeds(llm_server) == ["none"] * 3


def test_a_resumed_debate_samples_as_it_started(seeded: ProtocolSpec[Any], llm_server: FakeLLMServer) -> None:
    import moot

    reply = "```yaml\n" + yaml.safe_dump({"answer": "{}", "reason": "so it seems"}) + "```"
    llm_server.script("v1", reply.format("yes"), reply.format("yes"))
    llm_server.script("v2", reply.format("no"), reply.format("yes"))
    llm_server.script("v3", reply.format("yes"), reply.format("yes"))
    path = Path.cwd() / "judges.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": [{"model": m, "api_base": llm_server.base_url} for m in MODELS]}))

    async def interrupted() -> None:
        def on_event(event: Any) -> None:
            if event.kind == "round_finished" and event.round == 1:
                task.cancel()  # Ctrl-C between the rounds

        task = asyncio.create_task(seeded.exports["vote"]("Ship it?", judges=str(path), seed=12, on_event=on_event))
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(interrupted())
    (row,) = Store.open_default().list_debates()
    assert row.status == "interrupted" and _seeds(llm_server) == [12, 12, 12]
    moot.resume_sync(row.id)
    assert _seeds(llm_server) == [12] * 6


def test_an_estimate_checks_no_cap_and_warns_as_the_dry_run_does(
    seeded: ProtocolSpec[Any], llm_server: FakeLLMServer
) -> None:
    from moot.api import estimate_sync

    plan = estimate_sync("vote", "Ship it?", judges=str(_agree(llm_server)), max_input_tokens=1, seed=3)
    assert any("a run would be refused" in w for w in plan["warnings"])
    assert llm_server.requests == []  # nothing sent

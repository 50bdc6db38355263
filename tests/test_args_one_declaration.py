"""One declaration per parameter: a field added to a protocol's `Args` (here a copy of the toy's, with
nothing else written for it) is an option of its command (`--help`), an argument of its MCP tool (the
input schema) and a parameter of its Python function (the signature), and what each face is given reaches
the protocol's builder in the `Args` instance."""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest
import typer
from mcp.server.mcpserver import MCPServer
from typer.testing import CliRunner

from moot.cli import protocol_cmd
from moot.mcp.server import protocol_tool
from moot.protocol.args import Arg, ProtocolArgs, api_function, arg
from moot.protocol.spec import ProtocolSpec

TOY = Path(__file__).resolve().parent / "toy_protocol"


class _Built(Exception):
    """Raised by the test's builder with the `Args` it was given, so that nothing runs past it."""

    def __init__(self, args: ProtocolArgs) -> None:
        super().__init__("built")
        self.given = args


async def _build(args: ProtocolArgs, planning: bool) -> Any:
    raise _Built(args)


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(TOY))
    import moot_toy.api

    return moot_toy.api


@pytest.fixture
def extended(toy: ModuleType, monkeypatch: pytest.MonkeyPatch) -> ProtocolSpec:
    """The toy's spec with one field more in its `Args`, registered under its own name for this test."""

    class Extended(toy.VoteArgs):  # type: ignore[name-defined,misc]  # a module found at run time
        quorum: int | None = arg(
            None, Arg(help="Fewest yes votes for a consensus.", mcp_help="The fewest yes votes that make a consensus.")
        )

    spec = dataclasses.replace(toy.SPEC, args=Extended, build=_build)
    monkeypatch.setattr("moot.protocols.spec_for", lambda name: spec)
    return spec


def _command(spec: ProtocolSpec) -> typer.Typer:
    app = typer.Typer(add_completion=False, rich_markup_mode=None)
    app.command(spec.name)(protocol_cmd.protocol_command(spec.name))
    return app


def test_the_added_field_is_an_option_of_the_command(extended: ProtocolSpec) -> None:
    shown = CliRunner().invoke(_command(extended), ["--help"], env={"COLUMNS": "200"}).output
    assert "--quorum" in shown and "Fewest yes votes for a consensus." in shown
    result = CliRunner().invoke(_command(extended), ["Ship it?", "--quorum", "3"])
    assert isinstance(result.exception, _Built)
    assert (result.exception.given.question, result.exception.given.quorum) == ("Ship it?", 3)


def test_the_added_field_is_an_argument_of_the_mcp_tool(extended: ProtocolSpec) -> None:
    server = MCPServer(name="t")
    server.add_tool(protocol_tool(extended), name=extended.name, structured_output=False)

    async def listed() -> list[Any]:
        return list(await server.list_tools())

    [tool] = anyio.run(listed)
    quorum = tool.input_schema["properties"]["quorum"]
    assert quorum["description"] == "The fewest yes votes that make a consensus."
    assert quorum["anyOf"] == [{"type": "integer"}, {"type": "null"}]
    assert "quorum" not in tool.input_schema.get("required", [])

    async def planned() -> Any:
        values = {"question": "Ship it?", "judges": None, "max_rounds": None, "quorum": 2}
        return await extended.plan(extended.adapt(values), planning=True)

    with pytest.raises(_Built) as built:
        anyio.run(planned)
    assert built.value.given.quorum == 2


def test_the_added_field_is_a_parameter_of_the_function(extended: ProtocolSpec, toy: ModuleType) -> None:
    assert extended.args is not None
    vote = api_function("vote", extended.args, _build, toy.VoteResult, doc="", run_options=("store",))
    parameters = inspect.signature(vote).parameters
    assert list(parameters) == ["question", "judges", "max_rounds", "quorum", "store"]
    quorum = parameters["quorum"]
    assert (quorum.kind, quorum.default, quorum.annotation) == (inspect.Parameter.KEYWORD_ONLY, None, "int | None")
    assert vote.__annotations__["quorum"] == int | None  # what `moot batch` checks an item's value against
    with pytest.raises(_Built) as built:
        anyio.run(lambda: vote("Ship it?", quorum=4))
    assert built.value.given.quorum == 4
    with pytest.raises(TypeError):
        anyio.run(lambda: vote("Ship it?", quorums=4))

"""A protocol's CLI command and MCP tool are built from its spec alone: every parameter declared once (a
`Param`), worded for the CLI and for MCP from that one declaration, and the options every protocol command
takes worded from the spec. A protocol made up here gets both with nothing written for it in cli/ or mcp/."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import anyio
import pytest
import typer
from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel

from moot.cli import protocol_cmd
from moot.mcp.server import protocol_tool, protocol_tools
from moot.protocol.flat import flat_spec as ProtocolSpec
from moot.protocol.spec import FORMAT, REQUIRED, Param
from moot.protocol.verdict import VerdictSpec
from moot.protocols import spec_for, specs


class _Result(BaseModel):
    protocol: str = "vote"


async def _never(*_args: Any, **_kwargs: Any) -> Any:
    raise AssertionError("nothing runs here")


def _show(result: Any, _fmt: str, _options: Mapping[str, Any], _terminal: Any) -> Any:
    return result


VOTE = ProtocolSpec(
    "vote",
    _never,
    _Result,
    lambda _result: "",
    _never,
    dict,
    params=(
        Param("question", str, argument=True, help="What to vote on."),
        Param("voter", list[str] | None, None, help="A voter; repeatable.", mcp_help="The voters."),
        FORMAT,
        Param("secret", bool, False, flags=("--secret",), help="Count the votes without names.", mcp=False),
        Param("quorum", int, 2, help="Fewest votes.", mcp_type=int | None, cli=False),
    ),
    description="Vote on a question.",
    mcp_description="Vote on a question; returns the tally JSON.",
    verdict=VerdictSpec({"AGREED": "good", "SPLIT": "warn"}, require=("AGREED",), require_fails="the vote is split"),
    formats=("markdown",),
    dry_run_help="Print the ballots; send nothing.",
    show=_show,
)


def command_help(spec: ProtocolSpec, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, str]:
    monkeypatch.setattr("moot.protocols.spec_for", lambda name: spec)
    monkeypatch.setenv("COLUMNS", "200")
    app = typer.Typer(add_completion=False, rich_markup_mode=None)
    app.command(spec.name)(protocol_cmd.protocol_command(spec.name))
    command = typer.main.get_command(app)
    ctx = command.make_context(spec.name, ["--help"], resilient_parsing=True)
    return command, " ".join(command.get_help(ctx).split())


def listed_tools(*tools: tuple[str, Any]) -> list[Any]:
    server = MCPServer(name="t")
    for name, fn in tools:
        server.add_tool(fn, name=name, structured_output=False)

    async def listed() -> list[Any]:
        return list(await server.list_tools())

    return anyio.run(listed)


def test_a_new_protocol_gets_its_command_from_its_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    command, shown = command_help(VOTE, monkeypatch)
    assert "Vote on a question." in shown
    assert (command.params[0].name, command.params[0].param_type_name, command.params[0].required) == (
        "question",
        "argument",
        True,
    )
    flags = [opt for p in command.params for opt in p.opts]
    # its own, --format where FORMAT stands, then the shared ones; no --fail-under (not scored), no --quorum
    assert [f for f in flags if f.startswith("--")] == [
        "--voter",
        "--format",
        "--secret",
        "--progress",
        "--html",
        "--require",
        "--dry-run",
        "--max-cost",
        "--max-input-tokens",
        "--author-model",
    ]
    assert "A voter; repeatable." in shown and "The voters." not in shown
    assert "text, json, yaml, markdown or github." in shown
    assert "AGREED: exit 1 when the vote is split (CI gate)." in shown
    assert "Print the ballots; send nothing." in shown
    assert "USD cap: no round starts whose worst case could cross it." in shown


def test_a_new_protocol_gets_its_tool_from_its_spec() -> None:
    [tool] = listed_tools(("vote", protocol_tool(VOTE)))
    assert tool.description == "Vote on a question; returns the tally JSON."
    schema = tool.input_schema
    shared = ["html", "dry_run", "wait", "max_cost", "max_input_tokens", "author_model"]  # the run options last
    assert list(schema["properties"]) == ["question", "voter", "quorum", *shared, "require"]  # its gate's word
    assert schema["required"] == ["question"]
    assert schema["properties"]["voter"]["description"] == "The voters."
    assert schema["properties"]["quorum"]["anyOf"] == [{"type": "integer"}, {"type": "null"}]


def test_shared_option_names_are_refused_as_a_protocols_own() -> None:
    clashing = ProtocolSpec(
        "clash",
        _never,
        _Result,
        lambda _r: "",
        _never,
        dict,
        params=(Param("html", str, ""),),
    )
    with pytest.raises(ValueError, match="html"):
        protocol_cmd.command_parameters(clashing)


@pytest.mark.parametrize("name", [s.name for s in specs()])
def test_every_protocol_command_and_tool_take_each_param_as_declared(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = spec_for(name)
    command, shown = command_help(spec, monkeypatch)
    by_name = {p.name: p for p in command.params}
    [tool] = listed_tools((name, protocol_tools()[name]))
    arguments = tool.input_schema["properties"]
    for param in spec.params:
        if param == FORMAT:
            continue
        assert (param.name in by_name) == param.cli, param.name
        assert (param.name in arguments) == param.mcp, param.name
        if param.cli:
            assert " ".join(param.help.split()) in shown
            assert by_name[param.name].required == (param.default is REQUIRED)
        if param.mcp:
            assert arguments[param.name]["description"] == (param.help if param.mcp_help is None else param.mcp_help)
            assert (param.name in tool.input_schema.get("required", [])) == (param.default is REQUIRED)
    assert ("--fail-under" in shown) == spec.verdict.scored
    words = re.escape(" or ".join(spec.verdict.require))
    assert re.search(words, shown)
    assert tool.description == (spec.mcp_description or spec.description)


@pytest.mark.parametrize("name", ["evaluate", "decide", "challenge"])
def test_every_command_parameter_reaches_the_protocols_api_function_by_its_own_name(name: str) -> None:
    """The third face of the one declaration: what the command and the tool take, put in the API's names by
    the spec's `adapt`, is what the protocol's Python function accepts, and a command run with no option
    passes the function's own defaults (so `moot NAME` and `moot.NAME(...)` cannot drift apart)."""
    import inspect

    spec = spec_for(name)
    given = {p.name: ("x" if p.default is REQUIRED else p.default) for p in spec.params}
    adapted = spec.adapt(given)
    accepted = inspect.signature(spec.exports[name]).parameters
    assert set(adapted) <= set(accepted), set(adapted) - set(accepted)
    required = {p.name for p in spec.params if p.default is REQUIRED}
    for key, value in adapted.items():
        if key not in required:
            assert value == accepted[key].default, (name, key)

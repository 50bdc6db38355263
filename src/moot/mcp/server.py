"""`moot mcp`: the Model Context Protocol server, a thin adapter over the public API and the store.

Tools: one per protocol the registry lists (`protocol_tools`), then `show_debate`, `list_debates` and
`doctor`. Each returns the same JSON as the CLI's `--format json` (as structured content and as text).
A debate reports one progress notification when each round starts and one when it ends, one when each
judge call starts and ends, and a keep-alive while calls are out (`moot.mcp.progress`). Bad arguments
become a tool error with the CLI's one-line message; the server keeps serving.

A protocol's tool is built from its spec alone (`protocol_tool`), as its CLI command is
(`moot.cli.protocol_cmd`): nothing is written here for a new protocol, and none is named. The tool is
called by the protocol's name; its arguments are the spec's `params` that have `mcp=True`, in their order
(typed `mcp_type` or `type`, described by `mcp_help` or `help`), then `html`, `dry_run` and `wait`, then
the run options (`moot.protocol.args.RunArgs`: `max_cost`, `max_input_tokens`, `author_model`), which every
protocol tool takes, and the gate (`require`, `fail_under`: `moot.mcp.gates`) its verdict allows; its
description is the spec's `mcp_description` (or `description`), and `mcp_summary` is its sentence in the
server's instructions. The values are put in the API's names by the spec's `adapt` and prepared as the
CLI's are (`moot.protocol.args.prepare`); progress runs to the rounds planned, or to the spec's
`progress_total`.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from mcp.server.extension import Extension
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult
from pydantic import BaseModel, Field

from moot.errors import MootError
from moot.mcp.confine import (
    HTML_IN_RESULT,
    ROOTS_ARG,
    ClientRoots,
    configure,
    confined_debate,
    tool_call,
    visible_debate,
    with_html,
)
from moot.mcp.confirm import ConfirmFirst
from moot.mcp.elicit import AskTheUser, settle
from moot.mcp.gates import checked_finish, ended, gate_params, stored_result
from moot.mcp.progress import with_progress
from moot.mcp.typed import json_result, moot_version, output_schemas, protocol_output_schema, readable, typed_tool
from moot.protocol.spec import REQUIRED, SAME, Param
from moot.schemas.events import EventSink

if TYPE_CHECKING:
    from moot.protocol.prepared import Prepared
    from moot.protocol.spec import ProtocolSpec

T = TypeVar("T")
# the server's instructions: these, with each protocol's sentence (its spec's `mcp_summary`) between them
ABOUT = "moot runs debates between LLM judges with assigned stances."
STORED = "Debates are stored: `list_debates` and `show_debate` read them back; `doctor` says which judges are usable."

DRY_RUN_HELP = "Plan and price every call (typical and worst case) and send nothing; returns the dry-run JSON."
# the parameters every protocol tool takes, worded once
HtmlParam = Annotated[
    str | None,
    Field(
        description="Also write the HTML report to this file, inside the server's roots (an existing file must "
        'be a moot report); "-" returns it in the result instead, as a second text/html content item.'
    ),
]
DryRunParam = Annotated[bool, Field(description=DRY_RUN_HELP)]
WAIT_HELP = "false: start the debate and return {debate_id, status: running} at once; show_debate gives its result."
WaitParam = Annotated[bool, Field(description=WAIT_HELP)]
# the tool's own shared parameters; the run options (`RunArgs`) come after them
SHARED_PARAMS = (("html", HtmlParam, None), ("dry_run", DryRunParam, False), ("wait", WaitParam, True))


def _tool_error(e: MootError) -> ToolError:
    """The CLI's one line, as a tool error: any secret it quotes (from a path or an argument) redacted, and a
    refused secret's way on named as the tool's argument (`redact_secrets: true`), not the CLI's flag."""
    from moot.secrets import for_door, quoted_safely

    return ToolError(for_door(quoted_safely(str(e)), "mcp"))


# the tools


def _argument(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    given = inspect.Parameter.empty if default is REQUIRED else default
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=given, annotation=annotation)


def _offered(p: Param) -> inspect.Parameter:
    described = Field(description=p.help if p.mcp_help is None else p.mcp_help)
    kind = p.type if p.mcp_type is None else p.mcp_type
    return _argument(p.name, Annotated[kind, described], p.default if p.mcp_default is SAME else p.mcp_default)


def protocol_tool(spec: ProtocolSpec) -> Callable[..., Awaitable[CallToolResult]]:
    """The protocol's tool: a function whose signature the SDK reads (built from the spec's params, the
    shared `html`, `dry_run` and `wait` after them, then the run options, `ctx` for progress)."""
    parameters = [_argument("ctx", Context, REQUIRED), *(_offered(p) for p in spec.params if p.mcp)]
    parameters += [_argument(name, annotation, default) for name, annotation, default in SHARED_PARAMS]
    parameters += [_offered(p) for p in spec.run_params if p.mcp]
    parameters += [_argument(name, annotation, default) for name, annotation, default in gate_params(spec)]
    parameters.append(_argument(ROOTS_ARG, ClientRoots, None))  # filled by the SDK, not by the caller

    async def tool(ctx: Context, **values: Any) -> CallToolResult:
        html, dry_run, wait = values.pop("html", None), values.pop("dry_run", False), values.pop("wait", True)
        run = {p.name: values.pop(p.name) for p in spec.run_params if p.name in values}
        gate = {str(k): values.pop(k) for k in ("require", "fail_under") if k in values}
        async with confined_debate(ctx, values.pop(ROOTS_ARG, None), spec, values, html=html, dry_run=dry_run):
            return await _debate(ctx, spec, values, run, html=html, dry_run=dry_run, wait=wait, gate=gate)

    tool.__signature__ = inspect.Signature(parameters, return_annotation=CallToolResult)  # type: ignore[attr-defined]
    tool.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": CallToolResult}
    tool.__name__ = tool.__qualname__ = spec.name
    tool.__doc__ = spec.cli.mcp_description or spec.cli.description
    return tool


def _planned_rounds(prepared: Prepared, _values: Mapping[str, Any]) -> int | None:
    return prepared.rounds


async def _debate(
    ctx: Context,
    spec: ProtocolSpec,
    values: Mapping[str, Any],
    run_values: Mapping[str, Any],
    *,
    html: str | None,
    dry_run: bool,
    wait: bool = True,
    gate: dict[str, Any] | None = None,
) -> CallToolResult:
    """A protocol tool: its values, put in the API's names by the spec's `adapt`, and its run options,
    prepared as every door prepares a debate (`moot.protocol.args.prepare`; a dry run checks no cap), then
    estimated or run with round progress; bad input is a tool error."""
    from moot.protocol.args import prepare
    from moot.protocol.prepared import estimate_prepared, run_prepared
    from moot.store.shared import shared_store

    total = spec.cli.progress_total or _planned_rounds
    try:
        ending = checked_finish(spec.name, dict(gate or {}), html)  # stored with the debate: the last submit applies it
        given = spec.run_args(run_values)
        prepared, options = await prepare(spec, spec.made(spec.adapt(values)), given, planning=dry_run)
        if dry_run:  # as the CLI's --dry-run: the judges file's prices, no cap checked
            return readable(json_result(estimate_prepared(prepared, options.pricing, given.max_input_tokens)))
        options.store = options.store or shared_store()  # the server's one connection (moot.store.shared)
        options.extra.update(ending.stored())
        from moot.mcp.background import IN_BACKGROUND, start

        if not wait or IN_BACKGROUND.get():  # the debate goes on in the server; show_debate gives its result
            return readable(json_result(await start(prepared, options)))

        async def run(sink: EventSink) -> BaseModel:
            options.on_event = sink
            result: BaseModel = await run_prepared(prepared, options)
            return result

        result = await with_progress(ctx, total(prepared, values), run)
        settled = await settle(ctx, spec, result)  # what a person decides, where the client can ask them
        return ended(settled, ending, debate_result)
    except MootError as e:
        raise _tool_error(e) from None


def debate_result(result: BaseModel, html: str | None) -> CallToolResult:
    """A protocol tool's reply: the `--format json` result, after writing the HTML report if asked (or with
    the report as a second content item, for `html: "-"`)."""
    data = result.model_dump(mode="json")
    if html == HTML_IN_RESULT:
        return readable(with_html(json_result(data), str(data["debate_id"])))
    if html:
        _write_html(str(data["debate_id"]), html)
    return readable(json_result(data))


def _write_html(debate_id: str, path: str) -> None:
    from moot.api.report import write_html_report
    from moot.store.shared import shared_store

    write_html_report(shared_store(), debate_id, path)


async def show_debate(
    ctx: Context,
    debate_id: Annotated[str, Field(description="Debate id (or a unique prefix of it).")],
    calls: Annotated[bool, Field(description="List every call instead: judge, round, status, tokens, cost.")] = False,
    client_roots: ClientRoots = None,
) -> CallToolResult:
    """A debate from the store, finished or not: its result JSON, or where it stopped (a debate started
    inside the call's roots). A final result below the gate the debate was started with (`wait: false`) is
    returned as its tool would have: `isError` and a last item `gate failed: <why>`."""
    from moot.api.history import calls_view, debate_view
    from moot.store.shared import shared_store

    try:
        async with tool_call(ctx, client_roots) as folders:
            store = shared_store()
            row = visible_debate(store, debate_id, folders)
            if calls or row.result is None:
                return readable(json_result(calls_view(store, row) if calls else debate_view(store, row)))
            return stored_result(store, row, inline_html=False)  # held to the gate it was started with
    except MootError as e:
        raise _tool_error(e) from None


async def list_debates(
    ctx: Context,
    limit: Annotated[int, Field(description="How many, newest first.", ge=1, le=1000)] = 20,
    client_roots: ClientRoots = None,
) -> CallToolResult:
    """Recent debates started inside the call's roots: id, protocol, status, title, when."""
    from moot.api.history import list_view
    from moot.store.shared import shared_store

    try:
        async with tool_call(ctx, client_roots) as folders:
            return json_result(list_view(shared_store(), limit, seen=folders.sees))
    except MootError as e:
        raise _tool_error(e) from None


async def doctor(
    ctx: Context,
    judges: Annotated[
        str | None,
        Field(description="Judges file to check (default: MOOT_JUDGES, the nearest moot.yaml, else the built-ins)."),
    ] = None,
    client_roots: ClientRoots = None,
) -> CallToolResult:
    """Every configured judge: its vendor, whether its credential is present (never its value), usable or not;
    and which judges file is in effect, and why."""
    from moot.api.doctor import doctor_report

    try:
        async with tool_call(ctx, client_roots):  # the judges file it reads is held to the server's roots
            return json_result(await doctor_report(judges))
    except MootError as e:
        raise _tool_error(e) from None


# the tools that are moot's own (a protocol named like one of them gets no tool)
OWN_TOOLS: dict[str, Callable[..., Awaitable[CallToolResult]]] = {
    "show_debate": show_debate,
    "list_debates": list_debates,
    "doctor": doctor,
}


def protocol_tools() -> dict[str, Callable[..., Awaitable[CallToolResult]]]:
    """One tool per protocol the registry lists, by its name (imports every protocol)."""
    return {name: protocol_tool(spec) for name, spec in protocol_specs().items()}


def protocol_specs() -> dict[str, ProtocolSpec]:
    """The protocols that have a tool, by its name."""
    from moot.protocols import specs

    return {spec.name: spec for spec in specs() if spec.name not in OWN_TOOLS}


def instructions() -> str:
    """What the server tells a client about its tools, each protocol's sentence from its spec."""
    from moot.protocols import specs

    return " ".join([ABOUT, *(s.cli.mcp_summary for s in specs() if s.cli.mcp_summary), STORED])


def build_server(
    name: str = "moot",
    *,
    roots: Sequence[str | Path] = (),
    allow_commands: bool = False,
    more: Mapping[str, Callable[..., Awaitable[CallToolResult]]] | None = None,
    extensions: Sequence[Extension] = (),
    confirm_over: float | None = None,
    allow_key_servers: bool = False,
) -> MCPServer:
    """A fresh server with every tool registered (nothing runs until a transport starts it), `more` after
    moot's own, with `extensions` (the tasks extension: `moot.mcp.tasks`). Its tools read and write inside the
    client's roots (else the working folder) and `roots`; a judges file a call names may run programs only
    with `allow_commands`, and send a key anywhere but its vendor's own endpoint only with
    `allow_key_servers` (`moot.mcp.confine`)."""
    schemas = output_schemas()
    protocols = protocol_tools()
    tools = [typed_tool(fn, n, protocol_output_schema()) for n, fn in protocols.items()]
    tools += [typed_tool(fn, n, schemas[n]) for n, fn in (OWN_TOOLS | dict(more or {})).items()]
    server: MCPServer = MCPServer(
        name=name,
        instructions=instructions(),
        version=moot_version(),
        log_level="WARNING",
        tools=tools,
        extensions=extensions,
        # the user asked first (`moot.mcp.confirm`) and a person's choice after, where the client can ask
        middleware=[ConfirmFirst(protocols, confirm_over), AskTheUser(protocol_specs())],
    )
    configure(server, roots, allow_commands=allow_commands, allow_key_servers=allow_key_servers)
    return server

"""`moot mcp`: the Model Context Protocol server, a thin adapter over the public API and the store.

Tools: `evaluate`, `decide`, `challenge` (one per protocol, `PROTOCOL_TOOLS`), `show_debate`,
`list_debates`, `doctor`. Each returns the same JSON as the CLI's `--format json` (as structured content and as text).
A debate reports one progress notification when each round starts and one when it ends. Bad arguments
become a tool error with the CLI's one-line message; the server keeps serving.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from moot.engine.events import Event, EventSink
from moot.errors import MootError
from moot.reports.serialize import to_json

if TYPE_CHECKING:
    from moot.engine.prepared import Prepared

T = TypeVar("T")
INSTRUCTIONS = (
    "moot runs debates between LLM judges with assigned stances. `evaluate` scores an artifact (files) "
    "against criteria and returns a verdict (PASS, CONDITIONAL or FAIL) with findings and recommendations. "
    "`decide` debates the options of a question (Risk, Value, Effort) and recommends one or says it is contested. "
    "`challenge` has a proponent defend a position against challengers: CONSENSUS or a TRADEOFF document. "
    "Debates are stored: `list_debates` and `show_debate` read them back; `doctor` says which judges are usable."
)

DRY_RUN_HELP = "Plan and price every call (typical and worst case) and send nothing; returns the dry-run JSON."
# the parameters every protocol tool takes, worded once
HtmlParam = Annotated[str | None, Field(description="Also write the HTML report to this file.")]
MaxCostParam = Annotated[float | None, Field(description="USD cap: no round starts whose worst case could cross it.")]
DryRunParam = Annotated[bool, Field(description=DRY_RUN_HELP)]


def json_result(data: Mapping[str, Any] | BaseModel) -> CallToolResult:
    """The CLI's `--format json` text, plus the same data as structured content."""
    plain = data.model_dump(mode="json") if isinstance(data, BaseModel) else dict(data)
    return CallToolResult(content=[TextContent(type="text", text=to_json(plain))], structured_content=plain)


def progress_note(event: Event, total: int | None) -> tuple[float, float | None, str] | None:
    """The progress notification for an engine event, or None for events that are not round boundaries.

    Round N's start is N - 0.5, its end N (`with_progress` keeps the values rising when a protocol has
    several phases per round, or a closing phase numbered 0).
    """
    if event.kind == "round_started":
        who = event.data.get("judges")
        phase = event.data.get("phase")
        tail = f": {phase}" if isinstance(phase, str) else ""
        tail += f" with {', '.join(map(str, who))}" if isinstance(who, list) else ""
        where = f"round {event.round}" if event.round else "final"  # round 0: the step after the last round
        return event.round - 0.5, total, f"{where} started{tail}"
    if event.kind == "round_finished":
        scores = event.data.get("scores")
        consensus = event.data.get("consensus")
        message = f"round {event.round} finished"
        if isinstance(scores, list):
            message += ": scores " + ", ".join(f"{s:g}" if isinstance(s, int | float) else str(s) for s in scores)
        elif isinstance(event.data.get("range"), str):
            message += f": {event.data['range']}"
        if isinstance(consensus, bool):
            message += "; consensus" if consensus else "; no consensus yet"
        return float(event.round), total, message
    if event.kind == "note" and "decision" in event.data and isinstance(event.data.get("text"), str):
        return float(event.round), total, event.data["text"]  # a protocol that closes its rounds with a note
    return None


def next_progress(last: float, value: float, total: float | None) -> float | None:
    """The value to report after `last`: `value`, or a little more than `last` when a protocol has several
    phases per round (progress must rise), never past `total`. None: nothing can be reported without
    passing the total (a step after the last round, such as a synthesis, when every round was run)."""
    rising = value if value > last else round(last + 0.1, 4)
    if total is not None:
        rising = min(rising, float(total))
    return rising if rising > last else None


async def with_progress(ctx: Context, total: int | None, run: Callable[[EventSink], Awaitable[T]]) -> T:
    """Run a debate, forwarding its round events to the client as progress notifications, in order.

    The engine's event sink is synchronous; a memory stream hands events to a task that awaits the
    notifications, so a slow client never blocks a round.
    """
    send, receive = anyio.create_memory_object_stream[Event](math.inf)
    outcome: list[T] = []
    failure: list[BaseException] = []

    async def forward() -> None:
        last = 0.0
        async with receive:
            async for event in receive:
                note = progress_note(event, total)
                if note is None:
                    continue
                value, of, message = note
                rising = next_progress(last, value, of)
                if rising is not None:
                    last = rising
                    await ctx.report_progress(last, of, message)

    async def debate() -> None:
        with send:
            try:
                outcome.append(await run(send.send_nowait))
            except Exception as e:
                failure.append(e)

    async with anyio.create_task_group() as tg:
        tg.start_soon(forward)
        await debate()
    if failure:
        raise failure[0]
    return outcome[0]


def _tool_error(e: MootError) -> ToolError:
    return ToolError(str(e))


# the tools


async def evaluate(
    ctx: Context,
    solution: Annotated[list[str] | str, Field(description="Files, folders or globs to evaluate.")],
    task: Annotated[str, Field(description="What the solution was supposed to accomplish.")] = "",
    criteria: Annotated[
        str,
        Field(description="name:weight,... or a rubric YAML file or code, design, documentation, plan."),
    ] = "code",
    judges: Annotated[
        str | None, Field(description="Judges file (YAML). Default: gemini-3-pro-preview, gpt-5.2 and grok-4.")
    ] = None,
    max_rounds: Annotated[int | None, Field(description="Most rounds (default 3).")] = None,
    mode: Annotated[str, Field(description="complete (up to max rounds) or quick (one round).")] = "complete",
    reports_dir: Annotated[str | None, Field(description="Where per-judge reports are written.")] = ".specs/reports",
    no_reports: Annotated[bool, Field(description="Write no report files.")] = False,
    html: HtmlParam = None,
    max_cost: MaxCostParam = None,
    dry_run: DryRunParam = False,
) -> CallToolResult:
    """Evaluate an artifact by a debate between judges with assigned stances; returns the verdict JSON."""
    return await _debate(ctx, "evaluate", locals(), html=html, max_cost=max_cost, dry_run=dry_run)


async def decide(
    ctx: Context,
    question: Annotated[str | None, Field(description="The question to decide.")] = None,
    option: Annotated[list[str] | None, Field(description="Options as 'ID=LABEL[: description]', two or more.")] = None,
    context: Annotated[list[str] | None, Field(description="Files (or folders) of context, e.g. the spec.")] = None,
    debate_context: Annotated[
        str | None, Field(description="A YAML file with a debate_context block (instead of question).")
    ] = None,
    judges: Annotated[
        str | None, Field(description="Judges file (YAML). Default: Risk, Value and Effort judges on sonnet.")
    ] = None,
    threshold: Annotated[float | None, Field(description="Consensus threshold in (0, 1] (default 0.67).")] = None,
    question_id: Annotated[str | None, Field(description="Names the files (default: from the question).")] = None,
    feature_dir: Annotated[
        str | None,
        Field(
            description="The decision files (each judge's recommendation per round, the decision record) go to "
            "FEATURE_DIR/sadd/."
        ),
    ] = None,
    no_files: Annotated[bool, Field(description="Write no files (the store keeps everything).")] = False,
    html: HtmlParam = None,
    max_cost: MaxCostParam = None,
    dry_run: DryRunParam = False,
) -> CallToolResult:
    """Decide between options by an adversarial debate of Risk, Value and Effort judges.

    A contested result is returned as it stands (outcome CONTESTED) for the person to choose.
    """
    return await _debate(ctx, "decide", locals(), html=html, max_cost=max_cost, dry_run=dry_run)


async def challenge(
    ctx: Context,
    topic: Annotated[str, Field(description="The question or claim to take a position on.")],
    context: Annotated[list[str] | None, Field(description="Files, folders or globs the debate should read.")] = None,
    proponent: Annotated[
        str | None, Field(description="Who forms and defends the position: a model, or an agent CLI (claude, ...).")
    ] = None,
    challenger: Annotated[
        list[str] | None, Field(description="Challengers: models or agent CLIs (gemini, codex, qwen, claude).")
    ] = None,
    judges: Annotated[
        str | None, Field(description="Judges file with 'proponent:' and 'challengers:' (and max_rounds, ...).")
    ] = None,
    max_rounds: Annotated[int | None, Field(description="Most confrontation rounds (default 5).")] = None,
    html: HtmlParam = None,
    max_cost: MaxCostParam = None,
    dry_run: DryRunParam = False,
) -> CallToolResult:
    """Defend a position against challengers attacking it in parallel: CONSENSUS, or a TRADEOFF
    with the assumptions behind the disagreement."""
    # its progress total is the rounds asked for (none when not given), as it always was
    return await _debate(
        ctx, "challenge", locals(), html=html, max_cost=max_cost, dry_run=dry_run, total=lambda _: max_rounds
    )


def _planned_rounds(prepared: Prepared) -> int | None:
    return prepared.rounds


async def _debate(
    ctx: Context,
    protocol: str,
    parameters: Mapping[str, Any],
    *,
    html: str | None,
    max_cost: float | None,
    dry_run: bool,
    total: Callable[[Prepared], int | None] = _planned_rounds,
) -> CallToolResult:
    """A protocol tool: its parameters, put in the API's names, prepared by the protocol's own `build`
    and `prepare` (as the CLI and the Python API do), then estimated or run with round progress; bad
    input is a tool error."""
    from moot.engine.panel import options_from_panel
    from moot.engine.prepared import estimate_prepared, run_prepared
    from moot.protocols import spec_for

    spec = spec_for(protocol)
    arguments = spec.adapt(parameters)
    try:
        if dry_run:  # as the CLI's --dry-run: the judges file's prices, no cap checked
            planned = await spec.build(**arguments, planning=True)
            return json_result(estimate_prepared(planned, options_from_panel(planned.panel).pricing))
        prepared, options = await spec.prepare(**arguments, max_cost=max_cost)

        async def run(sink: EventSink) -> BaseModel:
            options.on_event = sink
            result: BaseModel = await run_prepared(prepared, options)
            return result

        result = await with_progress(ctx, total(prepared), run)
        return _debate_result(result, html)
    except MootError as e:
        raise _tool_error(e) from None


def _debate_result(result: BaseModel, html: str | None) -> CallToolResult:
    """A protocol tool's reply: the `--format json` result, after writing the HTML report if asked."""
    data = result.model_dump(mode="json")
    if html:
        _write_html(str(data["debate_id"]), html)
    return json_result(data)


def _write_html(debate_id: str, path: str) -> None:
    from moot.api.report import write_html_report
    from moot.store import Store

    write_html_report(Store.open_default(), debate_id, path)


async def show_debate(
    debate_id: Annotated[str, Field(description="Debate id (or a unique prefix of it).")],
    calls: Annotated[bool, Field(description="List every call instead: judge, round, status, tokens, cost.")] = False,
) -> CallToolResult:
    """A debate from the store, finished or not: its result JSON, or where it stopped."""
    from moot.api.history import calls_view, debate_view, find_debate
    from moot.store import Store

    store = Store.open_default()
    try:
        row = find_debate(store, debate_id)
    except MootError as e:
        raise _tool_error(e) from None
    return json_result(calls_view(store, row) if calls else debate_view(store, row))


async def list_debates(
    limit: Annotated[int, Field(description="How many, newest first.", ge=1, le=1000)] = 20,
) -> CallToolResult:
    """Recent debates: id, protocol, status, title, when."""
    from moot.api.history import list_view
    from moot.store import Store

    return json_result(list_view(Store.open_default(), limit))


async def doctor(
    judges: Annotated[
        str | None,
        Field(description="Judges file to check (default: MOOT_JUDGES, the nearest moot.yaml, else the built-ins)."),
    ] = None,
) -> CallToolResult:
    """Every configured judge: its vendor, whether its credential is present (never its value), usable or not;
    and which judges file is in effect, and why."""
    from moot.api.doctor import doctor_report

    try:
        return json_result(await doctor_report(judges))
    except MootError as e:
        raise _tool_error(e) from None


# protocol name -> (tool function, description); protocols other than evaluate register themselves here
PROTOCOL_TOOLS: dict[str, Callable[..., Awaitable[CallToolResult]]] = {
    "evaluate": evaluate,
    "decide": decide,
    "challenge": challenge,
}


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("moot")
    except PackageNotFoundError:
        return "0"


def build_server(name: str = "moot") -> MCPServer:
    """A fresh server with every tool registered (nothing runs until a transport starts it)."""
    server: MCPServer = MCPServer(name=name, instructions=INSTRUCTIONS, version=_version(), log_level="WARNING")
    for tool_name, fn in PROTOCOL_TOOLS.items():
        server.add_tool(fn, name=tool_name, structured_output=False)
    server.add_tool(show_debate, name="show_debate", structured_output=False)
    server.add_tool(list_debates, name="list_debates", structured_output=False)
    server.add_tool(doctor, name="doctor", structured_output=False)
    return server

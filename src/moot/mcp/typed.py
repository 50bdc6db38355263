"""What each MCP tool declares about its results: an `outputSchema`, annotations, and a readable line.

A client validates a tool's structured content against its `outputSchema` (the official SDK's client does,
on every call) and renders it; the annotations say which tools only read (`readOnlyHint`), so a client may
run them without asking. The schemas are built from the models the results come from, never written twice:

- a protocol tool's result is the result envelope (`envelope.schema.json`) with the protocol's own keys
  after it; or, with host seats, the waiting state (`moot.schemas.host.Waiting`); with `wait: false`, the
  running shape; with `dry_run`, the dry-run plan;
- `show_debate` adds where an unfinished debate stopped, and the calls list (`calls: true`).

Beside the JSON text, a result gets one more text block a person can read at a glance (`readable`): the
verdict and what it cost, or that the debate waits or runs. The JSON block stays first and unchanged.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal

from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel

from moot.render.serialize import to_json
from moot.schemas.envelope import envelope_schema
from moot.schemas.host import Waiting
from moot.schemas.safe_text import safe_text


class Running(BaseModel):
    """A protocol tool's answer with `wait: false`: the debate runs on in the server."""

    debate_id: str
    protocol: str
    status: Literal["running"]


class DryRun(BaseModel):
    """The dry-run plan's keys every protocol's has (the protocol's own follow)."""

    dry_run: Literal[True]
    protocol: str
    calls: list[dict[str, Any]]
    scenarios: list[dict[str, Any]]


class Stopped(BaseModel):
    """`show_debate` on a debate with no result: where it stopped (running, interrupted, failed, cancelled)."""

    debate_id: str
    protocol: str
    status: str
    error: str | None
    rounds: dict[str, Any]
    calls_completed: int


class Calls(BaseModel):
    """`show_debate` with `calls: true`: every call of the debate."""

    debate_id: str
    calls: list[dict[str, Any]]


class Cancelled(BaseModel):
    """`cancel_debate`'s answer."""

    debate_id: str
    protocol: str
    status: Literal["cancelled"]


class DebateList(BaseModel):
    """`list_debates`' answer: newest first."""

    debates: list[dict[str, Any]]


class DoctorReport(BaseModel):
    """`doctor`'s answer: the judges file in effect, each judge's row, the coding agents found."""

    judges_file: dict[str, Any]
    judges: list[dict[str, Any]]
    clients: list[dict[str, Any]]


def _model(model: type[BaseModel]) -> dict[str, Any]:
    return model.model_json_schema(mode="serialization")


def _one_of_shapes(*shapes: dict[str, Any]) -> dict[str, Any]:
    """An object schema any of `shapes` satisfies, their `$defs` lifted to the top (where `$ref`s point)."""
    defs: dict[str, Any] = {}
    arms = []
    for shape in shapes:
        arm = dict(shape)
        defs.update(arm.pop("$defs", {}))
        arm.pop("$schema", None)
        arms.append(arm)
    schema: dict[str, Any] = {"type": "object", "anyOf": arms}
    if defs:
        schema["$defs"] = defs
    return schema


def result_schema() -> dict[str, Any]:
    """A finished debate's result: the envelope (a protocol's own keys after it are allowed)."""
    return envelope_schema()


def protocol_output_schema() -> dict[str, Any]:
    """A protocol tool's results: the result, the waiting state, the running shape, the dry-run plan."""
    return _one_of_shapes(result_schema(), _model(Waiting), _model(Running), _model(DryRun))


def output_schemas() -> dict[str, dict[str, Any]]:
    """moot's own tools' output schemas, by tool name (the protocol tools share `protocol_output_schema`)."""
    shown = _one_of_shapes(result_schema(), _model(Waiting), _model(Stopped), _model(Calls))
    return {
        "show_debate": shown,
        "list_debates": _model(DebateList),
        "doctor": _model(DoctorReport),
        "submit_replies": _one_of_shapes(result_schema(), _model(Waiting)),
        "cancel_debate": _model(Cancelled),
    }


READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False)
# a debate sends the artifact to LLM vendors (open world) and writes the store and reports (not read-only),
# adding, never replacing, what was there
DEBATE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True)
ANNOTATIONS: dict[str, ToolAnnotations] = {
    "show_debate": READ_ONLY.model_copy(update={"title": "Show a stored debate"}),
    "list_debates": READ_ONLY.model_copy(update={"title": "List recent debates"}),
    "doctor": READ_ONLY.model_copy(update={"title": "Check the judges"}),
    "submit_replies": DEBATE.model_copy(update={"title": "Give host seats' replies"}),
    # ends a debate for good: nothing it did can be undone by calling again
    "cancel_debate": ToolAnnotations(
        title="Cancel a debate",
        read_only_hint=False,
        destructive_hint=True,
        idempotent_hint=False,
        open_world_hint=False,
    ),
}


def annotations_for(name: str) -> ToolAnnotations:
    """A tool's annotations: moot's own tools by name, every protocol tool a debate's."""
    return ANNOTATIONS.get(name) or DEBATE.model_copy(update={"title": f"moot {name}"})


# the most characters of a result a client should keep (Claude Code reads this key of a tool's `_meta`): a
# debate's result, or a waiting state with each seat's prompt, runs past the few tens of thousands clients cap
# results at by default
RESULT_SIZE = "anthropic/maxResultSizeChars"
LARGE_RESULT = 500_000
SMALL_RESULTS = frozenset({"list_debates", "doctor", "cancel_debate"})


def moot_version() -> str:
    """The server's version, as a client sees it: moot's own."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("moot")
    except PackageNotFoundError:
        return "0"


def typed_tool(fn: Callable[..., Awaitable[Any]], name: str, output_schema: dict[str, Any]) -> Tool:
    """A tool with its `outputSchema` and annotations: the SDK derives its input schema from the function's
    signature; the output schema is the results' own, not the return annotation's."""
    meta = {RESULT_SIZE: LARGE_RESULT} if name not in SMALL_RESULTS else None
    tool = Tool.from_function(fn, name=name, annotations=annotations_for(name), meta=meta, structured_output=False)
    tool.fn_metadata.output_schema = output_schema  # advertised; the client validates every result by it
    return tool


def json_result(data: Mapping[str, Any] | BaseModel) -> CallToolResult:
    """The CLI's `--format json` text, plus the same data as structured content."""
    plain = data.model_dump(mode="json") if isinstance(data, BaseModel) else dict(data)
    return CallToolResult(content=[TextContent(type="text", text=to_json(plain))], structured_content=plain)


def _cost(data: dict[str, Any]) -> str:
    spend = data.get("spend")
    if not isinstance(spend, dict):
        return ""
    return f"; {spend.get('calls', 0)} calls, ${float(spend.get('cost_usd') or 0):.4f}"


def summary(data: dict[str, Any]) -> str | None:
    """One line a person reads: what the result says, from its envelope or its shape (None: nothing to add)."""
    head = f"moot {data.get('protocol', '')} {data.get('debate_id', '')}".strip()
    status = data.get("status")
    verdict = data.get("verdict")
    if isinstance(verdict, dict):
        answer = verdict.get("answer") or "no answer"
        human = "; needs a person's decision" if verdict.get("needs_human") else ""
        rounds = data.get("rounds_completed")
        return (
            f"{head}: {status}, {verdict.get('kind')} verdict {answer} ({verdict.get('confidence')} confidence), "
            f"{rounds} round(s){_cost(data)}{human}"
        )
    if status == "waiting" and isinstance(data.get("requests"), list):
        seats = ", ".join(str(r.get("seat")) for r in data["requests"] if isinstance(r, dict))
        return f"{head}: waiting for host replies from {seats}; answer them with submit_replies"
    if status == "running":
        return f"{head}: running; show_debate gives its result"
    if data.get("dry_run") is True and isinstance(data.get("scenarios"), list):
        worst = [s.get("worst_usd") for s in data["scenarios"] if isinstance(s, dict)]
        priced = [w for w in worst if isinstance(w, int | float)]
        most = f"; worst case ${max(priced):.4f}" if priced else ""
        return f"moot {data.get('protocol')} dry run: {len(data.get('calls') or [])} calls planned{most}"
    if isinstance(status, str) and "debate_id" in data:
        return f"{head}: {status}"
    return None


def readable(result: CallToolResult) -> CallToolResult:
    """The result with its readable line as one more text block (after the JSON and any report)."""
    data = result.structured_content
    line = summary(data) if isinstance(data, dict) else None
    if line:
        result.content.append(TextContent(type="text", text=safe_text(line) + "\n"))  # a judge's words in it
    return result

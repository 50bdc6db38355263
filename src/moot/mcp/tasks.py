"""A debate as a durable MCP task: the `io.modelcontextprotocol/tasks` extension (SEP-2663, 2026-07-28).

A client that declares the extension on a 2026-07-28 request gets, for a protocol tool, a task at once
(`resultType: "task"`) instead of waiting for the verdict; the task's id is the debate's id, and the store
is the task's state, so a task outlives the client's connection and the server process:

- `tasks/get`: the debate's state read from the store: `working` (with the rounds and calls done so far),
  `input_required` for host seats (each pending request as an `inputRequests` entry shaped as the model
  request it is: `sampling/createMessage` with the seat's system text and prompt, its reply schema in
  `_meta`), `completed` with the very result the plain call returns, or `cancelled`. A debate whose server
  died (the process that ran it is gone) is resumed here, from the store;
- `tasks/update`: the host seats' replies (`inputResponses`, keyed by request id) continue the debate;
- `tasks/cancel`: `cancel_debate`; its calls in flight in this server are stopped, and a server elsewhere
  running it sends no further call (the engine reads the status before each one).

Clients that do not declare the extension, and every legacy (handshake) connection, get today's results.
It is built only on the SDK's extension framework (`mcp.server.extension`), here alone, so that it can be
replaced by the SDK's own tasks module when that ships.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import require_client_extension
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolRequestParams, CallToolResult, RequestParams, TextContent
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import Field

from moot.mcp.background import IN_BACKGROUND, keep, running_here, stop
from moot.mcp.elicit import KEY as HUMAN_KEY
from moot.mcp.elicit import chosen, question_request, record
from moot.mcp.gates import stored_result
from moot.store.connection import moot_home
from moot.store.db import DebateRow, Store

TASKS = "io.modelcontextprotocol/tasks"
POLL_MS = 2000  # a debate's step takes seconds at least
REPLY_TOKENS = 8192  # the most a host seat's reply is asked to take (`maxTokens` of its request)
LEASES = "mcp-tasks"  # under MOOT_HOME: which server process runs each task's debate


class TaskRef(RequestParams):
    task_id: str = Field(description="The task's id: the debate's id.")


class TaskUpdate(TaskRef):
    input_responses: dict[str, Any] = Field(default_factory=dict)


def declared(ctx: ServerRequestContext[Any, Any]) -> bool:
    """Whether this request may be answered with a task: a 2026-07-28 request that declares the extension."""
    capabilities = ctx.session.client_capabilities
    extensions = capabilities.extensions if capabilities is not None else None
    return ctx.protocol_version in MODERN_PROTOCOL_VERSIONS and bool(extensions) and TASKS in (extensions or {})


# which process runs a task's debate


def _lease(debate_id: str) -> Path:
    return moot_home() / LEASES / f"{debate_id}.json"


def take_lease(debate_id: str, **more: Any) -> None:
    """Say in MOOT_HOME that this process runs the task's debate (and `more` of it: the question answered)."""
    path = _lease(debate_id)
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_text(json.dumps({"pid": os.getpid(), **more}), encoding="utf-8")


def _lease_of(debate_id: str) -> dict[str, Any] | None:
    try:
        data = json.loads(_lease(debate_id).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def orphaned(debate_id: str) -> bool:
    """A task whose server process is gone (killed, or ended with its client): a new server may resume it."""
    try:
        pid = int((_lease_of(debate_id) or {})["pid"])
    except (ValueError, KeyError, TypeError):
        return False  # not a task's debate: left alone (a CLI run, a `wait: false` call)
    if pid == os.getpid():
        return not running_here(debate_id)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


# the task's state, from the store


def _store() -> Store:
    from moot.store.shared import shared_store

    return shared_store()


def _row(task_id: str) -> DebateRow:
    row = _store().get_debate(task_id)
    if row is None or row.id != task_id:  # the whole id: a task's handle is never a prefix
        raise MCPError(code=INVALID_PARAMS, message=f"no task {task_id}")
    return row


def _progress(store: Store, row: DebateRow) -> str:
    rounds = len(store.rounds(row.id))
    answered = sum(1 for c in store.calls(row.id, prompts=False) if c.status == "ok")
    return f"{rounds} round(s) done, {answered} call(s) answered"


def _input_requests(store: Store, row: DebateRow) -> dict[str, Any]:
    """Each pending host request as the model request it is, keyed by its request id."""
    from moot.api.host import waiting_state

    asked: dict[str, Any] = {}
    for r in waiting_state(store, row).requests:
        about = {k: r.get(k) for k in ("seat", "role", "round", "phase", "schema")}
        asked[str(r["request_id"])] = {
            "method": "sampling/createMessage",
            "params": {
                "messages": [{"role": "user", "content": {"type": "text", "text": r.get("prompt", "")}}],
                "systemPrompt": r.get("system", ""),
                "maxTokens": REPLY_TOKENS,
                "_meta": {"moot/request": about},
            },
        }
    return asked


def _result(store: Store, row: DebateRow) -> dict[str, Any]:
    """What the plain call returns for this debate now it has ended: its result (below the gate it was started
    with: `isError` and the reason, as the plain call), or its failure."""
    if row.status == "failed" or row.result is None:
        failed = CallToolResult(content=[TextContent(type="text", text=row.error or row.status)], is_error=True)
        return failed.model_dump(by_alias=True, exclude_none=True, mode="json")
    return stored_result(store, row, inline_html=True).model_dump(by_alias=True, exclude_none=True, mode="json")


def _question(row: DebateRow) -> dict[str, Any] | None:
    """What a task's finished debate leaves to a person (decide's CONTESTED), until they answered."""
    from moot.protocols import spec_for

    lease = _lease_of(row.id)
    if row.status != "finished" or row.result is None or lease is None or lease.get("answered"):
        return None
    return question_request(spec_for(row.protocol), row.result)


def task_state(row: DebateRow, *, ask: bool = False) -> dict[str, Any]:
    """The task (`DetailedTask`) a debate's row is now; with `ask` (the client can ask its user), a finished
    debate that leaves a choice to a person is `input_required` with that question until it is answered."""
    store = _store()
    state: dict[str, Any] = {
        "taskId": row.id,
        "createdAt": row.created_at,
        "lastUpdatedAt": row.updated_at,
        "ttlMs": None,  # kept in the store until the user deletes it
        "pollIntervalMs": POLL_MS,
    }
    if row.status == "waiting":
        return {**state, "status": "input_required", "statusMessage": "host seats' replies are due",
                "inputRequests": _input_requests(store, row)}  # fmt: skip
    if row.status == "cancelled":
        return {**state, "status": "cancelled", "statusMessage": row.error or "cancelled"}
    if ask and (question := _question(row)) is not None:
        return {**state, "status": "input_required", "statusMessage": "the panel leaves the choice to you",
                "inputRequests": {HUMAN_KEY: question}}  # fmt: skip
    if row.status in ("finished", "failed"):
        return {**state, "status": "completed", "statusMessage": row.status, "result": _result(store, row)}
    return {**state, "status": "working", "statusMessage": _progress(store, row)}  # running, interrupted


def runs_programs(node: Any) -> bool:
    """Whether a stored request names a judge that runs a program (`command:`, an agent CLI)."""
    if isinstance(node, dict):
        return any(k in ("command", "cli") and v for k, v in node.items()) or any(map(runs_programs, node.values()))
    return isinstance(node, list) and any(map(runs_programs, node))


def resume_orphan(row: DebateRow, *, allow_commands: bool) -> None:
    """Continue here a task's debate whose server is gone, from the store (nothing done is paid again); one
    whose panel runs programs only on a server started with `--allow-commands` (else `moot resume` does)."""
    from moot.api.resume import resume
    from moot.mcp.background import then_report

    if running_here(row.id) or row.status not in ("running", "interrupted") or not orphaned(row.id):
        return
    if runs_programs(row.request) and not allow_commands:
        return
    take_lease(row.id)
    keep(row.id, then_report(row.id, resume(row.id, store=_store())))


# the methods


async def get_task(ctx: ServerRequestContext[Any, Any], params: TaskRef, *, allow_commands: bool) -> HandlerResult:
    require_client_extension(ctx, TASKS)
    row = _row(params.task_id)
    resume_orphan(row, allow_commands=allow_commands)
    capabilities = ctx.session.client_capabilities
    return task_state(row, ask=capabilities is not None and capabilities.elicitation is not None)


def _reply_text(response: Any) -> str | None:
    """A model reply's text from an input response (a `CreateMessageResult`: content a block or a list)."""
    content = response.get("content") if isinstance(response, dict) else None
    blocks = content if isinstance(content, list) else [content]
    texts = [b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str)]
    return "".join(texts) if texts else None


async def update_task(ctx: ServerRequestContext[Any, Any], params: TaskUpdate) -> HandlerResult:
    """Host replies continue the debate in this server; responses to no pending request are ignored."""
    from moot.api.host import submit_replies
    from moot.store.host import pending_requests

    require_client_extension(ctx, TASKS)
    row = _row(params.task_id)
    if HUMAN_KEY in params.input_responses and _question(row) is not None:  # the person's choice
        from moot.protocols import spec_for

        record(spec_for(row.protocol), row.id, chosen(params.input_responses[HUMAN_KEY]))
        take_lease(row.id, answered=True)
        return {}
    if row.status != "waiting" or running_here(row.id):
        return {}
    pending = {str(r["request_id"]) for r in pending_requests(_store(), row.id)}
    replies = [
        {"request_id": key, "reply": text}
        for key, response in params.input_responses.items()
        if key in pending and (text := _reply_text(response)) is not None
    ]
    if replies:
        take_lease(row.id)
        keep(row.id, submit_replies(row.id, replies, store=_store()))
    return {}


async def cancel_task(ctx: ServerRequestContext[Any, Any], params: TaskRef) -> HandlerResult:
    """`cancel_debate`, then the debate's run here stopped (its calls in flight too); a run elsewhere stops
    before its next call. A task already ended is acknowledged as it is."""
    from moot.api.host import ENDED, cancel_debate

    require_client_extension(ctx, TASKS)
    row = _row(params.task_id)
    if row.status in ENDED:
        return {}
    store = _store()
    cancel_debate(row.id, store=store)  # first: no call starts after this line, here or elsewhere
    await stop(row.id)
    if store.debate_status(row.id) != "cancelled":  # the run stopped here marked itself interrupted
        store.set_status(row.id, "cancelled", error="cancelled")
    with contextlib.suppress(OSError):
        _lease(row.id).unlink()
    return {}


class DebateTasks(Extension):
    """The tasks extension for the protocol tools `tools` (moot's own tools answer as they always do)."""

    identifier = TASKS

    def __init__(self, tools: Collection[str], *, allow_commands: bool = False) -> None:
        self.tool_names = frozenset(tools)
        self.allow_commands = allow_commands  # the server's `--allow-commands`: may a resumed panel run programs

    def methods(self) -> Sequence[MethodBinding]:
        return (
            MethodBinding("tasks/get", TaskRef, functools.partial(get_task, allow_commands=self.allow_commands)),
            MethodBinding("tasks/update", TaskUpdate, update_task),
            MethodBinding("tasks/cancel", TaskRef, cancel_task),
        )

    async def intercept_tool_call(
        self, params: CallToolRequestParams, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        """A protocol tool's debate started in the background, answered with its task; anything else (a dry
        run, bad input, a client without tasks) as the tool answers it."""
        if params.name not in self.tool_names or not declared(ctx):
            return await call_next(ctx)
        token = IN_BACKGROUND.set(True)
        try:
            result = await call_next(ctx)
        finally:
            IN_BACKGROUND.reset(token)
        data = result.structured_content if isinstance(result, CallToolResult) and not result.is_error else None
        if not isinstance(data, dict) or data.get("status") != "running":
            return result
        take_lease(str(data["debate_id"]))
        return {"resultType": "task", **task_state(_row(str(data["debate_id"])))}

"""The client half of the MCP tasks extension (SEP-2663), on the official SDK's client extension framework:
what a tasks-capable client (Claude Code's) sends, so that the tests drive moot's server as it would."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar, Literal

import anyio
from mcp.client import Client
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.types import CallToolResult, Request, RequestParams, Result
from pydantic import ConfigDict

TASKS = "io.modelcontextprotocol/tasks"
ENDED = ("completed", "failed", "cancelled")


class CreatedTask(Result):
    """`CreateTaskResult`: the task handle a tool call answers with."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"]
    task_id: str
    status: str
    created_at: str
    last_updated_at: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


class TaskState(Result):
    """`GetTaskResult` (a `DetailedTask`), every field kept."""

    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str
    status_message: str | None = None
    result: dict[str, Any] | None = None
    input_requests: dict[str, Any] | None = None


class Ack(Result):
    model_config = ConfigDict(extra="allow")


class TaskParams(RequestParams):
    task_id: str


class UpdateParams(TaskParams):
    input_responses: dict[str, Any]


class GetTask(Request[TaskParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    name_param: ClassVar[str | None] = "taskId"


class UpdateTask(Request[UpdateParams, Literal["tasks/update"]]):
    method: Literal["tasks/update"] = "tasks/update"
    name_param: ClassVar[str | None] = "taskId"


class CancelTask(Request[TaskParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    name_param: ClassVar[str | None] = "taskId"


async def _finish(task: CreatedTask, ctx: ClaimContext) -> CallToolResult:
    """Poll the task to its end and return the tool's result, as a client that hides tasks does."""
    while True:
        state = await ctx.session.send_request(GetTask(params=TaskParams(task_id=task.task_id)), TaskState)
        if state.status == "completed" and state.result is not None:
            return CallToolResult.model_validate(state.result)
        if state.status in ENDED:
            raise RuntimeError(f"task {task.task_id} ended {state.status}: {state.status_message}")
        await anyio.sleep(0.05)


class TasksClient(ClientExtension):
    identifier = TASKS

    def claims(self) -> Sequence[ResultClaim[Any]]:
        return (ResultClaim(result_type="task", model=CreatedTask, resolve=_finish),)


async def start_task(client: Client, name: str, args: dict[str, Any]) -> CreatedTask | CallToolResult:
    """A tool call that may answer with a task: the task itself (not its end), or the plain result."""
    result = await client.session.call_tool(name, args, allow_claimed=True)
    assert isinstance(result, CreatedTask | CallToolResult), result
    return result


async def get_task(client: Client, task_id: str) -> TaskState:
    return await client.session.send_request(GetTask(params=TaskParams(task_id=task_id)), TaskState)


async def cancel_task(client: Client, task_id: str) -> Ack:
    return await client.session.send_request(CancelTask(params=TaskParams(task_id=task_id)), Ack)


async def update_task(client: Client, task_id: str, responses: dict[str, Any]) -> Ack:
    params = UpdateParams(task_id=task_id, input_responses=responses)
    return await client.session.send_request(UpdateTask(params=params), Ack)


async def follow(client: Client, task_id: str, *, until: Sequence[str] = ENDED, limit: float = 60) -> TaskState:
    """`tasks/get` until the task's status is one of `until` (a bound, not a timing: a stuck task fails)."""
    with anyio.fail_after(limit):
        while True:
            state = await get_task(client, task_id)
            if state.status in until:
                return state
            await anyio.sleep(0.05)

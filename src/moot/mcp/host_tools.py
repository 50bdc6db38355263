"""The MCP tools of a debate with host seats: `submit_replies` and `cancel_debate`.

A protocol tool called with `judges: "host"` (or `proponent: "host"`, a judges file's `host: true`) returns
the waiting state: the requests of the host seats, each with the system text, prompt and reply schema a
vendor would be sent. The client answers them (itself, or with parallel sub-agents) and calls
`submit_replies`; the debate's other seats run (with progress) and the tool returns the next waiting state,
or the debate's result, the same JSON as the protocol tool's, with what the protocol tool was asked at the
start applied at the end: its gate (`require`, `fail_under`) and its HTML report (`html`). A reply the
protocol's parser cannot read is a tool error with the parser's one-line reason; its request stays
pending. The state is in the store, so a waiting debate continues from a new server process.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from mcp.server.mcpserver import Context
from mcp.types import CallToolResult, TextContent
from pydantic import BaseModel, Field

from moot.api.outcome import debate_finish
from moot.errors import MootError
from moot.mcp.confine import ClientRoots, tool_call, visible_debate
from moot.mcp.gates import ended
from moot.mcp.progress import with_progress
from moot.mcp.server import _tool_error, debate_result
from moot.mcp.typed import json_result, readable
from moot.render.serialize import json_inert
from moot.schemas.events import EventSink
from moot.store.shared import shared_store


class HostReply(BaseModel):
    """One host seat's reply: to the pending request of `seat`, or to `request_id`."""

    seat: str | None = Field(default=None, description="The host seat replying (judge-1, proponent, ...).")
    request_id: str | None = Field(default=None, description="Or the request's id, from the waiting state.")
    reply: str = Field(description="The reply's text, in the shape the request's prompt and schema ask for.")


RepliesParam = Annotated[
    list[HostReply], Field(description="Replies to the pending requests: [{seat (or request_id), reply}].")
]
DebateIdParam = Annotated[str, Field(description="Debate id (or a unique prefix of it).")]


async def submit_replies(
    ctx: Context, debate_id: DebateIdParam, replies: RepliesParam, client_roots: ClientRoots = None
) -> CallToolResult:
    """Give the host seats' replies to a waiting debate and continue it: returns the next waiting state (the
    requests still due), or the debate's result when it ended. A reply that cannot be read, or that holds a
    secret, is refused (the debate was started with redact_secrets: the secret is redacted instead)."""
    from moot.api.host import submit_replies as submit

    given = [r.model_dump(exclude_none=True) for r in replies]

    async def run(sink: EventSink) -> BaseModel:
        return await submit(debate_id, given, store=shared_store(), on_event=sink)

    try:
        async with tool_call(ctx, client_roots) as folders:
            debate_id = visible_debate(shared_store(), debate_id, folders).id
            result = await with_progress(ctx, None, run)
            ending = debate_finish(debate_id, shared_store())  # the gate and report the debate was started with
            return ended(
                result, ending, lambda r, html: readable(compact_result(r)) if html is None else debate_result(r, html)
            )
    except MootError as e:
        raise _tool_error(e) from None


def compact_result(result: BaseModel) -> CallToolResult:
    """`json_result`, its text compact: a waiting state repeats each request's system text and schema, and
    indenting them (Python's pure-Python encoder) took a third of a host step's time in a running server."""
    plain = result.model_dump(mode="json")
    text = json_inert(json.dumps(plain, ensure_ascii=False)) + "\n"
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=plain)


async def cancel_debate(ctx: Context, debate_id: DebateIdParam, client_roots: ClientRoots = None) -> CallToolResult:
    """End a debate that has not ended (waiting for host replies, interrupted) as cancelled; what it paid
    for stays in the store (a debate started inside the call's roots)."""
    from moot.api.host import cancel_debate as cancel

    try:
        async with tool_call(ctx, client_roots) as folders:
            data: dict[str, Any] = cancel(visible_debate(shared_store(), debate_id, folders).id)
    except MootError as e:
        raise _tool_error(e) from None
    return readable(json_result(data))


HOST_TOOLS: dict[str, Callable[..., Awaitable[CallToolResult]]] = {
    "submit_replies": submit_replies,
    "cancel_debate": cancel_debate,
}

"""`wait: false` on a protocol tool: the debate starts in the server and the tool answers at once.

Some clients cap a tool call at 60 s whatever progress they hear. With `wait: false` the tool returns
`{"debate_id": ..., "status": "running"}` as soon as the debate is in the store; the debate goes on in the
server process, and `show_debate` gives its status, then its result (or its waiting state, with host
seats). The HTML report the call asked for is written when the debate ends, as the waiting tool writes
it. A server stopped mid-way leaves the debate interrupted: `moot resume` finishes it.

A task-augmented call (`moot.mcp.tasks`) starts its debate the same way (`IN_BACKGROUND` says so to the
tool), and the debates running here are known by id, so that a task's cancel stops its calls at once.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine
from contextvars import ContextVar
from typing import Any

from moot.protocol.prepared import Prepared, RunOptions, new_debate_id, run_prepared

_RUNNING: dict[str, asyncio.Task[Any]] = {}  # held until done: the event loop keeps only weak references
# set by a caller that wants the tool's debate in the background whatever `wait` says (a task)
IN_BACKGROUND: ContextVar[bool] = ContextVar("moot_mcp_in_background", default=False)


def keep(debate_id: str, work: Coroutine[Any, Any, Any]) -> asyncio.Task[Any]:
    """Run `work` (the debate `debate_id`, to its end) as a task of the server's loop, known by its id."""
    task = asyncio.get_running_loop().create_task(_quietly(work))
    _RUNNING[debate_id] = task
    task.add_done_callback(lambda t: _RUNNING.pop(debate_id, None) if _RUNNING.get(debate_id) is t else None)
    return task


def running_here(debate_id: str) -> bool:
    """Whether this server process runs the debate now."""
    return debate_id in _RUNNING


async def stop(debate_id: str) -> None:
    """Stop the debate's run in this process (its vendor calls in flight too), and wait until it has."""
    task = _RUNNING.get(debate_id)
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def start(prepared: Prepared, options: RunOptions) -> dict[str, Any]:
    """Start the debate as a task of the server's loop; its id and `running` once it is in the store."""
    options.debate_id = options.debate_id or new_debate_id()
    keep(options.debate_id, then_report(options.debate_id, run_prepared(prepared, options)))
    await asyncio.sleep(0)  # the task runs to its first await: the debate's row is written by then
    return {"debate_id": options.debate_id, "protocol": prepared.protocol, "status": "running"}


async def then_report(debate_id: str, work: Coroutine[Any, Any, Any]) -> Any:
    """`work` (the debate, to its end), then the HTML report its call asked for (`html`), written where it
    asked, as the tool writes it when it waits for the verdict. A debate that ends waiting on a host seat
    leaves it to its last `submit_replies`; `html: "-"` is a content item of the result, not a file."""
    from moot.api.outcome import debate_finish
    from moot.api.report import write_html_report
    from moot.mcp.confine import HTML_IN_RESULT
    from moot.store.shared import shared_store

    result = await work
    store = shared_store()
    html = debate_finish(debate_id, store).html
    if html and html != HTML_IN_RESULT and getattr(result, "status", None) != "waiting":
        write_html_report(store, debate_id, html)
    return result


async def _quietly(work: Coroutine[Any, Any, Any]) -> None:
    """The debate to its end; how it ended is in the store (finished, failed, waiting, interrupted)."""
    try:
        await work
    except Exception:  # recorded in the store by run_debate; nobody awaits this task
        return

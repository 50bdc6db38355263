"""`wait: false` on a protocol tool: the debate starts in the server and the tool answers at once.

Some clients cap a tool call at 60 s whatever progress they hear. With `wait: false` the tool returns
`{"debate_id": ..., "status": "running"}` as soon as the debate is in the store; the debate goes on in the
server process, and `show_debate` gives its status, then its result (or its waiting state, with host
seats). A server stopped mid-way leaves the debate interrupted: `moot resume` finishes it.
"""

from __future__ import annotations

import asyncio
from typing import Any

from moot.protocol.prepared import Prepared, RunOptions, new_debate_id, run_prepared

_RUNNING: set[asyncio.Task[Any]] = set()  # held until done: the event loop keeps only weak references


async def start(prepared: Prepared, options: RunOptions) -> dict[str, Any]:
    """Start the debate as a task of the server's loop; its id and `running` once it is in the store."""
    options.debate_id = options.debate_id or new_debate_id()
    task = asyncio.get_running_loop().create_task(_run(prepared, options))
    _RUNNING.add(task)
    task.add_done_callback(_RUNNING.discard)
    await asyncio.sleep(0)  # the task runs to its first await: the debate's row is written by then
    return {"debate_id": options.debate_id, "protocol": prepared.protocol, "status": "running"}


async def _run(prepared: Prepared, options: RunOptions) -> None:
    """The debate to its end; how it ended is in the store (finished, failed, waiting, interrupted)."""
    try:
        await run_prepared(prepared, options)
    except Exception:  # recorded in the store by run_debate; nobody awaits this task
        return

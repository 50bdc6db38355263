"""Where a batch's debates run. A backend takes the items' work and reports each item as it starts and
ends; the runner does the rest (store rows, RESULTS.jsonl, progress), so resume is the same for all.

- `local`: this process's event loop, at most `concurrency` debates in flight.
- `ray`: Ray tasks, several items per task (`moot.batch.ray_backend`; Ray is imported only there).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Protocol

from moot.batch.debates import ItemEnded, Shared, Started, Work, run_one


class Backend(Protocol):
    live_spend: bool  # whether the debates' `call_done` events reach the batch as calls complete

    async def run(self, works: Sequence[Work], shared: Shared, started: Started, ended: ItemEnded) -> None:
        """Run every work item, calling `started` and then `ended` for each; on cancellation, stop them
        all (each debate marked interrupted in the store) and let the cancellation through."""
        ...


class LocalBackend:
    live_spend = True

    def __init__(self, concurrency: int) -> None:
        self.concurrency = concurrency

    async def run(self, works: Sequence[Work], shared: Shared, started: Started, ended: ItemEnded) -> None:
        queue = iter(works)

        async def worker() -> None:
            for work in queue:  # one iterator for every worker: no await between taking and starting
                started(work)
                ended(await run_one(work, shared))

        async with asyncio.TaskGroup() as group:
            for _ in range(min(self.concurrency, len(works))):
                group.create_task(worker())


def backend_for(name: str, concurrency: int, ray_address: str | None) -> Backend:
    if name == "ray":
        from moot.batch.ray_backend import RayBackend

        return RayBackend(concurrency, ray_address)
    return LocalBackend(concurrency)

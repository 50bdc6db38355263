"""`resume`: a debate that was interrupted, or failed with a vendor's outage, continued through its
protocol's spec; every call that had completed is replayed from the store, not paid for again."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from moot.engine.budget import stored_budget, stored_pricing
from moot.engine.core import stored_sampling
from moot.engine.panel_check import stored_author
from moot.errors import UsageError
from moot.panel_file import load_panel_file
from moot.protocol.panel import options_from_panel, with_author, with_max_cost
from moot.protocol.prepared import restore_redactions, run_prepared
from moot.protocols import entry, spec_for
from moot.store.db import Store


async def resume(
    debate_id: str,
    *,
    judges: str | Path | None = None,
    store: Store | None = None,
    on_event: Callable[..., None] | None = None,
    max_cost: float | None = None,
    retry_dropped: bool = False,
) -> BaseModel:
    """Continue a debate that was interrupted, replaying every call that had completed (not paid again).
    With `retry_dropped`, a finished debate that went on without a judge whose call failed (an outage) is
    run again the same way: its answered calls replayed, the failed ones asked again.

    Pass `judges` (the judges file) again when the original file held literal API keys, which are never
    stored. The debate keeps the budget it was started with (`--max-cost`, `budget:`), counting what it
    has already spent; `max_cost` replaces the cap.
    """
    store = store or Store.open_default()
    row = store.require_debate(debate_id)
    if row.status == "cancelled":  # ended by the user: continuing it would spend again what they stopped
        raise UsageError(f"debate {row.id} was cancelled: nothing continues it (see 'moot show {row.id}')")
    if row.status == "finished":
        dropped = [c.call_key for c in store.calls(row.id, prompts=False) if c.status != "ok"]
        if not dropped:
            raise UsageError(f"debate {row.id} already finished: use 'moot show {row.id}'")
        if not retry_dropped:
            raise UsageError(
                f"debate {row.id} already finished, without the judge of {len(dropped)} failed call(s) "
                f"({', '.join(dropped[:3])}): 'moot resume {row.id} --retry-dropped' asks them again"
            )
    if entry(row.protocol) is None:
        raise UsageError(f"debate {row.id} uses protocol '{row.protocol}', which this version cannot resume")
    panel = load_panel_file(judges) if judges else None
    options = options_from_panel(panel, store=store, on_event=on_event)
    options.budget = stored_budget(row.request) or options.budget
    options.pricing = stored_pricing(row.request, options.pricing)
    options.sampling = stored_sampling(row.request)
    if max_cost is not None:
        options.budget = with_max_cost(options.budget, max_cost, "max_cost")
    prepared = with_author(await spec_for(row.protocol).reprepare(row.request, panel), stored_author(row.request))
    restore_redactions(prepared, row.request)
    options.debate_id = row.id
    result: BaseModel = await run_prepared(prepared, options, resuming=True)
    return result


def resume_sync(*args: Any, **kwargs: Any) -> BaseModel:
    return asyncio.run(resume(*args, **kwargs))

"""What a Ray task runs: a chunk of a batch's debates, concurrently, in a store of its own that lives as
long as the task. Each debate comes as its stored request (inputs already read and checked by the
driver, so a worker needs none of the driver's files) and, to resume it, its export from the batch's
store; each goes back as its outcome and its export, which the driver imports into the batch's store.

Plain Python: Ray pickles `run_units` by reference and calls it in a worker, so nothing here imports Ray.
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moot.api.common import options_from_panel
from moot.api.prepared import run_prepared
from moot.api.specs import spec_for
from moot.engine.budget import Budget
from moot.engine.limits import Limits, ProviderLimit
from moot.engine.pricing import Pricing
from moot.errors import MootError
from moot.panel_file import PanelFile
from moot.reports.serialize import to_data
from moot.store.db import Store
from moot.store.transfer import export_debate, import_debate


@dataclass(frozen=True)
class Unit:
    """One debate for a worker (picklable: plain data, the judges file, the engine's settings)."""

    item_id: str
    protocol: str
    debate_id: str
    request: dict[str, Any]  # as stored: API keys removed (a worker reads its own environment's)
    panel: PanelFile | None
    budget: Budget | None
    pricing: Pricing
    export: dict[str, Any] | None = None  # the debate so far, to resume it


@dataclass(frozen=True)
class UnitResult:
    item_id: str
    debate_id: str
    status: str  # "done" | "failed"
    result: dict[str, Any] | None
    error: str | None
    export: dict[str, Any] | None  # None when the debate never started


def run_units(
    units: list[Unit], default: ProviderLimit | None, per_provider: dict[str, ProviderLimit]
) -> list[UnitResult]:
    """The Ray task: every unit of the chunk at once, under one rate limiter for the task (the batch's
    `limits:` travel as their settings; a limiter holds asyncio state that lives in one event loop)."""
    return asyncio.run(_run_all(units, Limits(default=default, per_provider=dict(per_provider))))


async def _run_all(units: list[Unit], limits: Limits) -> list[UnitResult]:
    with tempfile.TemporaryDirectory(prefix="moot-ray-") as folder:
        store = Store(Path(folder) / "moot.db")
        try:
            return list(await asyncio.gather(*(_run_unit(u, store, limits) for u in units)))
        finally:
            store.close()


async def _run_unit(unit: Unit, store: Store, limits: Limits) -> UnitResult:
    status, result, error = "failed", None, None
    try:
        if unit.export is not None:
            import_debate(store, unit.export)
        prepared = await spec_for(unit.protocol).reprepare(unit.request, unit.panel)
        options = options_from_panel(unit.panel, store=store)
        options.limits, options.pricing, options.budget = limits, unit.pricing, unit.budget
        options.debate_id = unit.debate_id
        data = await run_prepared(prepared, options, resuming=unit.export is not None)
        status, result = "done", to_data(data)
    except Exception as e:
        error = str(e) if isinstance(e, MootError) else f"{type(e).__name__}: {e}"
    started = store.get_debate(unit.debate_id) is not None
    export = export_debate(store, unit.debate_id) if started else None
    return UnitResult(unit.item_id, unit.debate_id, status, result, error, export)

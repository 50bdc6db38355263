"""What a Ray task runs: a chunk of a batch's debates, concurrently, in a store of its own that lives as
long as the task. Each debate comes as its stored request (inputs already read and checked by the
driver, so a worker needs none of the driver's files) and, to resume it, its export from the batch's
store. Each call goes to the batch's journal as it completes (`moot.batch.ray_journal`), through the
cluster's limiter (`moot.batch.ray_leases`); each debate goes back as its outcome and the rest of its
export (its rounds, its end), which the driver imports into the batch's store.

Plain Python: Ray pickles `run_units` by reference and calls it in a worker, so nothing here imports Ray.
"""

from __future__ import annotations

import asyncio
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moot.batch.ray_journal import JournaledStore
from moot.batch.ray_leases import LeasedLimits
from moot.engine.budget import Budget
from moot.engine.limits import Limits, ProviderLimit
from moot.engine.pricing import Pricing
from moot.errors import MootError
from moot.panel_file import PanelFile
from moot.protocol.panel import options_from_panel
from moot.protocol.prepared import run_prepared
from moot.protocols import spec_for
from moot.render.serialize import to_data
from moot.store.db import Store
from moot.store.transfer import export_debate, import_debates


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
    units: list[Unit],
    default: ProviderLimit | None,
    per_provider: dict[str, ProviderLimit],
    limiter: Any = None,
    journal: Any = None,
) -> list[UnitResult]:
    """The Ray task: every unit of the chunk at once. Its calls go through the cluster's `limiter` (an
    actor; without one, a limiter for this task alone) and each is sent to the batch's `journal` as it
    completes (without one, the debates travel back only with the task's result)."""
    return asyncio.run(_run_all(units, default, dict(per_provider), limiter, journal))


async def _run_all(
    units: list[Unit], default: ProviderLimit | None, per_provider: dict[str, ProviderLimit], limiter: Any, journal: Any
) -> list[UnitResult]:
    limits = Limits(default, per_provider) if limiter is None else LeasedLimits(default, per_provider, limiter)
    with tempfile.TemporaryDirectory(prefix="moot-ray-") as folder:
        path = Path(folder) / "moot.db"
        store = Store(path) if journal is None else JournaledStore(path, journal)
        try:
            return list(await asyncio.gather(*(_run_unit(u, store, limits, journal) for u in units)))
        finally:
            try:
                if isinstance(store, JournaledStore):
                    await store.settle()
            finally:
                if isinstance(limits, LeasedLimits):
                    await limits.aclose()
                store.close()


async def _run_unit(unit: Unit, store: Store, limits: Limits, journal: Any) -> UnitResult:
    status, result, error = "failed", None, None
    try:
        await _restore(unit, store, journal)
        prepared = await spec_for(unit.protocol).reprepare(unit.request, unit.panel)
        options = options_from_panel(unit.panel, store=store)
        options.limits, options.pricing, options.budget = limits, unit.pricing, unit.budget
        options.debate_id = unit.debate_id
        resuming = store.get_debate(unit.debate_id) is not None
        data = await run_prepared(prepared, options, resuming=resuming)
        status, result = "done", to_data(data)
    except Exception as e:
        error = str(e) if isinstance(e, MootError) else f"{type(e).__name__}: {e}"
    started = store.get_debate(unit.debate_id) is not None
    export = None
    if started:
        if isinstance(store, JournaledStore):
            export = store.final(unit.debate_id)
        else:
            export = export_debate(store, unit.debate_id)
    return UnitResult(unit.item_id, unit.debate_id, status, result, error, export)


async def _restore(unit: Unit, store: Store, journal: Any) -> None:
    """The debate so far into this task's store: as the driver's store had it, then what earlier attempts
    of this task sent the journal (a retried task replays those calls instead of paying for them again)."""
    pieces = [unit.export] if unit.export is not None else []
    if journal is not None:
        pieces += await journal.pieces.remote(unit.debate_id)
    if pieces:
        import_debates(store, pieces)
    if isinstance(store, JournaledStore) and store.get_debate(unit.debate_id) is not None:
        store.adopt(unit.debate_id)

"""One item of a batch becomes one debate: prepared from its arguments (or again from the store, to
resume it), given the batch's shared limits, prices and cost cap, run, and turned into an `ItemOutcome`.

A failing item never raises: its error is the outcome. Only an interruption (cancellation, Ctrl-C) and a
store that cannot be written (`StoreError`: a full disk stops the whole batch at once, so that no further
call is paid for and lost) propagate, after `run_debate` has marked the debate interrupted, so the next
run resumes it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from moot.batch.cap import CostCap
from moot.batch.items import BatchItem
from moot.engine.budget import Budget, stored_budget
from moot.engine.core import stored_sampling
from moot.engine.limits import Limits
from moot.engine.panel_check import stored_author
from moot.engine.pricing import Pricing
from moot.panel_file import PanelFile
from moot.protocol.panel import check_priced, options_from_panel, with_author
from moot.protocol.prepared import Prepared, RunOptions, estimate_prepared, run_prepared
from moot.protocol.spec import ProtocolSpec
from moot.render.serialize import to_data
from moot.schemas.events import EventSink
from moot.store import batches
from moot.store.db import Store, StoreError


@dataclass
class Shared:
    """What every debate of one batch shares: one store, one limiter, one price table, one cap."""

    batch_id: str
    store: Store
    spec: ProtocolSpec
    limits: Limits
    pricing: Pricing
    panel: PanelFile | None  # `--judges` (or the project's judges file), for items without their own
    panels: Mapping[str, PanelFile]  # the items' own judges files, by resolved path
    cap: CostCap | None = None
    on_event: EventSink | None = None


@dataclass(frozen=True)
class Work:
    item: BatchItem
    debate_id: str
    resume: bool  # the item's debate is in the store: continue it
    again: bool = False  # its debate finished without a judge an outage dropped: run it again (replaying)


@dataclass(frozen=True)
class ItemOutcome:
    item: BatchItem
    debate_id: str | None
    status: str  # "done" | "failed"
    result: dict[str, Any] | None = None
    error: str | None = None


Started = Callable[[Work], None]  # a backend's report that an item's debate is under way
ItemEnded = Callable[[ItemOutcome], None]  # ... and that the item ended


@dataclass
class Ready:
    """A debate about to run, its inputs validated and its judges built."""

    work: Work
    prepared: Prepared
    options: RunOptions


def item_panel(item: BatchItem, shared: Shared) -> PanelFile | None:
    return shared.panels[item.judges] if isinstance(item.judges, str) else shared.panel


def failed(work: Work, error: BaseException | str, *, started: bool = True) -> ItemOutcome:
    text = error if isinstance(error, str) else _message(error)
    return ItemOutcome(work.item, work.debate_id if started else None, "failed", error=text)


def _message(e: BaseException) -> str:
    """One line for RESULTS.jsonl, the store and the summary: moot's own message (already redacted), pydantic's
    first complaint, else the exception's type and text, redacted."""
    from pydantic import ValidationError

    from moot.errors import MootError
    from moot.inputs import validation_message
    from moot.schemas.safe_text import redact

    if isinstance(e, MootError):
        return str(e)
    if isinstance(e, ValidationError):
        return redact(validation_message(e, "invalid arguments"))
    return redact(f"{type(e).__name__}: {e}")


async def prepare(work: Work, shared: Shared) -> Ready | ItemOutcome:
    """The item's debate ready to run (with its share of the cap), or how the item ended without one:
    already finished in the store, bad arguments, or no room left under `--max-cost`."""
    if work.resume and not work.again:
        row = shared.store.get_debate(work.debate_id)
        if row is not None and row.status == "finished" and row.result is not None:
            return ItemOutcome(work.item, row.id, "done", result=row.result)
    try:
        ready = await (_again(work, shared) if work.resume else _fresh(work, shared))
    except StoreError:
        raise
    except Exception as e:
        return failed(work, e, started=work.resume)
    ready.options.limits = shared.limits
    ready.options.pricing = shared.pricing
    ready.options.debate_id = work.debate_id
    if shared.cap is None:
        return ready
    refused = await _reserve(ready, shared.cap)
    if refused is not None:
        await close_judges(ready.prepared)
        return failed(work, refused, started=work.resume)
    return ready


async def _fresh(work: Work, shared: Shared) -> Ready:
    item = work.item
    judges: Any = item.judges if isinstance(item.judges, list) else item_panel(item, shared)
    prepared, options = await shared.spec.prepare(
        **item.arguments, judges=judges, store=shared.store, on_event=shared.on_event
    )
    return Ready(work, prepared, options)


async def _again(work: Work, shared: Shared) -> Ready:
    """The stored debate prepared again through its protocol's spec, as `moot resume` does."""
    row = shared.store.get_debate(work.debate_id)
    assert row is not None
    panel = item_panel(work.item, shared)
    prepared = with_author(await shared.spec.reprepare(row.request, panel), stored_author(row.request))
    options = options_from_panel(panel, store=shared.store, on_event=shared.on_event)
    options.budget = stored_budget(row.request) or options.budget
    options.sampling = stored_sampling(row.request)
    return Ready(work, prepared, options)


async def _reserve(ready: Ready, cap: CostCap) -> str | None:
    """Give the debate its share of the batch's cap; why it may not start, if it may not."""
    try:
        check_priced(ready.prepared.seats, ready.options.pricing)
    except Exception as e:
        return str(e)
    worst = worst_case(ready)
    allowed = await cap.reserve(ready.work.debate_id, worst)
    if allowed is None:
        return (
            f"not started: its worst case (${worst:.4f}) does not fit under --max-cost ${cap.cap:g} "
            f"(${cap.settled:.4f} spent by the batch)"
        )
    own = ready.options.budget
    if own is not None and own.max_cost_usd is not None:
        allowed = min(allowed, own.max_cost_usd)
    ready.options.budget = Budget(max_cost_usd=allowed, wall_seconds=own.wall_seconds if own else None)
    return None


def worst_case(ready: Ready) -> float:
    """The dearest way the debate can go, as `--dry-run` prices it."""
    plan = estimate_prepared(ready.prepared, ready.options.pricing)
    return max(float(s["worst_usd"] or 0.0) for s in plan["scenarios"])


async def close_judges(prepared: Prepared) -> None:
    """The judges of a debate that will not run (a run closes its own)."""
    for seat in prepared.seats:
        for judge in seat.judges:
            await judge.aclose()


def mark_item(
    store: Store, batch_id: str, item: BatchItem, status: str, *, debate_id: str | None = None, error: str | None = None
) -> None:
    """Where an item stands, in its row of the store: keyed by its id, with its line in the items file."""
    batches.set_item(store, batch_id, item.id, line=item.line, status=status, debate_id=debate_id, error=error)


def mark_running(work: Work, shared: Shared) -> None:
    """The item's row names its debate before the debate starts."""
    mark_item(shared.store, shared.batch_id, work.item, "running", debate_id=work.debate_id)


async def execute(ready: Ready, shared: Shared) -> ItemOutcome:
    """Run (or resume) the debate. Its item's row names the debate before it starts, so that a kill at
    any moment leaves it resumable."""
    work = ready.work
    mark_running(work, shared)
    try:
        result = await run_prepared(ready.prepared, ready.options, resuming=work.resume)
    except StoreError:
        raise
    except Exception as e:
        return failed(work, e, started=shared.store.get_debate(work.debate_id) is not None)
    finally:
        if shared.cap is not None:
            await shared.cap.release(work.debate_id, batches.debate_cost(shared.store, work.debate_id))
    return ItemOutcome(work.item, work.debate_id, "done", result=to_data(result))


async def run_one(work: Work, shared: Shared) -> ItemOutcome:
    ready = await prepare(work, shared)
    return ready if isinstance(ready, ItemOutcome) else await execute(ready, shared)

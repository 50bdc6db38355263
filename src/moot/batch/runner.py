"""`run_batch`: every item of an items file debated, at most `concurrency` at a time, on one store, one
rate limiter and one price table, each result written to RESULTS.jsonl as its item ends.

A batch's id comes from its protocol and the items file's resolved path, so running the same command
again continues it: done items are kept, interrupted ones resume from the store (completed calls are
replayed, not paid again), failed ones are tried again (their debates resumed), the rest start.

One run per batch: a second one is refused while the first holds the batch's lock (`moot.batch.lock`).
A store that cannot be written (a full disk) or a results file replaced under the run stops the batch
at once; what it had answered is kept (`moot.batch.spill`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from moot.api.history import verdict_word
from moot.api.results import with_envelope
from moot.batch.backends import Backend, backend_for
from moot.batch.cap import CostCap
from moot.batch.debates import ItemOutcome, Work, mark_item
from moot.batch.dropped import retry_worthy
from moot.batch.items import BatchItem, load_items
from moot.batch.lock import BatchLock, lock_paths
from moot.batch.results import ResultsFile, ResultsReplaced, read_done_lines, read_lines, result_line
from moot.batch.setup import BatchSetup, check_keys, check_options, shared_for
from moot.batch.spill import keep_unsaved, restore_unsaved
from moot.batch.summary import BatchSummary, Ended, summarize
from moot.errors import MootError
from moot.schemas.events import Event
from moot.store import batches
from moot.store.batches import SpendTotals
from moot.store.connection import RESTORE
from moot.store.db import Store, StoreError, StoreFull

SUMMARY_EVERY_S = 1.0  # the stored summary (what `moot show BATCH_ID` reads mid-run) is refreshed this often


@dataclass(frozen=True)
class BatchProgress:
    """Where a running batch stands, for a progress bar: items ended, debates running, spend so far."""

    total: int
    done: int
    failed: int
    running: int
    calls: int
    tokens: int
    cost: float
    elapsed: float


ProgressSink = Callable[[BatchProgress], None]


def batch_id_for(protocol: str, items_path: str | Path) -> str:
    """The same protocol over the same items file (by its resolved path) is the same batch."""
    key = f"{protocol}\0{Path(items_path).resolve()}"
    return "batch-" + hashlib.sha256(key.encode()).hexdigest()[:12]


def default_out(items_path: str | Path) -> Path:
    """`items.jsonl` -> `items.results.jsonl`, beside it."""
    path = Path(items_path).resolve()
    return path.with_name(f"{path.stem}.results.jsonl")


async def run_batch(
    items: str | Path,
    protocol: str,
    *,
    judges: str | Path | None = None,
    concurrency: int = 8,
    out: str | Path | None = None,
    max_cost: float | None = None,
    backend: str = "local",
    ray_address: str | None = None,
    store: Store | None = None,
    progress: ProgressSink | None = None,
    retry_dropped: bool = True,
) -> BatchSummary:
    """Debate every item of `items` (ITEMS.jsonl) with `protocol` (one the registry lists).

    `judges` is the judges file for items without their own `judges`; its `limits:` and `pricing:` apply
    to the whole batch. At most `concurrency` debates run at once. Each item's line goes to `out`
    (default: `<items>.results.jsonl` beside the items file) as soon as it ends. `max_cost` (USD) caps
    what the whole batch spends, earlier runs of it included (see `moot.batch.cap`). `backend` is
    "local" (this process) or "ray" (Ray tasks; `ray_address` names an existing cluster). `progress` is
    called as items end and as calls complete. `retry_dropped` runs again (replaying every answered call)
    the done items whose debate dropped a judge after a transport failure (`moot.batch.dropped`).

    Raises UsageError for bad input, before any call. A failing item never stops the others: it is
    `failed` in the summary and in its results line. Cancelled (Ctrl-C), the batch is marked interrupted
    and the cancellation propagates; calling `run_batch` again with the same items file continues it.
    """
    check_options(concurrency, max_cost, backend)
    # a missing `ray`, or a Ray cluster that takes no connection, is bad input too (tried off the loop)
    engine = await asyncio.to_thread(backend_for, backend, concurrency, ray_address)
    run = _Run.plan(items, protocol, judges, out, max_cost, store, progress)
    run.retry_dropped = retry_dropped
    try:
        with BatchLock(run.batch_id, lock_paths(run.batch_id, run.out, run.store.path)):
            await check_keys(run.setup)
            return await run.go(engine)
    finally:
        if store is None:  # the store this run opened
            run.store.close()


def run_batch_sync(*args: Any, **kwargs: Any) -> BatchSummary:
    """`run_batch`, for code that is not async."""
    return asyncio.run(run_batch(*args, **kwargs))


class _Run:
    """One run of a batch: where each item stands, its results file, its tally, its stored summary."""

    @classmethod
    def plan(
        cls,
        items: str | Path,
        protocol: str,
        judges: str | Path | None,
        out: str | Path | None,
        max_cost: float | None,
        store: Store | None,
        progress: ProgressSink | None,
    ) -> _Run:
        """Everything checked and settled before any call (bad input raises UsageError here)."""
        setup = BatchSetup.load(protocol, judges, load_items(items, protocol), max_cost, str(items))
        results_path = Path(out).resolve() if out else default_out(items)
        batch_id = batch_id_for(protocol, items)
        return cls(store or Store.open_default(), setup, batch_id, str(Path(items).resolve()), results_path, progress)

    def __init__(
        self, store: Store, setup: BatchSetup, batch_id: str, items_path: str, out: Path, progress: ProgressSink | None
    ) -> None:
        self.store, self.setup, self.batch_id, self.out = store, setup, batch_id, out
        self.items_path = items_path
        self.progress = progress
        self.ended: dict[str, Ended] = {}
        self.tally: dict[str, int] = {}  # items ended, by status
        self.running = 0
        self.spend = SpendTotals()
        self.t0 = time.monotonic()
        self.earlier_wall = 0.0
        self.last_stored = 0.0
        self.results = ResultsFile(out)
        self.live_spend = True
        self.retry_dropped = True
        self.failed_calls: dict[str, list[batches.FailedCall]] = {}

    async def go(self, engine: Backend) -> BatchSummary:
        self.live_spend = engine.live_spend
        self.results.probe()  # a results folder that cannot be written is bad input, before the store's row
        restore_unsaved(self.store, self.out)
        status, stopped = "interrupted", False
        try:
            works = self._start()
            shared = shared_for(self.setup, self.batch_id, self.store, self._spent_before(), self._event)
            await engine.run(works, shared, self._started, self._ended)
            status = "finished" if len(self.ended) == len(self.setup.items) else "interrupted"
        except (StoreError, ResultsReplaced) as e:
            stopped = True
            raise self._stopped(e) from None
        except BaseExceptionGroup as group:  # the local backend's task group: the first debate that stopped it
            stopped = True
            raise self._stopped(_first_stop(group)) from None
        finally:
            summary = self._finish(status, stopped=stopped)
        return summary

    def _stopped(self, e: MootError) -> MootError:
        """What stopped the batch, said once: for a full disk, where the answered calls went."""
        if isinstance(e, StoreFull):
            kept = keep_unsaved(self.store, self.out)
            return StoreFull(e.path, e.problem, f"the batch stopped; {kept}; free some space and run it again")
        return e

    # the start: where each item stands

    def _start(self) -> list[Work]:
        options = {"judges": self.setup.judges_path, "max_cost": self.setup.max_cost}
        batch = batches.open_batch(
            self.store, self.batch_id, self.setup.protocol, self.items_path, str(self.out), options
        )
        if batch.summary:
            self.earlier_wall = float(batch.summary.get("wall_seconds") or 0.0)
        rows = batches.batch_items(self.store, self.batch_id)
        statuses = batches.debate_statuses(self.store, self.batch_id)
        self._check_store_holds_results()
        self.failed_calls = batches.failed_calls(self.store, self.batch_id)
        works: list[Work] = []
        done: dict[str, tuple[BatchItem, str]] = {}
        for item in self.setup.items:
            row = rows.get(item.id)
            work = self._work(item, row, statuses.get(row.debate_id or "") if row else None)
            if isinstance(work, Work):
                works.append(work)
            else:
                done[item.id] = (item, work)
        self._keep_done(done)
        self.spend = batches.batch_spend(self.store, self.batch_id)
        self._store_summary("running", force=True)
        return works

    def _check_store_holds_results(self) -> None:
        """Done lines in RESULTS.jsonl name debates that must be in the store: an emptied, truncated or
        other store would silently pay for every one of them again."""
        named = {str(line["debate_id"]) for line in read_lines(self.out) if line.get("status") == "done"}
        named.discard("None")
        if not named:
            return
        missing = len(named) - len(batches.known_debates(self.store, named))
        if missing:
            raise StoreError(
                str(self.store.path),
                f"lacks {missing} of the {len(named)} finished debates that {self.out} names",
                f"{RESTORE}, or move {self.out.name} aside to start the batch afresh",
            )

    def _work(self, item: BatchItem, row: batches.BatchItemRow | None, debate: str | None) -> Work | str:
        """The item's work, or the id of its finished debate when it is done (`debate`: the status of the
        debate its row names, if that debate is in the store)."""
        if row is None:
            mark_item(self.store, self.batch_id, item, "pending")
            return Work(item, str(uuid.uuid4()), resume=False)
        debate_id = row.debate_id or str(uuid.uuid4())
        if debate == "finished":
            if self.retry_dropped and retry_worthy(self.failed_calls.get(debate_id, ())):
                return Work(item, debate_id, resume=True, again=True)
            if row.status != "done":  # killed between the debate's end and its row's
                mark_item(self.store, self.batch_id, item, "done")
            return debate_id
        return Work(item, debate_id, resume=debate is not None)

    def _keep_done(self, done: dict[str, tuple[BatchItem, str]]) -> None:
        """The results file starts with a line for every done item: its own line (in the file's order),
        else one from the store."""
        kept = read_done_lines(self.out, {item_id: debate_id for item_id, (_, debate_id) in done.items()})
        missing = [item_id for item_id in done if item_id not in kept]
        stored = batches.done_results(self.store, self.batch_id, missing) if missing else {}
        stored = {i: with_envelope(self.setup.protocol, r) for i, r in stored.items()}  # one stored before the envelope
        lines = list(kept.values())
        lines += [result_line(done[i][0].given_id, done[i][1], "done", stored.get(i), None) for i in missing]
        for line in lines:
            item_id = str(line["id"])
            degraded = done[item_id][1] in self.failed_calls if item_id in done else False
            if degraded:
                line["degraded"] = True
            self._count(item_id, Ended("done", verdict_word(line.get("result")), degraded=degraded))
        self.results.start(lines)

    def _spent_before(self) -> CostCap | None:
        cap = self.setup.max_cost
        return CostCap(cap, batches.debate_costs(self.store, self.batch_id)) if cap is not None else None

    # as items go

    def _started(self, work: Work) -> None:
        self.running += 1
        self._notify()

    def _ended(self, outcome: ItemOutcome) -> None:
        item = outcome.item
        self.running -= 1
        mark_item(self.store, self.batch_id, item, outcome.status, debate_id=outcome.debate_id, error=outcome.error)
        degraded = outcome.status == "done" and bool(
            outcome.debate_id and batches.debate_failed_calls(self.store, outcome.debate_id)
        )
        line = result_line(item.given_id, outcome.debate_id, outcome.status, outcome.result, outcome.error)
        if degraded:
            line["degraded"] = True
        self.results.write(line)
        self._count(item.id, Ended(outcome.status, verdict_word(outcome.result), outcome.error, degraded))
        self._store_summary("running")
        self._notify()

    def _count(self, item_id: str, ended: Ended) -> None:
        self.ended[item_id] = ended
        self.tally[ended.status] = self.tally.get(ended.status, 0) + 1

    def _event(self, event: Event) -> None:
        if event.kind != "call_done" or event.data.get("replayed"):
            return
        d = event.data
        if not d.get("ok", True):  # a failed attempt: not paid, counted apart
            self.spend = replace(self.spend, failed_attempts=self.spend.failed_attempts + 1)
            self._notify()
            return
        tokens = int(d.get("input_tokens") or 0) + int(d.get("output_tokens") or 0)
        self.spend = replace(
            self.spend,
            calls=self.spend.calls + 1,
            tokens=self.spend.tokens + tokens,
            cost=self.spend.cost + float(d.get("cost_usd") or 0.0),
        )
        self._notify()

    def _notify(self) -> None:
        if self.progress is None:
            return
        done, failed, s = self.tally.get("done", 0), self.tally.get("failed", 0), self.spend
        elapsed = time.monotonic() - self.t0
        self.progress(
            BatchProgress(len(self.setup.items), done, failed, self.running, s.calls, s.tokens, s.cost, elapsed)
        )

    # the end

    def _summary(self, status: str) -> BatchSummary:
        head = {"batch_id": self.batch_id, "protocol": self.setup.protocol, "status": status, "results": str(self.out)}
        wall = self.earlier_wall + time.monotonic() - self.t0
        return summarize(head, [i.id for i in self.setup.items], self.ended, self.spend, wall)

    def _store_summary(self, status: str, *, force: bool = False) -> None:
        now = time.monotonic()
        if force or now - self.last_stored >= SUMMARY_EVERY_S:
            self.last_stored = now
            if not self.live_spend:  # the backend's debates reach the store only as they end
                self.spend = batches.batch_spend(self.store, self.batch_id)
            batches.set_batch(self.store, self.batch_id, status, self._summary(status).to_dict())

    def _finish(self, status: str, *, stopped: bool = False) -> BatchSummary:
        """The batch's end, stored; a batch stopped by its store writes what it still can."""
        self.results.close()
        with contextlib.suppress(StoreError) if stopped else contextlib.nullcontext():
            self.spend = batches.batch_spend(self.store, self.batch_id)
        summary = self._summary(status)
        with contextlib.suppress(StoreError) if stopped else contextlib.nullcontext():
            batches.set_batch(self.store, self.batch_id, status, summary.to_dict())
        return summary


def _first_stop(group: BaseExceptionGroup[BaseException]) -> MootError:
    """The store or results fault inside a task group's exceptions (anything else is raised as it is)."""
    for e in group.exceptions:
        if isinstance(e, BaseExceptionGroup):
            with contextlib.suppress(BaseExceptionGroup):
                return _first_stop(e)
        elif isinstance(e, StoreError | ResultsReplaced):
            return e
    raise group

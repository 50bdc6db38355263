"""The Batches pages' data, read live from the batch tables: a batch's items by status (pending, running,
done, failed, interrupted) are counted from `batch_items` at each request, so a page polling its progress
sees every item the moment the batch writes its row, not when the batch's summary is next stored."""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from moot.store.batches import ITEM_STATUSES, BatchRow, get_batch, list_batches
from moot.view.index import Snapshot
from moot.view.reader import ReadOnlyStore

MOST_ITEMS = 2000  # items listed on a batch's page (the counts cover them all)


@dataclass(frozen=True)
class Progress:
    """Where a batch stands now: what its page shows and its poll answers (`as_json`)."""

    batch_id: str
    protocol: str
    status: str
    total: int
    counts: dict[str, int]
    distribution: dict[str, int]
    spend: float
    updated_at: str

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Item:
    item_id: str
    line: int
    status: str
    debate_id: str
    error: str
    verdict: str


@dataclass
class BatchPage:
    batch: BatchRow
    progress: Progress
    items: list[Item] = field(default_factory=list)
    failures: list[Item] = field(default_factory=list)
    more: int = 0  # items not listed


def progress(store: ReadOnlyStore, batch: BatchRow, debates: Snapshot) -> Progress:
    """Counts from the batch's rows as they are now; verdicts of its done items from the debates' index."""
    counts = dict.fromkeys(ITEM_STATUSES, 0)
    verdicts: Counter[str] = Counter()
    spend = 0.0
    unpriced: list[str] = []  # debates without a result's spend yet: their calls are summed
    for r in store.execute("SELECT status, debate_id FROM batch_items WHERE batch_id = ?", (batch.id,)):
        counts[r["status"]] = counts.get(r["status"], 0) + 1
        row = debates.by_id.get(r["debate_id"] or "")
        if r["status"] == "done":
            verdicts[row.verdict if row is not None and row.verdict else "-"] += 1
        if row is not None and row.spend is not None:
            spend += row.spend
        elif r["debate_id"]:
            unpriced.append(r["debate_id"])
    spend += _calls_cost(store, unpriced)
    return Progress(
        batch_id=batch.id,
        protocol=batch.protocol,
        status=batch.status,
        total=sum(counts.values()),
        counts=counts,
        distribution=dict(sorted(verdicts.items(), key=lambda kv: (-kv[1], kv[0]))),
        spend=round(spend, 6),
        updated_at=batch.updated_at,
    )


def _calls_cost(store: ReadOnlyStore, debate_ids: list[str]) -> float:
    """What these debates' completed calls cost so far (a running debate has no result to read it from)."""
    total = 0.0
    for start in range(0, len(debate_ids), 500):
        part = debate_ids[start : start + 500]
        marks = ", ".join("?" for _ in part)
        sql = f"SELECT COALESCE(SUM(cost_usd), 0) FROM calls WHERE status = 'ok' AND debate_id IN ({marks})"  # noqa: S608
        total += float(store.execute(sql, part)[0][0])
    return total


def batch_page(store: ReadOnlyStore, batch_id: str, debates: Snapshot) -> BatchPage | None:
    batch = get_batch(store, batch_id)
    if batch is None or batch.id != batch_id:  # exact ids only: a page's URL names one batch
        return None
    rows = store.execute(
        "SELECT item_id, line, status, debate_id, error FROM batch_items WHERE batch_id = ? ORDER BY line LIMIT ?",
        (batch.id, MOST_ITEMS),
    )
    items = [
        Item(r["item_id"], r["line"], r["status"], r["debate_id"] or "", r["error"] or "", _verdict(debates, r))
        for r in rows
    ]
    failed = store.execute(
        "SELECT item_id, line, status, debate_id, error FROM batch_items WHERE batch_id = ? AND status = 'failed'"
        " ORDER BY line",
        (batch.id,),
    )
    failures = [Item(r["item_id"], r["line"], r["status"], r["debate_id"] or "", r["error"] or "", "") for r in failed]
    page = BatchPage(batch, progress(store, batch, debates), items, failures)
    page.more = max(0, page.progress.total - MOST_ITEMS)
    return page


def _verdict(debates: Snapshot, r: Any) -> str:
    row = debates.by_id.get(r["debate_id"] or "")
    return row.verdict if row is not None and r["status"] == "done" else ""


def all_progress(store: ReadOnlyStore, debates: Snapshot, limit: int = 200) -> list[Progress]:
    return [progress(store, b, debates) for b in list_batches(store, limit)]

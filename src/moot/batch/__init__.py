"""Many debates from one file: `run_batch` over ITEMS.jsonl, resumable, on one store, one rate limiter
and one price table, locally or as Ray tasks (`moot batch` is its command)."""

from moot.batch.items import BatchItem, load_items
from moot.batch.runner import BatchProgress, batch_id_for, default_out, run_batch, run_batch_sync
from moot.batch.summary import BatchSummary, summary_text

__all__ = [
    "BatchItem",
    "BatchProgress",
    "BatchSummary",
    "batch_id_for",
    "default_out",
    "load_items",
    "run_batch",
    "run_batch_sync",
    "summary_text",
]

"""Bench runs as `moot view` finds them: one folder per run under `$MOOT_HOME/bench/runs/<key>/`, holding its
items file, the batch's results file and, once the bench has figures, `result.json` (the `BenchResult`).

A run's key is matched against the folder names that exist, never joined into a path from the URL, so no
request can name a file outside the runs folder.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from moot.schemas.bench import BenchResult
from moot.store.batches import BatchRow
from moot.view.reader import ReadOnlyStore

RESULT_FILE = "result.json"


@dataclass(frozen=True)
class BenchRunInfo:
    key: str
    folder: Path
    items_path: Path
    result: BenchResult | None
    problem: str  # why `result` is None ("" when it is not)
    modified: float


def runs_dir(home: Path) -> Path:
    return home / "bench" / "runs"


def run_keys(home: Path) -> list[str]:
    """Every run folder's name, newest first."""
    folder = runs_dir(home)
    if not folder.is_dir():
        return []
    runs = [p for p in folder.iterdir() if p.is_dir() and (p / "items.jsonl").is_file()]
    return [p.name for p in sorted(runs, key=lambda p: p.stat().st_mtime, reverse=True)]


def load_run(home: Path, key: str) -> BenchRunInfo | None:
    """The run named `key`, found among the folders that exist; None for any other key."""
    if key not in run_keys(home):
        return None
    folder = runs_dir(home) / key
    result: BenchResult | None = None
    problem = "no figures yet: the bench has not finished a run"
    path = folder / RESULT_FILE
    if path.is_file():
        try:
            result = BenchResult.model_validate(json.loads(path.read_text(encoding="utf-8")))
            problem = ""
        except (ValueError, ValidationError) as e:
            problem = f"{RESULT_FILE} cannot be read by this version of moot ({type(e).__name__})"
    return BenchRunInfo(key, folder, folder / "items.jsonl", result, problem, folder.stat().st_mtime)


def bench_batch(store: ReadOnlyStore | None, run: BenchRunInfo) -> BatchRow | None:
    """The batch that debated the run's items (the same items file, by its resolved path)."""
    if store is None:
        return None
    from moot.store.batches import get_batch

    rows = store.execute("SELECT id FROM batches WHERE items_path = ?", (str(run.items_path.resolve()),))
    return get_batch(store, rows[0]["id"]) if rows else None


def item_debates(store: ReadOnlyStore | None, batch: BatchRow | None) -> dict[str, str]:
    """Each item id of the run's batch (given order, `~swapped`, `~sample-n`) -> its debate id."""
    if store is None or batch is None:
        return {}
    rows = store.execute(
        "SELECT item_id, debate_id FROM batch_items WHERE batch_id = ? AND debate_id IS NOT NULL", (batch.id,)
    )
    return {r["item_id"]: r["debate_id"] for r in rows}


def summary_of(run: BenchRunInfo) -> dict[str, Any]:
    """The run's line on the Benches page."""
    r = run.result
    return {
        "key": run.key,
        "suite": r.suite if r else run.key,
        "items": r.items if r else None,
        "verdict": r.verdict if r else run.problem,
        "strategies": {name: f.accuracy for name, f in r.strategies.items()} if r else {},
    }

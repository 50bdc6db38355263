"""Answered calls a full disk kept out of the store, so that none is paid for twice.

When a write to the store fails for want of space, the batch stops at once (`StoreFull`); the calls that
had been answered but not recorded (`Store.unsaved`) are then written to the store if there is room by
now, else to `<results>.unsaved.jsonl` beside the results file (often another disk, or room for a few
lines where SQLite needed pages). The next run of the batch stores them before anything else, so their
debates replay them. When neither can be written, the loss is counted in the batch's message.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict
from pathlib import Path

from moot.render.serialize import open_private
from moot.store.db import CallRecord, Store, StoreFull


def spill_path(results: Path) -> Path:
    return results.with_name(results.name + ".unsaved.jsonl")


def keep_unsaved(store: Store, results: Path) -> str:
    """After a full disk: where the answered calls it kept out of the store went, as a sentence."""
    count = len(store.unsaved)
    if not count:
        return "no answered call was lost"
    try:
        store.save_unsaved()
        return f"the {count} answered calls it held were stored after all"
    except StoreFull:
        pass
    path = spill_path(results)
    try:
        with open_private(path, "a") as f:
            f.writelines(json.dumps(asdict(record)) + "\n" for record in store.unsaved)
            f.flush()
            os.fsync(f.fileno())
    except OSError:
        return f"{count} answered calls could not be kept anywhere (no space): the next run asks them again"
    store.unsaved.clear()
    return f"{count} answered calls were kept in {path}: the next run stores them, so none is paid twice"


def restore_unsaved(store: Store, results: Path) -> int:
    """Store the calls an earlier run kept beside the results (a torn last line is dropped); how many."""
    path = spill_path(results)
    if not path.is_file():
        return 0
    records: list[CallRecord] = []
    for raw in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            records.append(CallRecord(**json.loads(raw)))
        except (ValueError, TypeError):
            continue
    restored = 0
    for record in records:
        if store.find_call(record.debate_id, record.call_key) is None:
            store.record_call(record)
            restored += 1
    path.unlink()
    return restored

"""`moot view` while a batch writes the same store from another process: every page keeps answering, the
batch's counts rise between two reads, and the batch finishes every item (the viewer never blocks it)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from moot.batch.runner import batch_id_for
from moot.testing import FakeLLMServer

from .test_batch_support import item, judges_for, serve, write_items
from .view_store import serving

ITEMS = 24


def start_batch(
    tmp_path: Path, server: FakeLLMServer, home: Path, n: int, delay: float
) -> tuple[subprocess.Popen[str], str]:
    """`moot batch` of `n` evaluate items in its own process, each judge answering after `delay` seconds."""
    serve(server, delay=delay)
    judges = judges_for("evaluate", tmp_path, server)
    items = write_items(tmp_path / "live-items.jsonl", [item("evaluate", i, other=i % 4 == 0) for i in range(n)])
    args = [str(items), "--protocol", "evaluate", "--judges", str(judges), "--concurrency", "2", "--format", "json"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "moot", "batch", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    return proc, batch_id_for("evaluate", items)


def fetch(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=30) as r:
        return r.status, r.read().decode()


def test_the_viewer_reads_while_a_batch_writes_and_never_blocks_it(
    tmp_path: Path, llm_server: FakeLLMServer, isolated_home: Path
) -> None:
    with serving(isolated_home) as url:
        assert "No batch yet" in fetch(url + "/batches")[1]
        proc, batch_id = start_batch(tmp_path, llm_server, isolated_home, ITEMS, delay=0.15)
        seen: list[int] = []
        reads = 0
        deadline = time.monotonic() + 180
        while proc.poll() is None and time.monotonic() < deadline:
            for path in ("/debates", "/batches", "/debates?sort=verdict&q=add"):
                assert fetch(url + path)[0] == 200
                reads += 1
            try:
                body = fetch(f"{url}/batches/{batch_id}/progress.json")[1]
            except urllib.error.HTTPError as e:  # the batch has not written its row yet
                assert e.code == 404
                continue
            seen.append(json.loads(body)["counts"]["done"])
            assert fetch(f"{url}/batches/{batch_id}")[0] == 200
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err[-2000:]
        summary = json.loads(out)
        assert (summary["done"], summary["failed"]) == (ITEMS, 0)
        assert seen == sorted(seen) and len(set(seen)) >= 3, seen  # rising, seen at several points
        assert seen[0] < ITEMS and reads > 10
        final = json.loads(fetch(f"{url}/batches/{batch_id}/progress.json")[1])
        assert final["counts"]["done"] == ITEMS and final["status"] == "finished"
        assert final["distribution"] == {"PASS": 18, "FAIL": 6}
        # the list, read all along, now holds every debate with its verdict (its index caught up)
        listing = fetch(f"{url}/debates?batch={batch_id}&verdict=FAIL")[1]
        assert listing.count("<tr data-id=") == 6 and "6 debates match" in listing
        assert fetch(f"{url}/debates?batch={batch_id}&status=finished")[1].count("<tr data-id=") == ITEMS

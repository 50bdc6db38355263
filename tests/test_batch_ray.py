"""`moot batch --backend ray` end to end on a local Ray instance (2 CPUs) against the real local server:
debates run in Ray workers with stores of their own, and land in the batch's store and RESULTS.jsonl as
with the local backend, so a batch interrupted locally resumes on Ray without repaying completed calls."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from moot.batch import run_batch
from moot.cli.app import main
from moot.store import Store
from moot.testing import FakeLLMServer

from .test_batch_support import Responder, item, judges_for, read_results, serve, write_items


@pytest.fixture(scope="module")
def local_ray() -> Iterator[Any]:
    import ray

    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING", log_to_driver=False)
    yield ray
    ray.shutdown()


def _item_of(body: dict[str, Any], n: int) -> int:
    text = json.dumps(body)
    (i,) = [i for i in range(n) if f"return x + {i}\\n" in text]
    return i


def _ok_calls(store: Store) -> int:
    return int(store.execute("SELECT COUNT(*) AS n FROM calls WHERE status = 'ok'")[0]["n"])


def test_ray_backend_end_to_end(
    local_ray: Any, llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    serve(llm_server)
    judges = judges_for("evaluate", tmp_path, llm_server)
    broken = judges_for("evaluate", tmp_path, llm_server, broken=True)
    rows = [item("evaluate", n, other=n == 1) for n in range(6)]
    rows[4]["judges"] = broken.name
    items = write_items(tmp_path / "items.jsonl", rows)
    args = ["batch", str(items), "--protocol", "evaluate", "--judges", str(judges), "--backend", "ray"]
    code = main([*args, "--concurrency", "4", "--format", "json"])
    summary = json.loads(capsys.readouterr().out)
    assert code == 1 and (summary["done"], summary["failed"]) == (5, 1)
    assert summary["distribution"] == {"PASS": 4, "FAIL": 1}
    assert summary["failures"][0]["id"] == "e4" and "HTTP 400" in summary["failures"][0]["error"]
    # the workers' calls, in the batch's store: 15 answered (paid), the broken panel's 3 failed attempts apart
    assert (summary["spend"]["calls"], summary["spend"]["failed_attempts"]) == (15, 3)
    assert len(llm_server.requests) == 18

    lines = {line["id"]: line for line in read_results(tmp_path / "items.results.jsonl")}
    assert len(lines) == 6 and lines["e4"]["status"] == "failed" and lines["e4"]["debate_id"]
    store = Store.open_default()
    for line in lines.values():  # every debate, the failed one too, is in the batch's store with its calls
        row = store.get_debate(line["debate_id"])
        assert row is not None and len(store.calls(row.id)) == 3
        if line["status"] == "done":
            assert row.status == "finished" and row.result == line["result"]
    assert main(["show", summary["batch_id"], "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["done"] == 5


def test_interrupted_locally_resumes_on_ray_without_repaying_calls(
    local_ray: Any, llm_server: FakeLLMServer, tmp_path: Path
) -> None:
    n = 6
    serve(llm_server, delays={"ev-against": 60.0})  # two judges answer, the third not before the cut
    judges = judges_for("evaluate", tmp_path, llm_server)
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", i) for i in range(n)])
    store = Store.open_default()

    async def cut_short() -> None:  # once the two fast judges of every debate are stored, however long that takes
        batch = asyncio.ensure_future(run_batch(items, "evaluate", judges=judges, concurrency=n, store=store))
        while _ok_calls(store) < 2 * n:
            assert not batch.done(), "the batch ended before its fast calls were stored"
            await asyncio.sleep(0.02)
        batch.cancel()
        with pytest.raises(asyncio.CancelledError):
            await batch

    asyncio.run(cut_short())
    halfway = {r.id for r in store.list_debates() if r.status == "interrupted"}
    assert len(halfway) == n and all(len([c for c in store.calls(d) if c.status == "ok"]) == 2 for d in halfway)

    llm_server.responder = Responder()
    summary = asyncio.run(run_batch(items, "evaluate", judges=judges, backend="ray", concurrency=4, store=store))
    assert (summary.done, summary.failed) == (n, 0)
    sent = Counter((_item_of(r.body, n), r.model) for r in llm_server.requests)
    assert {k: v for k, v in sent.items() if v > 1} == {
        (i, "ev-against"): 2 for i in range(n)
    }  # cut off, so asked again
    lines = read_results(tmp_path / "items.results.jsonl")
    assert {line["debate_id"] for line in lines} == halfway  # the same debates, resumed
    assert all(store.get_debate(d).status == "finished" for d in halfway)  # type: ignore[union-attr]

"""`moot.batch.run_batch` from Python: its summary, progress, the batch's rows in the store, items' paths and
judges, one rate limiter shared by every debate, and `max_cost` for the whole batch."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot import api
from moot.batch import BatchProgress, BatchSummary, run_batch, run_batch_sync
from moot.batch.runner import batch_id_for
from moot.schemas.config import Artifact
from moot.store import Store
from moot.store.batches import batch_items, get_batch
from moot.testing import FakeLLMServer, Reply

from .replies import CRITERIA
from .test_batch_support import EVALUATE_MODELS, Responder, item, judges_for, read_results, serve, write_items


def test_run_batch_returns_the_summary_and_reports_progress(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    serve(llm_server, delay=0.02)
    judges = judges_for("decide", tmp_path, llm_server)
    rows = [item("decide", n, other=n == 3) for n in range(12)]
    rows[1]["options"] = [{"id": "A", "label": "Redis"}, {"id": "B", "label": "Memcached"}]  # the API's own list
    items = write_items(tmp_path / "items.jsonl", rows)
    store = Store(tmp_path / "batch.db")
    seen: list[BatchProgress] = []
    summary = asyncio.run(run_batch(items, "decide", judges=judges, concurrency=3, store=store, progress=seen.append))
    assert isinstance(summary, BatchSummary)
    assert (summary.items, summary.done, summary.failed, summary.status) == (12, 12, 0, "finished")
    assert summary.batch_id == batch_id_for("decide", items) and summary.spend.calls == 36
    assert summary.results == str(tmp_path / "items.results.jsonl")
    # progress: every item ended once, spend grew as calls completed, never more than 3 debates at once
    assert seen[-1].total == 12 and seen[-1].done == 12 and seen[-1].calls == 36 and seen[-1].running == 0
    assert max(p.running for p in seen) == 3
    assert [p.done for p in seen] == sorted(p.done for p in seen)
    # the batch and its items in the given store
    row = get_batch(store, summary.batch_id)
    assert row is not None and row.status == "finished" and row.summary == summary.to_dict()
    stored = batch_items(store, summary.batch_id)
    assert len(stored) == 12 and {r.status for r in stored.values()} == {"done"}
    assert stored["d3"].line == 4 and stored["d3"].debate_id is not None
    debate = store.get_debate(stored["d3"].debate_id)
    assert debate is not None and debate.result is not None and debate.result["recommended_option"] == "B"


def test_paths_resolve_beside_the_items_file_and_an_item_judges_file_wins(
    llm_server: FakeLLMServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    serve(llm_server)
    folder = tmp_path / "set"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "a.py").write_text("def a():\n    return x + 1\n", encoding="utf-8")
    (folder / "src" / "b.py").write_text("def b():\n    return x + 2\n# WEAK\n", encoding="utf-8")
    judges = judges_for("evaluate", folder, llm_server)
    other = judges_for("evaluate", tmp_path, llm_server)  # the same judges, renamed: who answered tells
    data = yaml.safe_load(other.read_text())
    for j, name in zip(data["debate_judges"], ("x", "y", "z"), strict=True):
        j["name"] = name
    (folder / "named.yaml").write_text(yaml.safe_dump(data), encoding="utf-8")
    rows = [
        {"id": "one", "solution": "src/a.py", "task": "t", "criteria": CRITERIA},
        {"id": "two", "solution": ["src/*.py"], "task": "t", "criteria": CRITERIA, "judges": "named.yaml"},
    ]
    items = write_items(folder / "items.jsonl", rows)
    monkeypatch.chdir(tmp_path)  # elsewhere: the paths still mean the items file's folder
    summary = run_batch_sync(items, "evaluate", judges=judges)
    assert summary.distribution == {"PASS": 1, "FAIL": 1}, summary.failures  # b.py is the weak one
    lines = {line["id"]: line["result"] for line in read_results(folder / "items.results.jsonl")}
    src = folder / "src"
    assert lines["one"]["artifact_evaluated"] == str(src / "a.py")
    assert lines["two"]["artifact_evaluated"] == f"{src / 'a.py'}, {src / 'b.py'}"
    assert [j["model"] for j in lines["two"]["judges"]] == ["x", "y", "z"]  # its own judges file
    assert [j["model"] for j in lines["one"]["judges"]] == list(EVALUATE_MODELS)  # the batch's


def test_one_rate_limit_is_shared_by_every_debate(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    lock = threading.Lock()
    now = {"in_flight": 0, "most": 0}
    inner = Responder()

    def counting(model: str, body: dict[str, Any]) -> Reply:
        with lock:
            now["in_flight"] += 1
            now["most"] = max(now["most"], now["in_flight"])
        time.sleep(0.02)
        with lock:
            now["in_flight"] -= 1
        return inner(model, body)

    llm_server.responder = counting
    judges = judges_for("evaluate", tmp_path, llm_server)
    data = yaml.safe_load(judges.read_text())
    data["limits"] = {"default": {"concurrency": 2}}
    judges.write_text(yaml.safe_dump(data), encoding="utf-8")
    items = write_items(tmp_path / "items.jsonl", [item("evaluate", n) for n in range(20)])
    summary = run_batch_sync(items, "evaluate", judges=judges, concurrency=20)
    assert summary.done == 20 and len(llm_server.requests) == 60
    assert now["most"] == 2  # 20 debates of 3 judges at once, yet never more than 2 calls in flight


def test_max_cost_caps_the_whole_batch_across_runs(llm_server: FakeLLMServer, tmp_path: Path) -> None:
    serve(llm_server)
    judges = judges_for("evaluate", tmp_path, llm_server)
    data = yaml.safe_load(judges.read_text())
    data["pricing"] = {m: {"input_per_mtok": 10, "output_per_mtok": 30} for m in EVALUATE_MODELS}
    judges.write_text(yaml.safe_dump(data), encoding="utf-8")
    rows = [item("evaluate", n) for n in range(10)]
    items = write_items(tmp_path / "items.jsonl", rows)
    first = rows[0]
    plan = asyncio.run(
        api.estimate(
            "evaluate",
            artifacts=[Artifact(path="e0", text=first["artifact"])],
            task=first["task"],
            criteria=first["criteria"],
            judges=str(judges),
        )
    )
    worst = max(s["worst_usd"] for s in plan["scenarios"])  # the dearest way one debate can go
    cap = worst + 0.1  # room for one debate's worst case, plus a few actual debates (~$0.03 each)

    summary = run_batch_sync(items, "evaluate", judges=judges, concurrency=4, max_cost=cap)
    assert summary.done >= 1 and summary.failed >= 1 and summary.done + summary.failed == 10
    assert summary.spend.cost <= cap and len(llm_server.requests) == 3 * summary.done  # refused ones sent nothing
    assert all("does not fit under --max-cost" in f["error"] for f in summary.failures)

    sent = len(llm_server.requests)
    again = run_batch_sync(items, "evaluate", judges=judges, max_cost=cap)  # earlier spend still counts
    assert (again.done, len(llm_server.requests)) == (summary.done, sent)
    more = run_batch_sync(items, "evaluate", judges=judges, max_cost=cap + 1.0)
    assert more.done == 10 and more.failed == 0 and more.spend.cost <= cap + 1.0

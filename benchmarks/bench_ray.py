"""Benchmark: `moot batch` on a Ray cluster of 1 head and 2 worker nodes on this machine, against the local
backend, at the same concurrency, latency and provider limit.

The fake LLM server runs in its own process at a fixed latency and counts the requests it holds at once.
Judges agree in round 1 (3 calls per debate), so that the figures are about the batch's machinery, not
the protocol. Each backend is measured in a fresh child process, so that its peak RSS is the driver's:

- local: `run_batch(..., backend="local")`, one process, one limiter;
- ray: `run_batch(..., backend="ray", ray_address=...)` against a `ray.cluster_utils.Cluster` of three
  nodes of one CPU each (started by the child, not timed); the cluster's limiter holds the limit.

Prints wall (and the ratio ray / local), calls, the driver's peak RSS, the time the driver spent merging
the workers' calls and debates into the store, the most requests the server held at once against the
configured limit, and the limiter's messages per call.

    python benchmarks/bench_ray.py [--debates 10000] [--concurrency 48] [--latency 0.2] [--limit 64]

`--loaded --runs 5`: the batch and Ray test files (tests/test_batch*.py), run `--runs` times in a row with a
CPU-bound process on every core for the whole time (their ids printed; they are ended at the end, whatever
happens). Prints each run's passed and failed tests and its wall time, and for the cluster's worker-kill and
driver-kill cases the calls answered twice (re-sent) against the calls the lost tasks had in flight at the
kill (sent, their replies not recorded), as those tests record them. `--kills` runs only those two cases.

    python benchmarks/bench_ray.py --loaded --runs 5 [--kills]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import queue
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import yaml

CRITERIA = "correctness:30,design:25,security:20,performance:15,docs:10"
KEYS = ["correctness", "design", "security", "performance", "docs"]
DEMO = Path(__file__).resolve().parent.parent / "src/moot/protocols/evaluate/demo/users-api/users.ts"


def _serve(port_q: Any, latency: float) -> None:
    """The local server: every judge scores 4, after `latency` seconds; GET .../held reports the most
    requests held at once since the last GET .../held?reset."""
    from moot.testing import FakeLLMServer, Reply, fake_llm_server

    fake_llm_server._Server.request_queue_size = 4096
    lock = threading.Lock()
    count = {"now": 0, "most": 0}
    text = yaml.safe_dump(
        {
            "overall_score": 4.0,
            "dimension_scores": dict.fromkeys(KEYS, 4),
            "position_statement": "Assessment with evidence. " * 20,
            "key_claims": [{"claim": "c", "evidence": "e", "confidence": "HIGH"}],
            "critical_findings": [],
        }
    )

    def reply(model: str, body: dict[str, Any]) -> Any:
        with lock:
            count["now"] += 1
            count["most"] = max(count["most"], count["now"])
        try:
            time.sleep(latency)
        finally:
            with lock:
                count["now"] -= 1
        return Reply(text=text)

    def held(server: Any, path: str, body: Any, headers: Any) -> tuple[int, dict[str, str], bytes]:
        with lock:
            figures = dict(count)
            count["most"] = count["now"]
        return 200, {}, json.dumps(figures).encode()

    server = FakeLLMServer()
    server.responder = reply
    server.routes["/held"] = held
    server.start()
    port_q.put(server.base_url)
    while True:
        time.sleep(3600)


def _held(base_url: str) -> int:
    with urllib.request.urlopen(f"{base_url}/held") as r:
        return int(json.loads(r.read())["most"])


def _files(folder: Path, base_url: str, debates: int, limit: int) -> tuple[Path, Path]:
    judges = [
        {"model": f"bench-{i}", "stance": s, "api_base": base_url} for i, s in enumerate(("neutral", "for", "against"))
    ]
    path = folder / "judges.yaml"
    path.write_text(yaml.safe_dump({"debate_judges": judges, "limits": {"custom": {"concurrency": limit}}}))
    items = folder / "items.jsonl"
    demo = DEMO.read_text(encoding="utf-8")
    with items.open("w", encoding="utf-8") as f:
        for n in range(debates):
            f.write(
                json.dumps(
                    {"id": f"item-{n}", "artifact": f"// item {n}\n{demo}", "task": "bench", "criteria": CRITERIA}
                )
                + "\n"
            )
    return items, path


async def _run(items: Path, judges: Path, concurrency: int, backend: Any) -> Any:
    """`run_batch` with the backend object in hand, so that its figures can be read afterwards."""
    from moot.batch.runner import _Run
    from moot.batch.setup import check_keys

    run = _Run.plan(items, "evaluate", judges, None, None, None, None)
    await check_keys(run.setup)
    return await run.go(backend)


def _child(out: Any, name: str, base_url: str, folder: str, debates: int, concurrency: int, limit: int) -> None:
    from moot.batch.backends import backend_for

    home = Path(folder)
    os.environ["MOOT_HOME"] = str(home)
    items, judges = _files(home, base_url, debates, limit)
    cluster = None
    address = None
    if name == "ray":
        from ray.cluster_utils import Cluster

        small = {"num_cpus": 1, "object_store_memory": 200 * 2**20}
        cluster = Cluster(initialize_head=True, head_node_args={**small, "include_dashboard": False})
        for _ in range(2):
            cluster.add_node(**small)
        cluster.wait_for_nodes()
        address = cluster.address
    try:
        backend = backend_for(name, concurrency, address)
        _held(base_url)  # reset the server's count
        t0, c0 = time.perf_counter(), time.process_time()
        summary = asyncio.run(_run(items, judges, concurrency, backend))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        held = _held(base_url)
        figures = {
            "wall": wall,
            "cpu": cpu,
            "done": summary.done,
            "failed": summary.failed,
            "calls": summary.spend.calls,
            "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "held": held,
            "merge_s": getattr(backend, "merge_seconds", 0.0),
            "messages": sum(
                v for k, v in getattr(backend, "limiter_stats", {}).get("messages", {}).items() if k != "watch"
            ),
        }
    finally:
        if cluster is not None:
            cluster.shutdown()
    out.put(figures)


def _limiter_child(out: Any, messages: int) -> None:
    """The limiter actor alone, on a one-node cluster: the round trip of one awaited message, and how many
    messages a second it answers when they come pipelined (what sets its ceiling at 100 nodes)."""
    import ray
    from ray.cluster_utils import Cluster

    from moot.batch.ray_limiter import ClusterLimiter
    from moot.engine.limits import ProviderLimit

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        ray.init(address=cluster.address, logging_level="WARNING", log_to_driver=False)
        actor = ray.remote(ClusterLimiter).options(max_concurrency=10_000).remote(None, {"p": ProviderLimit(64)})

        async def go() -> tuple[float, float]:
            await actor.stats.remote()
            t0 = time.perf_counter()
            for _ in range(500):
                await actor.acquire.remote("h", "p", 1, [])
                await actor.release.remote("h", "p", 1)
            trip = (time.perf_counter() - t0) / 1000
            t0 = time.perf_counter()
            await asyncio.gather(*(actor.release.remote("h", "p", 0) for _ in range(messages)))
            return trip, messages / (time.perf_counter() - t0)

        trip, rate = asyncio.run(go())
        ray.shutdown()
    finally:
        cluster.shutdown()
    out.put({"trip_ms": trip * 1000, "per_s": rate})


def _measure(ctx: Any, *args: Any) -> dict[str, Any]:
    target = _limiter_child if args[0] == "limiter" else _child
    q = ctx.Queue()
    child = ctx.Process(target=target, args=(q, *args[1:]) if target is _limiter_child else (q, *args))
    child.start()
    while True:
        try:
            figures: dict[str, Any] = q.get(timeout=1)
        except queue.Empty:
            if not child.is_alive():
                raise SystemExit(f"{args[0]} failed (exit code {child.exitcode})") from None
            continue
        child.join()
        return figures


ROOT = Path(__file__).resolve().parent.parent
KILLS = {
    "test_a_killed_worker_costs_no_completed_call": "worker",
    "test_a_driver_killed_with_kill_9_is_rerun": "driver",
}
RUN_LIMIT_S = 1800  # one run of the files, at most


def _pytest_run(n: int, files: list[str], selector: list[str], folder: Path) -> dict[str, Any]:
    """One run of the test files under pytest; its tests' outcomes and the kill cases' counts, from its
    JUnit XML (xunit1 carries the properties the tests record)."""
    report = folder / f"run{n}.xml"
    cmd = [sys.executable, "-m", "pytest", *files, *selector, "-q", "-p", "no:cacheprovider", "-o"]
    cmd += ["junit_family=xunit1", f"--junitxml={report}"]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    t0 = time.perf_counter()
    try:
        subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=RUN_LIMIT_S, check=False)
    except subprocess.TimeoutExpired:
        return {"wall": time.perf_counter() - t0, "passed": 0, "failed": [f"timed out after {RUN_LIMIT_S}s"]}
    wall = time.perf_counter() - t0
    figures: dict[str, Any] = {"wall": wall, "passed": 0, "failed": [], "kills": {}}
    for case in ET.parse(report).getroot().iter("testcase"):
        name = case.get("name", "")
        if case.find("failure") is not None or case.find("error") is not None:
            figures["failed"].append(name)
        elif case.find("skipped") is None:
            figures["passed"] += 1
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        base = name.split("[")[0]
        if base in KILLS and "resent" in props:
            figures["kills"][KILLS[base]] = (int(props["resent"] or 0), int(props["in_flight"] or 0))
    return figures


def loaded(runs: int, kills_only: bool) -> int:
    """The test files `runs` times with every core busy; the exit status is 1 if any run failed."""
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_batch*.py"))
    selector = ["-k", " or ".join(KILLS)] if kills_only else []
    if kills_only:
        files = ["tests/test_batch_ray_cluster.py"]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 2
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a bench stopped from outside ends its hogs too
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(cores)]
    print(
        f"{len(files)} test files, {runs} runs; a CPU-bound process on each of {cores} cores:",
        f"pids {[h.pid for h in hogs]}",
    )
    print(
        f"{'run':>3} {'passed':>6} {'failed':>6} {'wall s':>7} {'worker kill resent/in flight':>29} {'driver kill':>12}"
    )
    bad = 0
    try:
        with tempfile.TemporaryDirectory(prefix="moot-bench-loaded-") as folder:
            for n in range(1, runs + 1):
                f = _pytest_run(n, files, selector, Path(folder))
                bad += bool(f["failed"])
                kills = f.get("kills", {})
                worker, driver = ("{}/{}".format(*kills[k]) if k in kills else "-" for k in ("worker", "driver"))
                print(
                    f"{n:>3} {f['passed']:>6} {len(f['failed']):>6} {f['wall']:>7.0f} {worker:>29} {driver:>12}",
                    flush=True,
                )
                for name in f["failed"]:
                    print(f"      failed: {name}", flush=True)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    print(f"{runs - bad} of {runs} runs passed; load average now {os.getloadavg()[0]:.1f}")
    return 1 if bad else 0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--debates", type=int, default=10_000)
    ap.add_argument("--concurrency", type=int, default=48, help="debates at once (both backends)")
    ap.add_argument("--latency", type=float, default=0.2, help="seconds the server holds each call")
    ap.add_argument("--limit", type=int, default=64, help="the provider's concurrency limit (limits: {custom: ...})")
    ap.add_argument("--limiter-only", action="store_true", help="only the limiter actor's message figures")
    ap.add_argument("--loaded", action="store_true", help="the batch and Ray test files with every core busy")
    ap.add_argument("--runs", type=int, default=5, help="--loaded: runs of the test files")
    ap.add_argument("--kills", action="store_true", help="--loaded: only the worker-kill and driver-kill cases")
    args = ap.parse_args()
    if args.loaded:
        raise SystemExit(loaded(args.runs, args.kills))

    ctx = multiprocessing.get_context("spawn")
    f = _measure(ctx, "limiter", 20_000)
    print(f"limiter actor: {f['trip_ms']:.2f} ms per awaited message; {f['per_s']:.0f} pipelined messages/s")
    if args.limiter_only:
        return

    q = ctx.Queue()
    server = ctx.Process(target=_serve, args=(q, args.latency), daemon=True)
    server.start()
    base_url = q.get(timeout=30)
    tmp = Path(tempfile.mkdtemp(prefix="moot-bench-ray-"))
    print(f"{args.debates} evaluate debates (3 judges agreeing in round 1: 3 calls each); L = {args.latency}s per call")
    print(f"{args.concurrency} debates at once; provider limit concurrency {args.limit}")
    print("ray: a cluster of 1 head + 2 worker nodes on this machine, 1 CPU each")
    head = f"{'':>6} {'wall s':>8} {'ratio':>6} {'calls':>7} {'failed':>6} {'driver RSS MB':>14} {'merge s':>8}"
    print(f"{head} {'held/limit':>11} {'msgs/call':>10}")
    try:
        figures = {}
        for name in ("local", "ray"):
            folder = tmp / name
            folder.mkdir()
            figures[name] = _measure(ctx, name, base_url, str(folder), args.debates, args.concurrency, args.limit)
            f = figures[name]
            ratio = f"{f['wall'] / figures['local']['wall']:.2f}"
            msgs = f"{f['messages'] / max(1, f['calls']):.3f}" if name == "ray" else ""
            merge = f"{f['merge_s']:.1f}" if name == "ray" else ""
            print(
                f"{name:>6} {f['wall']:>8.1f} {ratio:>6} {f['calls']:>7} {f['failed']:>6} {f['rss_mb']:>14.0f} "
                f"{merge:>8} {f['held']:>5}/{args.limit:<5} {msgs:>10}"
            )
        floor = args.debates * 3 / min(args.limit, 3 * args.concurrency) * args.latency
        print(f"       floor (calls / limit x L): {floor:.1f}s; python {sys.version.split()[0]}")
    finally:
        server.terminate()


if __name__ == "__main__":
    main()

"""Benchmark: many evaluate debates in one process, against the same calls made straight through `openai`.

The fake LLM server runs in its own process at a fixed latency (its CPU is not moot's). Each figure is
measured in a fresh child process, so that peak RSS and CPU belong to that measurement alone:

- the floor: every debate's calls (3 judges x 3 rounds, then the moderator; the very prompts a moot
  debate sent, captured from a warm-up debate's store) made through one shared `AsyncOpenAI` client,
  round after round, the same number of debates in flight;
- moot: the same debates through `moot.batch.run_batch` (items with inline artifacts, one judges file),
  else (before `moot batch` existed) through `moot.evaluate` under an `asyncio.Semaphore`, with one
  shared `Store` and one judges file (so one shared limiter).

Each debate evaluates its own artifact (the demo file with the debate's number on top), so that the
store cannot share one artifact between debates. Prints wall, wall ratio moot / floor, CPU per debate,
calls, tokens, peak RSS and store bytes per debate.

With `--fresh`, both sides are whole fresh processes as a user starts them, imports included: the
`moot batch ITEMS.jsonl` command against a script that imports `openai` and makes the same calls (those
a warm-up debate sent, captured from its store), judges that agree (each debate ends in round 1); the
two are run in turn `--repeat` times and the median ratio printed.

    python benchmarks/bench_batch.py [--debates 1000] [--concurrency 100 300] [--latency 1.0] [--artifact-kb 1024]
    python benchmarks/bench_batch.py --fresh [--debates 150] [--concurrency 8] [--repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import queue
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

CRITERIA = "correctness:30,design:25,security:20,performance:15,docs:10"
KEYS = ["correctness", "design", "security", "performance", "docs"]
DEMO = Path(__file__).resolve().parent.parent / "src/moot/protocols/evaluate/demo/users-api/users.ts"
MODERATOR = "bench-mod"


def _reply_for(model: str, body: dict[str, Any], latency: float, agree: bool = False) -> Any:
    """Scores that never converge (1.5 / 3.0 / 4.5), so that every debate runs all three rounds; with
    `agree`, every judge gives 4.0 (the debate ends after round 1)."""
    from moot.testing import Reply

    if model == MODERATOR:
        data: dict[str, Any] = {
            "majority_opinion": "The judges disagree on the design. " * 10,
            "minority_opinion": "One judge finds it sound.",
            "recommendations": [{"priority": "SHOULD", "action": "add tests", "rationale": "coverage"}],
        }
        return Reply(text=yaml.safe_dump(data), delay=latency)
    score = 4.0 if agree else [1.5, 3.0, 4.5][int(model.rsplit("-", 1)[1]) % 3]
    data = {
        "overall_score": score,
        "dimension_scores": dict.fromkeys(KEYS, round(score)),
        "position_statement": "Assessment with evidence. " * 40,
        "key_claims": [{"claim": "c", "evidence": "e", "confidence": "HIGH"}],
        "critical_findings": [],
    }
    return Reply(text=yaml.safe_dump(data), delay=latency)


def _serve(port_q: Any, latency: float, agree: bool = False) -> None:
    from moot.testing import FakeLLMServer, loopback

    # hundreds of debates open their connections at once: a backlog of 128 would drop some of them
    loopback.LoopbackHTTPServer.request_queue_size = 4096
    server = FakeLLMServer()
    server.responder = lambda model, body: _reply_for(model, body, latency, agree)
    server.start()
    port_q.put(server.base_url)
    while True:
        time.sleep(3600)


def _artifact_text(n: int, kb: int | None) -> str:
    """The demo file, or (with `kb`) that many KB of lines unique to debate `n`: a repeated file would let
    the store's chunks be shared within and across debates, and flatter its bytes per debate."""
    base = DEMO.read_text(encoding="utf-8")
    if kb:
        rng = random.Random(n)
        lines: list[str] = []
        size = 0
        while size < kb * 1024:
            lines.append(f'export const k{len(lines)} = "{rng.getrandbits(256):064x}";\n')
            size += len(lines[-1])
        base = "".join(lines)[: kb * 1024]
    return f"// item {n}\n{base}"


def _judges_file(folder: Path, base_url: str) -> Path:
    judges = [
        {"model": f"bench-{i}", "stance": ["neutral", "for", "against"][i], "api_base": base_url} for i in range(3)
    ]
    data = {
        "debate_judges": judges,
        "moderator": {"model": MODERATOR, "api_base": base_url},
        # one limiter for every debate of the run, wide enough not to be what is measured
        "limits": {"default": {"concurrency": 4096}},
    }
    path = folder / "judges.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


# ---------------------------------------------------------------- moot


async def _moot_one(n: int, judges: Any, store: Any, kb: int | None) -> Any:
    from moot import evaluate
    from moot.schemas.config import Artifact

    artifact = Artifact(path=f"item-{n}/users.ts", text=_artifact_text(n, kb))
    return await evaluate(
        artifacts=[artifact], task="bench", criteria=CRITERIA, judges=judges, reports_dir=None, store=store
    )


async def _moot_semaphore(debates: int, concurrency: int, judges: Any, store: Any, kb: int | None) -> list[Any]:
    gate = asyncio.Semaphore(concurrency)

    async def one(n: int) -> Any:
        async with gate:
            return await _moot_one(n, judges, store, kb)

    return await asyncio.gather(*(one(n) for n in range(debates)))


def _has_run_batch() -> bool:
    try:
        from moot.batch import run_batch  # noqa: F401
    except ImportError:
        return False
    return True


async def _moot_batch(home: Path, judges: Path, debates: int, concurrency: int, store: Any, kb: int | None) -> Any:
    from moot.batch import run_batch

    items = home / "items.jsonl"
    with items.open("w", encoding="utf-8") as f:
        for n in range(debates):
            row = {"id": f"item-{n}", "artifact": _artifact_text(n, kb), "task": "bench", "criteria": CRITERIA}
            f.write(json.dumps(row) + "\n")
    return await run_batch(items, "evaluate", judges=judges, concurrency=concurrency, store=store)


def _moot_child(out: Any, base_url: str, folder: str, debates: int, concurrency: int, kb: int | None) -> None:
    from moot.judges.clients import close_shared_clients
    from moot.panel_file import load_panel_file
    from moot.store import Store

    home = Path(folder)
    path = _judges_file(home, base_url)
    judges = load_panel_file(path)
    warm = Store(home / "warm.db")
    asyncio.run(_moot_one(-1, judges, warm, kb))  # imports and first-call costs, not measured
    warm.close()
    store = Store(home / "moot.db")
    t0, c0 = time.perf_counter(), time.process_time()
    if _has_run_batch():
        summary = asyncio.run(_moot_batch(home, path, debates, concurrency, store, kb))
        calls, tokens, failed = summary.spend.calls, summary.spend.tokens, summary.failed
    else:
        results = asyncio.run(_moot_semaphore(debates, concurrency, judges, store, kb))
        calls = sum(r.spend.calls for r in results)
        tokens = sum(r.spend.input_tokens + r.spend.output_tokens for r in results)
        failed = 0
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    asyncio.run(close_shared_clients())
    store.close()
    size = sum(p.stat().st_size for p in home.glob("moot.db*"))
    out.put(
        {
            "wall": wall,
            "cpu": cpu,
            "calls": calls,
            "tokens": tokens,
            "failed": failed,
            "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "store_bytes": size,
        }
    )


# ---------------------------------------------------------------- the floor


def _capture(base_url: str, folder: Path, kb: int | None) -> list[list[dict[str, Any]]]:
    """One moot debate's requests, step by step: [[{model, messages}, ...] per round, moderator last]."""
    from moot.panel_file import load_panel_file
    from moot.store import Store

    judges = load_panel_file(_judges_file(folder, base_url))
    store = Store(folder / "capture.db")
    result = asyncio.run(_moot_one(0, judges, store, kb))
    steps: dict[int, list[dict[str, Any]]] = {}
    for call in store.calls(result.debate_id):
        prompt = json.loads(call.prompt_json)
        messages = [{"role": "system", "content": prompt["system"]}, *prompt["messages"]]
        steps.setdefault(call.round, []).append({"model": call.answered_by, "messages": messages})
    store.close()
    return [steps[r] for r in sorted(steps, key=lambda r: (r == 0, r))]


async def _floor_run(base_url: str, plan: list[list[dict[str, Any]]], debates: int, concurrency: int) -> list[int]:
    import openai

    client = openai.AsyncOpenAI(api_key="not-needed", base_url=base_url, max_retries=0)
    gate = asyncio.Semaphore(concurrency)
    tokens: list[int] = []

    async def call(request: dict[str, Any]) -> None:
        response = await client.chat.completions.create(model=request["model"], messages=request["messages"])
        assert response.usage is not None
        tokens.append(response.usage.prompt_tokens + response.usage.completion_tokens)

    async def debate() -> None:
        async with gate:
            for step in plan:
                await asyncio.gather(*(call(r) for r in step))

    await asyncio.gather(*(debate() for _ in range(debates)))
    await client.close()
    return tokens


def _floor_child(out: Any, base_url: str, folder: str, debates: int, concurrency: int, kb: int | None) -> None:
    plan = _capture(base_url, Path(folder), kb)
    asyncio.run(_floor_run(base_url, plan, 1, 1))  # imports and first-call costs, not measured
    t0, c0 = time.perf_counter(), time.process_time()
    tokens = asyncio.run(_floor_run(base_url, plan, debates, concurrency))
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    out.put(
        {
            "wall": wall,
            "cpu": cpu,
            "calls": len(tokens),
            "tokens": sum(tokens),
            "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        }
    )


def _measure(ctx: Any, target: Any, *args: Any) -> dict[str, Any]:
    q = ctx.Queue()
    child = ctx.Process(target=target, args=(q, *args))
    child.start()
    while True:
        try:
            figures: dict[str, Any] = q.get(timeout=1)
        except queue.Empty:
            if not child.is_alive():
                raise SystemExit(f"{target.__name__} failed (exit code {child.exitcode})") from None
            continue
        child.join()
        return figures


# ---------------------------------------------------------------- whole fresh processes

FLOOR_SCRIPT = """
import asyncio, json, sys
import openai

async def main(base_url, plan, debates, concurrency):
    client = openai.AsyncOpenAI(api_key="not-needed", base_url=base_url, max_retries=0)
    gate = asyncio.Semaphore(concurrency)

    async def debate():
        async with gate:
            for step in plan:
                await asyncio.gather(*(client.chat.completions.create(**r) for r in step))

    await asyncio.gather(*(debate() for _ in range(debates)))
    await client.close()
    print(debates * sum(len(step) for step in plan))

plan = json.load(open(sys.argv[2], encoding="utf-8"))
asyncio.run(main(sys.argv[1], plan, int(sys.argv[3]), int(sys.argv[4])))
"""


def _moot_command() -> list[str]:
    script = Path(sys.executable).parent / "moot"
    return [str(script)] if script.exists() else [sys.executable, "-m", "moot"]


def _wall(argv: list[str], env: dict[str, str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=1800)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:3])} ... exited {r.returncode}:\n{r.stderr[-2000:]}")
    return wall, r.stdout


def fresh(base_url: str, tmp: Path, debates: int, concurrency: int, repeat: int, latency: float) -> None:
    """`moot batch` against the bare SDK making the same calls, each a whole fresh process, in turn."""
    plan = _capture(base_url, tmp, None)
    plan_file = tmp / "plan.json"
    plan_file.write_text(json.dumps(plan), encoding="utf-8")
    calls = debates * sum(len(step) for step in plan)
    judges = _judges_file(tmp, base_url)
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "MOOT_JUDGES"}
    floor_argv = [sys.executable, "-c", FLOOR_SCRIPT, base_url, str(plan_file), str(debates), str(concurrency)]
    print(f"{debates} evaluate items, judges that agree: {calls} calls ({len(plan)} steps a debate), L = {latency:g} s")
    print(f"concurrency {concurrency}; each side a fresh process (imports included), run in turn {repeat} times")
    ratios = []
    for n in range(repeat):
        floor_wall, out = _wall(floor_argv, env)
        assert int(out.strip().splitlines()[-1]) == calls
        folder = tmp / f"fresh-{n}"
        folder.mkdir()
        items = folder / "items.jsonl"
        with items.open("w", encoding="utf-8") as f:
            for i in range(debates):
                row = {"id": f"item-{i}", "artifact": _artifact_text(i, None), "task": "bench", "criteria": CRITERIA}
                f.write(json.dumps(row) + "\n")
        argv = [*_moot_command(), "batch", str(items), "--protocol", "evaluate", "--judges", str(judges)]
        argv += ["--concurrency", str(concurrency), "--format", "json", "--no-progress"]
        moot_wall, _ = _wall(argv, {**env, "MOOT_HOME": str(folder / "home")})
        ratios.append(moot_wall / floor_wall)
        print(f"  run {n + 1}: bare SDK {floor_wall:7.2f} s   moot batch {moot_wall:7.2f} s   ratio {ratios[-1]:.3f}")
    print(
        f"median ratio moot batch / bare SDK: {statistics.median(ratios):.3f} (target < 1.0); "
        f"load average {os.getloadavg()[0]:.1f}"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--debates", type=int, default=1000)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[100, 300])
    ap.add_argument("--latency", type=float, default=1.0)
    ap.add_argument("--artifact-kb", type=int, default=None, help="artifact size (default: the demo file, ~2 KB)")
    ap.add_argument("--fresh", action="store_true", help="moot batch and the bare SDK as whole fresh processes")
    ap.add_argument("--repeat", type=int, default=3, help="with --fresh: runs of each side (median ratio)")
    args = ap.parse_args()

    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue()
    server = ctx.Process(target=_serve, args=(q, args.latency, args.fresh), daemon=True)
    server.start()
    base_url = q.get(timeout=30)
    tmp = Path(tempfile.mkdtemp(prefix="moot-bench-batch-"))
    os.environ["MOOT_HOME"] = str(tmp)
    if args.fresh:
        try:
            fresh(base_url, tmp, args.debates, args.concurrency[0], args.repeat, args.latency)
        finally:
            server.terminate()
        return
    driver = "moot.batch.run_batch" if _has_run_batch() else "moot.evaluate under an asyncio.Semaphore"
    artifact_bytes = len(_artifact_text(0, args.artifact_kb).encode())
    print(f"{args.debates} evaluate debates (3 judges, 3 rounds, a moderator); L = {args.latency}s per call")
    print(f"moot driven through {driver}; artifact {artifact_bytes / 1024:.1f} KB per debate")
    print(
        f"{'':>5} {'conc':>5} {'wall s':>8} {'ratio':>6} {'cpu ms/debate':>14} {'calls':>7} {'tokens':>11} "
        f"{'peak RSS MB':>12} {'store KB/debate':>16}"
    )
    try:
        for c in args.concurrency:
            figures = {}
            for name, child in (("floor", _floor_child), ("moot", _moot_child)):
                folder = tmp / f"{name}-{c}"
                folder.mkdir()
                figures[name] = _measure(ctx, child, base_url, str(folder), args.debates, c, args.artifact_kb)
            floor = figures["floor"]
            for name, f in figures.items():
                ratio = f"{f['wall'] / floor['wall']:.3f}" if name == "moot" else ""
                store = f"{f['store_bytes'] / args.debates / 1024:.1f}" if "store_bytes" in f else ""
                print(
                    f"{name:>5} {c:>5} {f['wall']:>8.2f} {ratio:>6} {1000 * f['cpu'] / args.debates:>14.2f} "
                    f"{f['calls']:>7} {f['tokens']:>11} {f['rss_mb']:>12.1f} {store:>16}"
                )
            if figures["moot"].get("failed"):
                print(f"      {figures['moot']['failed']} debates failed")
            ideal = args.debates / c * 4 * args.latency
            print(f"      ideal wall (debates / concurrency x 4 steps x L): {ideal:.2f}s")
    finally:
        server.terminate()
    print(f"targets: ratio <= 1.10; peak RSS <= 300 MB; python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()

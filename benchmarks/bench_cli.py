"""Benchmark: how fast the `moot` command starts, and what a debate costs through the CLI against the API.

Every figure is a fresh process, as a user meets it. Printed:

- the wall time of `moot --help`, `moot evaluate --help` and `moot --version` (median of N runs);
- the engine's own time in one three-judge debate against the local fake server, each reply taking a
  fixed latency L: the process's wall time minus rounds x L (and its CPU time), once through the CLI
  (`moot evaluate ...`) and once through the Python API (`python -c "moot.evaluate_sync(...)"`), with
  their ratio; the bare openai SDK making the same calls is shown as the floor;
- the same debates' whole wall time over the limit rounds x L (the least any way of making the calls can
  take), and the time from the API call (`moot.evaluate_sync`, after `import moot`) to the first judge
  request reaching the server, beside the bare SDK's from the start of its loop (after `import openai`);
  `call/limit` is the call's own wall (from the call to its return) over the limit.

The fake server runs in its own process, so neither its work nor its sleeping counts as the engine's; it
notes when each request arrives. Runs of the three kinds are interleaved (a shared machine's load falls on
each alike) and each figure is their median.

    python benchmarks/bench_cli.py [--runs 5] [--debates 3] [--latency 1.0]

Targets on the project's 2-core machine: `moot --help` <= 150 ms; CLI engine time <= 1.2 x the API's; wall
over the limit: the API <= 1.15, the CLI <= 1.3.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import queue
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_evaluate import CRITERIA, _reply_for

ROOT = Path(__file__).resolve().parent.parent
ARTIFACT = ROOT / "src/moot/protocols/evaluate/demo/users-api/users.ts"
HELP_TARGET_S = 0.150
RATIO_TARGET = 1.2
LIMIT_TARGETS = {"api": 1.15, "cli": 1.3}

API_SCRIPT = """
import sys
import time
import moot
print("START", time.time(), flush=True)
r = moot.evaluate_sync(sys.argv[1], task="bench", criteria=sys.argv[3], judges=sys.argv[2], reports_dir=None)
print("END", time.time(), flush=True)
print(r.rounds_completed)
"""

SDK_SCRIPT = """
import asyncio, sys
import openai

async def main():
    client = openai.AsyncOpenAI(api_key="x", base_url=sys.argv[1], max_retries=0)
    text = open(sys.argv[2]).read()
    for round_no in (1, 2, 3):
        content = f"Round {round_no} of 3\\n{text}"
        calls = [
            client.chat.completions.create(model=f"bench-{i}", messages=[{"role": "user", "content": content}])
            for i in range(3)
        ]
        await asyncio.gather(*calls)
    await client.close()

print("START", __import__("time").time(), flush=True)
asyncio.run(main())
print("END", __import__("time").time(), flush=True)
print(3)
"""


def moot_command() -> list[str]:
    """The installed `moot` script beside this interpreter, as users run it; else `python -m moot`."""
    script = Path(sys.executable).parent / "moot"
    return [str(script)] if script.exists() else [sys.executable, "-m", "moot"]


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Wall and CPU seconds of one child process, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:3])} ... exited {r.returncode}:\n{r.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, r.stdout


def startup(env: dict[str, str], runs: int) -> dict[str, float]:
    moot = moot_command()
    figures = {}
    for label, args in (
        ("moot --help", ["--help"]),
        ("moot evaluate --help", ["evaluate", "--help"]),
        ("moot --version", ["--version"]),
    ):
        timed([*moot, *args], env)  # warm the file cache
        figures[label] = statistics.median(timed([*moot, *args], env)[0] for _ in range(runs))
    return figures


def _serve(port_q: Any, seen_q: Any, latency: float) -> None:
    """The fake judges' server: every reply after `latency`; the time each request arrives put on `seen_q`."""
    from moot.testing import FakeLLMServer

    def reply(model: str, body: dict[str, Any]) -> Any:
        seen_q.put(time.time())
        return _reply_for(model, body, latency)

    server = FakeLLMServer()
    server.responder = reply
    server.start()
    port_q.put(server.base_url)
    while True:
        time.sleep(3600)


def _first_seen(seen_q: Any, after: float) -> float:
    """The first request that arrived after `after` (every request of the debate has been answered)."""
    arrived = []
    while True:
        try:
            arrived.append(seen_q.get_nowait())
        except queue.Empty:
            break
    return min(t for t in arrived if t >= after)


def debate(kind: str, base_url: str, judges: Path, home: Path, env: dict[str, str], seen_q: Any) -> dict[str, float]:
    """One debate in a fresh process (`kind`: cli, api or sdk): wall, CPU, rounds, and the seconds from the
    process's start and from the call (the API's `evaluate_sync`, the SDK's loop) to the first request."""
    env = {**env, "MOOT_HOME": str(home)}
    spawned = time.time()
    if kind == "cli":
        argv = [
            *moot_command(),
            "evaluate",
            "-s",
            str(ARTIFACT),
            "--judges",
            str(judges),
            "--criteria",
            CRITERIA,
            "--task",
            "bench",
            "--format",
            "json",
            "--no-reports",
            "--quiet",
        ]
        wall, cpu, out = timed(argv, env)
        rounds, called, ended = int(json.loads(out)["rounds_completed"]), spawned, spawned + wall
    else:
        script = (
            [API_SCRIPT, str(ARTIFACT), str(judges), CRITERIA]
            if kind == "api"
            else [SDK_SCRIPT, base_url, str(ARTIFACT)]
        )
        wall, cpu, out = timed([sys.executable, "-c", *script], env)
        lines = out.strip().splitlines()
        rounds = int(lines[-1])
        called, ended = (float(next(x.split()[1] for x in lines if x.startswith(f"{w} "))) for w in ("START", "END"))
    first = _first_seen(seen_q, spawned)
    return {
        "wall": wall,
        "cpu": cpu,
        "rounds": rounds,
        "to_first": first - called,
        "start_to_first": first - spawned,
        "call_wall": ended - called,
    }


def engine_times(
    base_url: str, latency: float, debates: int, tmp: Path, env: dict[str, str], seen_q: Any
) -> dict[str, dict[str, float]]:
    judges = tmp / "judges.yaml"
    panel = [
        {"model": f"bench-{i}", "stance": s, "api_base": base_url} for i, s in enumerate(("neutral", "for", "against"))
    ]
    judges.write_text(yaml.safe_dump({"debate_judges": panel}), encoding="utf-8")
    kinds = ("cli", "api", "sdk")
    for kind in kinds:
        debate(kind, base_url, judges, tmp / f"warm-{kind}", env, seen_q)  # warm the file cache
    runs: dict[str, list[dict[str, float]]] = {k: [] for k in kinds}
    for n in range(debates):
        for kind in kinds:
            runs[kind].append(debate(kind, base_url, judges, tmp / f"{kind}-{n}", env, seen_q))
    out = {}
    for kind, done in runs.items():
        figures = {f: statistics.median(r[f] for r in done) for f in done[0]}
        figures["over"] = statistics.median(r["wall"] - r["rounds"] * latency for r in done)
        figures["limit_ratio"] = statistics.median(r["wall"] / (r["rounds"] * latency) for r in done)
        figures["call_ratio"] = statistics.median(r["call_wall"] / (r["rounds"] * latency) for r in done)
        out[kind] = figures
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7, help="runs per startup figure (median)")
    ap.add_argument("--debates", type=int, default=3, help="debates per way of running one (median)")
    ap.add_argument("--latency", type=float, default=1.0, help="seconds each judge's reply takes")
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "MOOT_JUDGES"}
    tmp = Path(tempfile.mkdtemp(prefix="moot-bench-cli-"))
    env["MOOT_HOME"] = str(tmp / "home")
    try:
        print(f"startup, median of {args.runs} fresh processes:")
        for label, wall in startup(env, args.runs).items():
            print(f"  {label:24} {wall * 1000:7.0f} ms")
        ctx = multiprocessing.get_context("spawn")
        q, seen_q = ctx.Queue(), ctx.Queue()
        server = ctx.Process(target=_serve, args=(q, seen_q, args.latency), daemon=True)
        server.start()
        try:
            base_url = q.get(timeout=30)
            figures = engine_times(base_url, args.latency, args.debates, tmp, env, seen_q)
        finally:
            server.terminate()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rounds = int(figures["cli"]["rounds"])
    limit = rounds * args.latency
    print(f"\none debate, 3 judges x {rounds} rounds, L = {args.latency:g} s, median of {args.debates} fresh processes")
    print(f"engine time = process wall - {rounds} x L; CPU = the process's own CPU time; limit = {limit:g} s")
    print(
        f"{'':28} {'engine s':>9} {'CPU s':>7} {'wall/limit':>11} {'start->1st s':>13} {'call->1st s':>12} "
        f"{'call/limit':>11}"
    )
    for kind, label in (("cli", "CLI  moot evaluate"), ("api", "API  moot.evaluate_sync"), ("sdk", "bare openai SDK")):
        f = figures[kind]
        to_first = "" if kind == "cli" else f"{f['to_first']:12.3f} {f['call_ratio']:11.2f}"
        print(
            f"  {label:26} {f['over']:9.3f} {f['cpu']:7.3f} {f['limit_ratio']:11.2f} {f['start_to_first']:13.3f} "
            f"{to_first}"
        )
    ratio = figures["cli"]["over"] / figures["api"]["over"]
    cpu_ratio = figures["cli"]["cpu"] / figures["api"]["cpu"]
    print(f"  CLI / API: engine time x{ratio:.2f} (target <= {RATIO_TARGET}), CPU x{cpu_ratio:.2f}")
    for kind, target in LIMIT_TARGETS.items():
        print(f"  {kind.upper()} wall / limit {figures[kind]['limit_ratio']:.2f} (target <= {target})")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

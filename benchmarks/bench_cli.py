"""Benchmark: how fast the `moot` command starts, and what a debate costs through the CLI against the API.

Every figure is a fresh process, as a user meets it. Printed:

- the wall time of `moot --help`, `moot evaluate --help` and `moot --version` (median of N runs);
- the engine's own time in one three-judge debate against the local fake server, each reply taking a
  fixed latency L: the process's wall time minus rounds x L (and its CPU time), once through the CLI
  (`moot evaluate ...`) and once through the Python API (`python -c "moot.evaluate_sync(...)"`), with
  their ratio; the bare openai SDK making the same calls is shown as the floor.

The fake server runs in its own process, so neither its work nor its sleeping counts as the engine's.

    python benchmarks/bench_cli.py [--runs 5] [--debates 3] [--latency 1.0]

Targets on the project's 2-core machine: `moot --help` <= 150 ms; CLI engine time <= 1.2 x the API's.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_evaluate import CRITERIA, _serve

ROOT = Path(__file__).resolve().parent.parent
ARTIFACT = ROOT / "src/moot/protocols/evaluate/demo/users-api/users.ts"
HELP_TARGET_S = 0.150
RATIO_TARGET = 1.2

API_SCRIPT = """
import sys
import moot
r = moot.evaluate_sync(sys.argv[1], task="bench", criteria=sys.argv[3], judges=sys.argv[2], reports_dir=None)
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
    print(3)

asyncio.run(main())
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


def debate(kind: str, base_url: str, judges: Path, home: Path, env: dict[str, str]) -> tuple[float, float, int]:
    """Wall, CPU and rounds of one debate in a fresh process (`kind`: cli, api or sdk)."""
    env = {**env, "MOOT_HOME": str(home)}
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
        return wall, cpu, int(json.loads(out)["rounds_completed"])
    if kind == "api":
        wall, cpu, out = timed([sys.executable, "-c", API_SCRIPT, str(ARTIFACT), str(judges), CRITERIA], env)
    else:
        wall, cpu, out = timed([sys.executable, "-c", SDK_SCRIPT, base_url, str(ARTIFACT)], env)
    return wall, cpu, int(out.strip().splitlines()[-1])


def engine_times(base_url: str, latency: float, debates: int, tmp: Path, env: dict[str, str]) -> dict[str, tuple]:
    judges = tmp / "judges.yaml"
    panel = [
        {"model": f"bench-{i}", "stance": s, "api_base": base_url} for i, s in enumerate(("neutral", "for", "against"))
    ]
    judges.write_text(yaml.safe_dump({"debate_judges": panel}), encoding="utf-8")
    out = {}
    for kind in ("cli", "api", "sdk"):
        debate(kind, base_url, judges, tmp / f"warm-{kind}", env)  # warm the file cache
        runs = [debate(kind, base_url, judges, tmp / f"{kind}-{n}", env) for n in range(debates)]
        over = statistics.median(w - rounds * latency for w, _, rounds in runs)
        out[kind] = (over, statistics.median(c for _, c, _ in runs), runs[0][2])
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
        q = ctx.Queue()
        server = ctx.Process(target=_serve, args=(q, args.latency), daemon=True)
        server.start()
        try:
            base_url = q.get(timeout=30)
            figures = engine_times(base_url, args.latency, args.debates, tmp, env)
        finally:
            server.terminate()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rounds = figures["cli"][2]
    print(f"\none debate, 3 judges x {rounds} rounds, L = {args.latency:g} s, median of {args.debates} fresh processes")
    print(f"engine time = process wall - {rounds} x L; CPU = the process's own CPU time")
    for kind, label in (("cli", "CLI  moot evaluate"), ("api", "API  moot.evaluate_sync"), ("sdk", "bare openai SDK")):
        over, cpu, _ = figures[kind]
        print(f"  {label:26} engine {over:6.3f} s   CPU {cpu:6.3f} s")
    ratio = figures["cli"][0] / figures["api"][0]
    cpu_ratio = figures["cli"][1] / figures["api"][1]
    print(f"  CLI / API: engine time x{ratio:.2f} (target <= {RATIO_TARGET}), CPU x{cpu_ratio:.2f}")


if __name__ == "__main__":
    main()

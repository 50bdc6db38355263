"""Benchmark: `moot bench --dry-run` on large gold files (issue 19, L9: 10,000 items priced in under 30 s).

Each figure is a fresh `moot bench GOLD --dry-run` process on a pairwise gold file of mixed lengths, as a
user meets it: wall and CPU time, RSS, and the ratio to the floor, the same command on 64 items (the
sample a large suite is priced from, so the floor prices every one of its items). Also printed: how far
the sampled dollars are from pricing every item of a 1,000-item file (`--exact`, slow: it renders every
prompt of every item, as the dry run did before).

    python benchmarks/bench_dry_run.py [--sizes 64,1000,10000] [--exact]

Target on the project's 2-core machine: 10,000 items under 30 s wall.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET_S = 30.0
JUDGES = "debate_judges:\n" + "".join(f"  - {{model: gpt-4o-mini, stance: {s}}}\n" for s in ("risk", "value", "effort"))


def gold(path: Path, n: int) -> Path:
    rng = random.Random(1)
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            words = " ".join(rng.choice(["alpha", "beta", "gamma", "delta"]) for _ in range(rng.randint(10, 400)))
            row = {"id": f"q{i}", "question": f"Question {i}: {words}", "response_A": "A " * rng.randint(20, 800)}
            row |= {"response_B": "B " * rng.randint(20, 800), "label": rng.choice(["A>B", "B>A"])}
            f.write(json.dumps(row) + "\n")
    return path


def dry_run(folder: Path, gold_file: Path, *, exact: bool = False) -> tuple[float, float, int, dict[str, object]]:
    """Wall s, CPU s, peak RSS KB of the child, and its JSON."""
    env = {**os.environ, "MOOT_HOME": str(folder / f"home-{gold_file.stem}-{exact}")}
    code = "import sys; from moot.bench import dry_run; dry_run.SAMPLE = 10**9; from moot.cli.app import run; run()"
    cmd = [sys.executable, "-c", code] if exact else [sys.executable, "-m", "moot"]
    cmd += ["bench", str(gold_file), "--judges", str(folder / "judges.yaml"), "--dry-run", "--format", "json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss, json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="64,1000,10000")
    parser.add_argument("--exact", action="store_true", help="also price every item of a 1,000-item file")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "judges.yaml").write_text(JUDGES, encoding="utf-8")
        floor = None
        print(f"{'items':>7} {'wall s':>8} {'cpu s':>8} {'rss MB':>7} {'x floor':>8}  typical USD (low-high)")
        for n in sizes:
            wall, cpu, rss, data = dry_run(folder, gold(folder / f"gold{n}.jsonl", n))
            floor = floor or wall
            usd = data["typical_usd"]
            rate = wall / floor
            print(f"{n:>7} {wall:>8.2f} {cpu:>8.2f} {rss / 1024:>7.0f} {rate:>8.2f}  {usd['low']}-{usd['high']}")
            if n == 10_000:
                print(f"  10,000 items: {'under' if wall < TARGET_S else 'OVER'} the {TARGET_S:g} s target")
        if args.exact:
            g = gold(folder / "gold1000.jsonl", 1000)
            _, _, _, sampled = dry_run(folder, g)
            wall, _, _, exact = dry_run(folder, g, exact=True)
            for key in ("low", "high"):
                s, e = sampled["typical_usd"][key], exact["typical_usd"][key]
                print(f"  1,000 items, typical {key}: sampled ${s} vs every item ${e} ({(s - e) / e:+.2%})")
            print(f"  worst: sampled ${sampled['worst_usd']} vs ${exact['worst_usd']}; every item took {wall:.1f} s")


if __name__ == "__main__":
    main()

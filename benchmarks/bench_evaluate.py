"""Benchmark: a full `moot evaluate` debate against judges with a fixed latency L.

Judges of a round run concurrently, so a debate's wall time should be rounds x L plus the engine's own
overhead. The fake LLM server runs in a separate process, so the CPU time printed is the engine's alone
(prompt rendering, parsing, SQLite writes, reports). Prints wall, CPU, calls, tokens and peak RSS.

    python benchmarks/bench_evaluate.py [--latency 2.0] [--judges 3 5 9] [--runs 2]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

CRITERIA = "correctness:30,design:25,security:20,performance:15,docs:10"
KEYS = ["correctness", "design", "security", "performance", "docs"]


def _reply_for(model: str, body: dict[str, Any], latency: float) -> Any:
    """Scores that never converge (1.5 / 3.0 / 4.5 ...), so every debate runs all three rounds."""
    from moot.testing import Reply

    idx = int(model.rsplit("-", 1)[1])
    score = [1.5, 3.0, 4.5][idx % 3]
    user = body["messages"][-1]["content"]
    round_no = 1 if "Round 1 of" in user else (3 if "FINAL POSITIONS" in user else 2)
    key = {1: "overall_score", 2: "new_score", 3: "final_score"}[round_no]
    data = {
        "round": round_no,
        key: score,
        "dimension_scores": {k: round(score) for k in KEYS},
        "position_statement": "Assessment with evidence. " * 40,
        "key_claims": [{"claim": "c", "evidence": "e", "confidence": "HIGH"}],
        "critical_findings": [],
    }
    return Reply(text=yaml.safe_dump(data), delay=latency, cached_tokens=0)


def _serve(port_q: Any, latency: float) -> None:
    from moot.testing import FakeLLMServer

    server = FakeLLMServer()
    server.responder = lambda model, body: _reply_for(model, body, latency)
    server.start()
    port_q.put(server.base_url)
    while True:
        time.sleep(3600)


async def _one(base_url: str, n_judges: int, home: Path, artifact: Path) -> tuple[float, float, Any]:
    from moot import api
    from moot.store import Store

    judges = [
        {"model": f"bench-{i}", "stance": ["neutral", "for", "against"][i % 3], "api_base": base_url}
        for i in range(n_judges)
    ]
    store = Store(home / "moot.db")
    t0, c0 = time.perf_counter(), time.process_time()
    result = await api.evaluate(
        str(artifact), task="bench", criteria=CRITERIA, judges=judges, reports_dir=home / "reports", store=store
    )
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    store.close()
    return wall, cpu, result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--latency", type=float, default=2.0)
    ap.add_argument("--judges", type=int, nargs="+", default=[3, 5, 9])
    ap.add_argument("--runs", type=int, default=2)
    args = ap.parse_args()

    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue()
    server = ctx.Process(target=_serve, args=(q, args.latency), daemon=True)
    server.start()
    base_url = q.get(timeout=30)
    tmp = Path(tempfile.mkdtemp(prefix="moot-bench-"))
    artifact = tmp / "users.ts"
    artifact.write_text(
        Path(__file__)
        .resolve()
        .parent.parent.joinpath("src/moot/protocols/evaluate/demo/users-api/users.ts")
        .read_text()
    )
    os.environ["MOOT_HOME"] = str(tmp)
    print(f"latency L = {args.latency}s per judge call, {args.runs} runs per panel size")
    print(
        f"{'judges':>6} {'rounds':>6} {'ideal s':>8} {'wall s':>8} {'over %':>7} {'cpu s':>7} {'calls':>6} "
        f"{'tokens in/out':>15}  within 5%"
    )
    try:
        # the first debate in a process also pays for imports (the openai SDK alone is ~1 s): shown apart
        cold_wall, _, cold = asyncio.run(_one(base_url, 3, tmp / "cold", artifact))
        cold_over = cold_wall - cold.rounds_completed * args.latency
        print(f"cold start: first debate {cold_wall:.3f}s, of which {cold_over:.3f}s over rounds x L (imports)")
        for n in args.judges:
            walls, cpus = [], []
            result = None
            for r in range(args.runs):
                wall, cpu, result = asyncio.run(_one(base_url, n, tmp / f"run-{n}-{r}", artifact))
                walls.append(wall)
                cpus.append(cpu)
            assert result is not None
            ideal = result.rounds_completed * args.latency
            wall = statistics.median(walls)
            sp = result.spend
            print(
                f"{n:>6} {result.rounds_completed:>6} {ideal:>8.2f} {wall:>8.3f} {100 * (wall - ideal) / ideal:>6.1f}% "
                f"{statistics.median(cpus):>7.3f} {sp.calls:>6} {sp.input_tokens:>7}/{sp.output_tokens:<7}  "
                + ("yes" if wall <= ideal * 1.05 else "no")
            )
    finally:
        server.terminate()
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS of the engine process: {rss_mb:.1f} MB (python {sys.version.split()[0]})")


if __name__ == "__main__":
    main()

"""Benchmark: what one answer costs through each real agent CLI, in moot's safe mode.

The four CLIs are the pinned npm versions of tests/agent_clis (installed and cached as the test tier does),
each pointed at a local `AgentModelServer` that answers at once. The floor is the same request bodies sent
straight to that server over HTTP, so a ratio is the CLI's own start-up and agent loop. Prints, per CLI:
wall per answer (median, min, max), CPU of the CLI's processes per answer, their peak RSS (each CLI is
measured in a fresh child process), model requests and bytes sent to the model per answer, and the ratio
of wall to the floor.

    python benchmarks/bench_agent_clis.py [--answers 3] [--clis claude gemini qwen codex]
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.real_agents import install, point_at

from moot.judges.agent_cli import build
from moot.judges.preflight import check
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Message, Prompt
from moot.testing.agent_wire import AgentModelServer, AgentRequest, answer

PROMPT = Prompt(system="You are a judge.", messages=[Message(role="user", content="Is 2+2=4? Answer briefly.")])


def floor_s(server: AgentModelServer, requests: list[AgentRequest]) -> float:
    """The same requests sent straight to the server, one after another."""
    t0 = time.perf_counter()
    for r in requests:
        req = urllib.request.Request(server.root_url + r.path, data=r.raw, method=r.method)
        req.add_header("content-type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                resp.read()
        except OSError:
            pass
    return time.perf_counter() - t0


def measure(cli: str, answers: int, server: AgentModelServer) -> str:
    version = asyncio.run(check(JudgeSpec(cli=cli), use_cache=False)).version
    judge = build(JudgeSpec(cli=cli), "")
    walls, cpu, sent, floors = [], 0.0, 0, 0.0
    for _ in range(answers):
        before = len(server.requests)
        usage0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        asyncio.run(judge.complete(PROMPT, timeout=120))
        walls.append(time.perf_counter() - t0)
        usage1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu += (usage1.ru_utime + usage1.ru_stime) - (usage0.ru_utime + usage0.ru_stime)
        new = [r for r in server.requests[before:] if r.wire != "other"]
        sent += sum(len(r.raw) for r in new)
        floors += floor_s(server, new)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    calls = sum(1 for r in server.requests if r.wire != "other") / answers
    med = statistics.median(walls)
    return (
        f"{cli:7} {version[:22]:22} {med:6.2f} {min(walls):6.2f} {max(walls):6.2f} {cpu / answers:7.2f} "
        f"{rss:8.0f} {calls:5.1f} {sent / answers / 1024:8.1f} {med / max(floors / answers, 1e-6):9.0f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answers", type=int, default=3)
    parser.add_argument("--clis", nargs="+", default=["claude", "gemini", "qwen", "codex"])
    parser.add_argument("--one", help=argparse.SUPPRESS)  # measure one CLI (in a child process)
    args = parser.parse_args()
    bin_dir = install()
    if args.one:
        with AgentModelServer(answer("4")) as server, tempfile.TemporaryDirectory() as home:
            patch = pytest.MonkeyPatch()
            try:
                point_at(server, Path(home), patch, bin_dir)
                print(measure(args.one, args.answers, server), flush=True)
            finally:
                patch.undo()
        return
    print(f"{'cli':7} {'version':22} {'wall':>6} {'min':>6} {'max':>6} {'cpu_s':>7} {'rss_mb':>8} "
          f"{'calls':>5} {'sent_kb':>8} {'x_floor':>9}")  # fmt: skip
    for cli in args.clis:
        subprocess.run([sys.executable, __file__, "--one", cli, "--answers", str(args.answers)], check=True)


if __name__ == "__main__":
    main()

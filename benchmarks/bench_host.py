"""Benchmark: moot's own time per host step, through a running MCP server and through the CLI.

A host step is one `submit_replies` (or the `moot reply` commands of one step) to the next waiting state,
with no vendor seat: all of it is moot's (reading the store, replaying the debate so far, reading the host
replies with the protocol's parser, storing them, planning the next step). The debate is a 3-judge
`evaluate --judges host` of three rounds (seed 003 with sub-agents); each debate gives three steps.

MCP: a running server driven by the official MCP client, the time the client's, around each
`submit_replies` call: once in this process over the SDK's in-memory transport (moot's own time, with the
MCP layer's but no socket: what the target is read against), once a `moot mcp --http` process started once
and kept running (as a coding agent keeps it), the HTTP transport included; each with its floor, a
`list_debates` call that reads one row. CLI: `moot reply` processes, one per seat (a step is three of them),
each a fresh Python process. The target (issue 28): median step in a running MCP server <= 50 ms.

    python benchmarks/bench_host.py [--debates 10] [--cli-debates 2]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.replies import CRITERIA, round1, round2, round3

SCRIPT = {  # three judges that disagree in round 1 and settle by round 3
    "judge-1": [round1(4.0, 4), round2(4.0), round3(4.0)],
    "judge-2": [round1(4.8, 5), round2(4.5, {"security": 4, "design": 4}), round3(4.2)],
    "judge-3": [round1(2.5, 2), round2(3.5), round3(4.0)],
}
ARTIFACT = "export function createUser(name: string) { return { id: 1, name }; }\n" * 40


def _replies(state: dict[str, Any]) -> list[dict[str, str]]:
    return [{"seat": r["seat"], "reply": SCRIPT[r["seat"]][r["round"] - 1]} for r in state["requests"]]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _debates(client: Client, folder: Path, debates: int, steps: list[float], floor: list[float]) -> None:
    """Run `debates` host debates to their verdicts through `client`, timing each submit_replies call (and, once
    per debate, a tool call that reads one row: the transport's floor). The first debate warms up."""
    args = {"solution": [str(folder / "users.ts")], "criteria": CRITERIA, "judges": "host", "no_reports": True}
    for n in range(debates + 1):
        r = await client.call_tool("evaluate", args)
        assert not r.is_error, r.content
        state: dict[str, Any] = r.structured_content  # type: ignore[assignment]
        while state.get("status") == "waiting":
            t0 = time.perf_counter()
            r = await client.call_tool("submit_replies", {"debate_id": state["debate_id"], "replies": _replies(state)})
            took = time.perf_counter() - t0
            assert not r.is_error, r.content
            state = r.structured_content  # type: ignore[assignment]
            if n:
                steps.append(took)
        assert state["rounds_completed"] == 3, state
        t0 = time.perf_counter()
        await client.call_tool("list_debates", {"limit": 1})
        floor.append(time.perf_counter() - t0)


def bench_mcp_in_process(folder: Path, debates: int) -> tuple[list[float], list[float]]:
    """A running server in this process, reached over the SDK's in-memory transport: moot's own time, with
    the MCP layer's (tool dispatch, argument validation, the result's JSON) but no socket."""
    from moot.mcp import build_server

    os.environ["MOOT_HOME"] = str(folder / "home-in-process")
    steps: list[float] = []
    floor: list[float] = []

    async def run() -> None:
        async with Client(build_server()) as client:
            await _debates(client, folder, debates, steps, floor)

    anyio.run(run)
    return steps, floor


def bench_mcp_http(folder: Path, debates: int) -> tuple[list[float], list[float]]:
    """A `moot mcp --http` server process, started once and kept running, as a coding agent keeps it."""
    port = _free_port()
    env = {**os.environ, "MOOT_HOME": str(folder / "home")}
    cmd = [sys.executable, "-m", "moot", "mcp", "--http", str(port)]
    proc = subprocess.Popen(cmd, env=env, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    steps: list[float] = []
    floor: list[float] = []
    try:
        for _ in range(300):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)

        async def run() -> None:
            async with Client(f"http://127.0.0.1:{port}/mcp") as client:
                await _debates(client, folder, debates, steps, floor)

        anyio.run(run)
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return steps, floor


def _moot(folder: Path, *args: str, stdin: str | None = None) -> str:
    env = {**os.environ, "MOOT_HOME": str(folder / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "moot", *args], cwd=folder, env=env, input=stdin, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def bench_cli(folder: Path, debates: int) -> tuple[list[float], list[float]]:
    steps: list[float] = []
    replies: list[float] = []
    for _ in range(debates):
        out = _moot(folder, "evaluate", "-s", "users.ts", "--criteria", CRITERIA, "--judges", "host",
                    "--no-reports", "--format", "json")  # fmt: skip
        state = json.loads(out)
        while state.get("status") == "waiting":
            step = 0.0
            for reply in _replies(state):
                t0 = time.perf_counter()
                out = _moot(folder, "reply", state["debate_id"], "--seat", reply["seat"], "-f", "json",
                            stdin=reply["reply"])  # fmt: skip
                took = time.perf_counter() - t0
                replies.append(took)
                step += took
            steps.append(step)
            state = json.loads(out)
    return steps, replies


def _line(name: str, values: list[float]) -> str:
    ms = sorted(v * 1000 for v in values)
    return (
        f"{name:34} n={len(ms):3}  median {statistics.median(ms):7.1f} ms  "
        f"p90 {ms[int(0.9 * (len(ms) - 1))]:7.1f} ms  min {ms[0]:6.1f}  max {ms[-1]:7.1f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--debates", type=int, default=10, help="debates through the MCP server (3 steps each)")
    parser.add_argument("--cli-debates", type=int, default=2, help="debates through the CLI (3 steps each)")
    a = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "users.ts").write_text(ARTIFACT, encoding="utf-8")
        here = Path.cwd()
        os.chdir(folder)  # the MCP server reads only inside its roots: its working folder, the artifact's
        try:
            in_process, in_floor = bench_mcp_in_process(folder, a.debates)
            http, http_floor = bench_mcp_http(folder, a.debates)
            cli_steps, cli_replies = bench_cli(folder, a.cli_debates)
        finally:
            os.chdir(here)
    print("moot's own time per host step: 3-judge evaluate --judges host, 3 rounds, no vendor seat")
    print(_line("MCP step, running server in-process", in_process))
    print(_line("  floor: list_debates in-process", in_floor))
    print(_line("MCP step over HTTP (moot mcp --http)", http))
    print(_line("  floor: list_debates over HTTP", http_floor))
    if cli_steps:
        print(_line("CLI step (3 x moot reply)", cli_steps))
        print(_line("CLI one moot reply process", cli_replies))
    verdict = "met" if statistics.median(in_process) <= 0.050 else "NOT met"
    print(f"target: median step in a running MCP server <= 50 ms: {verdict}")


if __name__ == "__main__":
    main()

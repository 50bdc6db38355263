"""Two long-lived MCP servers (one over stdio, one over HTTP) and repeated CLI runs on one store, with mixed
calls (evaluate, decide, challenge, list, show) against the scripted local LLM server: every debate is stored
and finished, no error calls the store damaged, and SQLite's integrity check passes (issue 27's stress test,
bounded for CI). Before, two servers and a CLI on one store failed 10 of 10 MCP debates with "damaged"."""

from __future__ import annotations

import json
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from moot.testing import FakeLLMServer

from .store_processes import cli, env_for, http_server, wait_for_port
from .test_batch_support import judges_for, serve

ROUNDS = 2  # per server: an evaluate, a decide and a challenge each, then a list and a show
CLI_RUNS = 2  # CLI debates beside the servers' (an evaluate, a decide), then a `moot list` and a `moot show`


def tool_calls(tmp_path: Path, judges: dict[str, str], name: str, n: int) -> list[tuple[str, dict[str, Any]]]:
    code = tmp_path / f"{name}{n}.py"
    code.write_text(f"def f(x):\n    return x + {n}\n", encoding="utf-8")
    return [
        ("evaluate", {"solution": [str(code)], "criteria": "correctness:1", "no_reports": True,
                      "judges": judges["evaluate"]}),
        ("decide", {"question": f"Which cache for service {n}?", "option": ["A=Redis", "B=Memcached"],
                    "no_files": True, "judges": judges["decide"]}),
        ("challenge", {"topic": f"Shard table {n} by customer id", "judges": judges["challenge"]}),
    ]  # fmt: skip


async def drive(client: Client, name: str, tmp_path: Path, judges: dict[str, str], seen: dict[str, Any]) -> None:
    for n in range(ROUNDS):
        for tool, args in tool_calls(tmp_path, judges, name, n):
            result = await client.call_tool(tool, args)
            if result.is_error:
                seen["errors"].append(f"{name} {tool}: {result.content[0].text}")  # type: ignore[union-attr]
            else:
                seen["ids"].append(result.structured_content["debate_id"])  # type: ignore[index]
        listed = await client.call_tool("list_debates", {"limit": 1000})
        if listed.is_error:
            seen["errors"].append(f"{name} list: {listed.content[0].text}")  # type: ignore[union-attr]
        if seen["ids"]:
            shown = await client.call_tool("show_debate", {"debate_id": seen["ids"][-1]})
            if shown.is_error:
                seen["errors"].append(f"{name} show: {shown.content[0].text}")  # type: ignore[union-attr]


def cli_runs(home: Path, tmp_path: Path, judges: dict[str, str], seen: dict[str, Any]) -> None:
    for n in range(CLI_RUNS):
        if n % 2 == 0:
            code = tmp_path / f"cli{n}.py"
            code.write_text(f"def g(x):\n    return x * {n}\n", encoding="utf-8")
            args = ["evaluate", "--solution", str(code), "--criteria", "correctness:1", "--no-reports",
                    "--judges", judges["evaluate"]]  # fmt: skip
        else:
            args = ["decide", "--question", f"Which queue for job {n}?", "--option", "A=SQS", "--option", "B=Kafka",
                    "--no-files", "--judges", judges["decide"]]  # fmt: skip
        done = cli(home, tmp_path, *args, "--format", "json", "--no-progress")
        if done.returncode:
            seen["errors"].append(f"cli {args[0]}: {done.stderr.strip()}")
        else:
            seen["ids"].append(json.loads(done.stdout)["debate_id"])
    for args in (["list"], ["show", seen["ids"][0] if seen["ids"] else "none"]):
        done = cli(home, tmp_path, *args)
        if done.returncode:
            seen["errors"].append(f"cli {args[0]}: {done.stderr.strip()}")


def last_cli_debate(home: Path, tmp_path: Path, judges: dict[str, str], seen: dict[str, Any]) -> None:
    code = tmp_path / "last.py"
    code.write_text("def h(x):\n    return -x\n", encoding="utf-8")
    args = ["evaluate", "-s", str(code), "--criteria", "correctness:1", "--no-reports", "--judges", judges["evaluate"]]
    done = cli(home, tmp_path, *args, "--format", "json", "--no-progress")
    if done.returncode:
        seen["errors"].append(f"cli last evaluate: {done.stderr.strip()}")
    else:
        seen["ids"].append(json.loads(done.stdout)["debate_id"])


def test_two_servers_and_cli_runs_share_one_store(
    tmp_path: Path, isolated_home: Path, llm_server: FakeLLMServer
) -> None:
    serve(llm_server, delay=0.01)
    judges = {
        protocol: str(judges_for(protocol, tmp_path, llm_server)) for protocol in ("evaluate", "decide", "challenge")
    }
    seen: dict[str, Any] = {"ids": [], "errors": []}
    stdio = StdioServerParameters(
        command=sys.executable, args=["-m", "moot", "mcp"], env=env_for(isolated_home), cwd=str(tmp_path)
    )
    started = time.monotonic()
    with http_server(isolated_home, tmp_path, wait=False) as (port, proc):  # both servers start at once

        async def run() -> None:
            async with Client(stdio, read_timeout_seconds=120) as over_stdio:
                await anyio.to_thread.run_sync(wait_for_port, proc, port)
                async with Client(f"http://127.0.0.1:{port}/mcp") as over_http, anyio.create_task_group() as tg:
                    tg.start_soon(drive, over_stdio, "stdio", tmp_path, judges, seen)
                    tg.start_soon(drive, over_http, "http", tmp_path, judges, seen)
                    await anyio.to_thread.run_sync(cli_runs, isolated_home, tmp_path, judges, seen)
                # the issue's pattern last: a CLI debate after the servers' calls, then the servers stop
                await anyio.to_thread.run_sync(last_cli_debate, isolated_home, tmp_path, judges, seen)

        anyio.run(run)
    elapsed = time.monotonic() - started
    assert seen["errors"] == []
    assert len(seen["ids"]) == 2 * 3 * ROUNDS + CLI_RUNS + 1
    db = sqlite3.connect(isolated_home / "moot.db")
    try:
        statuses = dict(db.execute("SELECT id, status FROM debates").fetchall())
        assert {i: statuses.get(i) for i in seen["ids"]} == dict.fromkeys(seen["ids"], "finished")
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        db.close()
    assert elapsed < 90, elapsed  # bounded for CI: about 30 s on 2 cores shared with other jobs

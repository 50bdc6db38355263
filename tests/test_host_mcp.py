"""Host seats over MCP, driven by the SDK's own client over stdio and streamable HTTP: `judges: "host"` runs
an evaluate to its verdict with no LLM server and no key, `proponent: "host"` a challenge against scripted
vendor challengers, and a waiting debate continues after its server is killed and another started."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
from mcp import Client, StdioServerParameters

from moot.testing import FakeLLMServer

from .replies import CRITERIA
from .test_host_challenge import CONSENSUS, TOPIC, TRADEOFF
from .test_host_evaluate import SCRIPT

Body = Callable[[Client], Awaitable[None]]


def _stdio(home: Path, cwd: Path, body: Body) -> None:
    env = {"MOOT_HOME": str(home), "PATH": os.environ.get("PATH", "")}  # no vendor key anywhere
    params = StdioServerParameters(command=sys.executable, args=["-m", "moot", "mcp"], env=env, cwd=str(cwd))

    async def run() -> None:
        async with Client(params, read_timeout_seconds=60) as client:
            await body(client)

    anyio.run(run)


@contextmanager
def _http_server(home: Path, cwd: Path) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")} | {"MOOT_HOME": str(home)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "moot", "mcp", "--http", str(port), "--no-token"],  # a single-user machine
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert proc.poll() is None
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp", proc
    finally:
        if proc.poll() is None:
            proc.terminate()
        proc.wait(timeout=10)


def _http(url: str, body: Body) -> None:
    async def run() -> None:
        async with Client(url) as client:
            await body(client)

    anyio.run(run)


def _artifact(tmp_path: Path) -> str:
    path = tmp_path / "users.ts"
    path.write_text("export function createUser(name: string) { return { id: 1, name }; }\n", encoding="utf-8")
    return str(path)


def _evaluate_args(tmp_path: Path) -> dict[str, Any]:
    return {"solution": [_artifact(tmp_path)], "criteria": CRITERIA, "judges": "host", "no_reports": True}


async def _answer(client: Client, state: dict[str, Any], script: dict[str, list[str]]) -> dict[str, Any]:
    """One host turn: every pending request answered from the script (each seat's next reply)."""
    done = _answered(state)
    replies = [{"seat": r["seat"], "reply": script[r["seat"]][done[r["seat"]]]} for r in state["requests"]]
    r = await client.call_tool("submit_replies", {"debate_id": state["debate_id"], "replies": replies})
    assert not r.is_error, r.content
    data: dict[str, Any] = r.structured_content  # type: ignore[assignment]
    return data


def _answered(state: dict[str, Any]) -> dict[str, int]:
    """How many replies each pending seat has given before: its request's round, less one (evaluate's keys
    are r1/judge-1, ...; challenge's phases are counted by the test itself)."""
    return {r["seat"]: int(r["round"]) - 1 for r in state["requests"]}


def test_evaluate_with_host_judges_over_stdio_to_a_verdict_with_a_bad_reply_refused(
    tmp_path: Path, isolated_home: Path
) -> None:
    seen: dict[str, Any] = {}

    async def body(client: Client) -> None:
        r = await client.call_tool("evaluate", _evaluate_args(tmp_path))
        state = r.structured_content
        assert state is not None and state["status"] == "waiting" and len(state["requests"]) == 3
        bad = await client.call_tool(
            "submit_replies", {"debate_id": state["debate_id"], "replies": [{"seat": "judge-1", "reply": "fine"}]}
        )
        seen["bad"] = bad
        shown = await client.call_tool("show_debate", {"debate_id": state["debate_id"]})
        seen["pending"] = [r["seat"] for r in shown.structured_content["requests"]]  # type: ignore[index]
        for _ in range(3):
            state = await _answer(client, state, SCRIPT)
        seen["result"] = state

    _stdio(isolated_home, tmp_path, body)
    assert seen["bad"].is_error
    message = seen["bad"].content[0].text
    assert message.endswith("judge-1: the reply has no YAML or JSON block that could be read") and "\n" not in message
    assert "reply refused, still pending" in message
    assert seen["pending"] == ["judge-1", "judge-2", "judge-3"]
    result = seen["result"]
    assert result["rounds_completed"] == 3 and result["summary"]["final_verdict"] == "PASS"


def test_a_waiting_debate_continues_after_its_http_server_is_killed(tmp_path: Path, isolated_home: Path) -> None:
    seen: dict[str, Any] = {}

    async def first(client: Client) -> None:
        r = await client.call_tool("evaluate", _evaluate_args(tmp_path))
        seen["state"] = await _answer(client, r.structured_content, SCRIPT)  # type: ignore[arg-type]

    with _http_server(isolated_home, tmp_path) as (url, proc):
        _http(url, first)
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
    assert seen["state"]["status"] == "waiting" and {r["round"] for r in seen["state"]["requests"]} == {2}

    async def second(client: Client) -> None:
        listed = await client.call_tool("list_debates", {})
        seen["listed"] = listed.structured_content["debates"][0]  # type: ignore[index]
        state = seen["state"]
        for _ in range(2):
            state = await _answer(client, state, SCRIPT)
        seen["result"] = state

    with _http_server(isolated_home, tmp_path) as (url, _):
        _http(url, second)
    assert seen["listed"]["status"] == "waiting" and seen["listed"]["waiting_for"] == ["judge-1", "judge-2", "judge-3"]
    assert seen["result"]["rounds_completed"] == 3 and seen["result"]["summary"]["final_verdict"] == "PASS"


async def _challenge(client: Client, script: dict[str, list[str]], server: FakeLLMServer) -> dict[str, Any]:
    """A challenge whose proponent is the host (this client) against two scripted vendor challengers."""
    for n in (1, 2):
        server.script(f"ch-{n}", *script[f"challenger-{n}"])
    judges = Path("challengers.yaml")
    lines = [f"  - {{model: ch-{n}, api_base: '{server.base_url}'}}" for n in (1, 2)]
    judges.write_text("challengers:\n" + "\n".join(lines) + "\n", encoding="utf-8")
    args = {"topic": TOPIC, "proponent": "host", "judges": str(judges.absolute()), "max_rounds": 1}
    r = await client.call_tool("challenge", args)
    state: dict[str, Any] = r.structured_content  # type: ignore[assignment]
    for reply in script["proponent"]:
        assert state["status"] == "waiting" and [q["seat"] for q in state["requests"]] == ["proponent"]
        r = await client.call_tool(
            "submit_replies", {"debate_id": state["debate_id"], "replies": [{"seat": "proponent", "reply": reply}]}
        )
        assert not r.is_error, r.content
        state = r.structured_content  # type: ignore[assignment]
    return state


def test_challenge_with_a_host_proponent_over_stdio_and_http(tmp_path: Path, isolated_home: Path) -> None:
    outcomes: list[tuple[str, int, bool]] = []

    async def both(client: Client) -> None:
        for script in (CONSENSUS, TRADEOFF):
            result = await _challenge(client, script, server)
            outcomes.append((result["outcome"], result["rounds"], bool(result.get("assumptions"))))

    with FakeLLMServer() as server:
        _stdio(isolated_home, tmp_path, both)
        with _http_server(isolated_home, tmp_path) as (url, _):
            _http(url, both)
    assert outcomes == [("CONSENSUS", 1, False), ("TRADEOFF", 1, True)] * 2

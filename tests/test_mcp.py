"""The MCP server, driven by the SDK's own client: in-process, over stdio, and over streamable HTTP."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters

from moot.cli.app import main
from moot.mcp import build_server

from .replies import CRITERIA
from .scripted_panels import artifact, challenge_panel, converging_panel, decide_panel
from .test_decide_support import OPTIONS, QUESTION

Progress = list[tuple[float, float | None, str | None]]


def boundaries(progress: Progress) -> Progress:
    """The round boundaries' notifications, without each judge call's (its start, end and reply)."""
    return [p for p in progress if p[2] and re.match(r"(round \d+|final) (started|finished)", p[2])]


def in_process(body: Callable[[Client], Awaitable[None]]) -> None:
    async def run() -> None:
        async with Client(build_server()) as client:
            await body(client)

    anyio.run(run)


def evaluate_args(tmp_path: Path) -> dict[str, Any]:
    return {
        "solution": [str(artifact(tmp_path))],
        "criteria": CRITERIA,
        "judges": str(converging_panel(tmp_path)),
        "no_reports": True,
    }


def test_lists_its_tools() -> None:
    names: list[str] = []

    async def body(client: Client) -> None:
        names.extend(t.name for t in (await client.list_tools()).tools)

    in_process(body)
    assert {"evaluate", "show_debate", "list_debates", "doctor"} <= set(names)


def test_evaluate_returns_the_cli_json_and_reports_progress_per_round(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    progress: Progress = []
    results: dict[str, Any] = {}

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def body(client: Client) -> None:
        r = await client.call_tool("evaluate", evaluate_args(tmp_path), progress_callback=on_progress)
        assert not r.is_error, r.content
        results["evaluate"] = r
        debate_id = r.structured_content["debate_id"]  # type: ignore[index]
        results["show"] = await client.call_tool("show_debate", {"debate_id": debate_id})
        results["list"] = await client.call_tool("list_debates", {"limit": 5})

    in_process(body)
    data = results["evaluate"].structured_content
    assert data["summary"]["final_verdict"] == "PASS" and data["rounds_completed"] == 2
    # what the debate changed: nothing; round 1 is combined by the final verdict's rule (no majority within
    # range: the median, 4.0 PASS), so no verdict moves while no judge crosses a threshold
    effect = data["debate_effect"]
    assert (effect["round1_verdict"], effect["round1_score"]) == ("PASS", 4.0)
    assert (effect["final_verdict"], effect["differs"], effect["changed_judges"]) == ("PASS", False, [])
    assert json.loads(results["evaluate"].content[0].text) == data  # the text is the same JSON
    # the same JSON as `moot show --format json` for that debate
    assert main(["show", data["debate_id"], "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == data == results["show"].structured_content
    assert [d["debate_id"] for d in results["list"].structured_content["debates"]] == [data["debate_id"]]
    # one notification when each round starts and one when it ends, progress rising
    rounds = boundaries(progress)
    assert [p[0] for p in rounds] == [0.5, 1.0, 1.5, 2.0]
    assert {p[1] for p in progress} == {3}
    assert rounds[1][2] == "round 1 finished: scores 4, 4.8, 3; no consensus yet"
    assert rounds[3][2] == "round 2 finished: scores 4, 4.3, 3.9; consensus"
    # and one when each judge call starts and ends, with what came back (issue 28)
    messages = [m for _, _, m in progress]
    assert "round 1: judge-2 asked (judge)" in messages and "round 1: judge-2 answered: score 4.8" in messages
    assert sum(1 for m in messages if m and " replied in " in m) == 6
    values = [p[0] for p in progress]
    assert values == sorted(values) and len(set(values)) == len(values)


def test_bad_arguments_are_tool_errors_and_the_server_keeps_serving(tmp_path: Path) -> None:
    errors: dict[str, str] = {}
    after: list[Any] = []

    async def body(client: Client) -> None:
        cases = {
            "missing file": ("evaluate", {**evaluate_args(tmp_path), "solution": ["nope.ts"]}),
            "bad criteria": ("evaluate", {**evaluate_args(tmp_path), "criteria": "speed:abc"}),
            "bad mode": ("evaluate", {**evaluate_args(tmp_path), "mode": "sloppy"}),
            "wrong type": ("evaluate", {**evaluate_args(tmp_path), "max_rounds": "many"}),
            "no debate": ("show_debate", {"debate_id": "no-such-debate"}),
            "bad judges file": ("doctor", {"judges": str(tmp_path / "missing.yaml")}),
        }
        for name, (tool, args) in cases.items():
            r = await client.call_tool(tool, args)
            assert r.is_error, name
            errors[name] = r.content[0].text  # type: ignore[union-attr]
        after.append(await client.call_tool("list_debates", {}))

    in_process(body)
    assert "no such file: nope.ts" in errors["missing file"]
    assert "speed" in errors["bad criteria"]
    assert "--mode must be complete or quick" in errors["bad mode"]
    assert "max_rounds" in errors["wrong type"]
    assert "no debate no-such-debate" in errors["no debate"]
    assert "missing.yaml" in errors["bad judges file"]
    assert not after[0].is_error and after[0].structured_content == {"debates": []}


def test_doctor_lists_the_judges_of_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    panel = str(converging_panel(tmp_path))
    got: list[Any] = []

    async def body(client: Client) -> None:
        r = await client.call_tool("doctor", {"judges": panel})
        got.extend([r.structured_content, json.loads(r.content[0].text)])  # type: ignore[union-attr]

    in_process(body)
    structured, text = got
    assert [(r["judge"], r["usable"], r["kind"]) for r in structured["judges"]] == [
        ("alpha", True, "scripted"),
        ("beta", True, "scripted"),
        ("gamma", True, "scripted"),
    ]
    assert structured["judges_file"]["path"] == panel
    assert main(["doctor", "--judges", panel, "--format", "json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert structured == text == cli  # the CLI's JSON: same keys, same values


def server_env(home: Path) -> dict[str, str]:
    return {"MOOT_HOME": str(home), "PATH": os.environ.get("PATH", "")}


def test_stdio_transport_runs_a_debate(tmp_path: Path, isolated_home: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "moot", "mcp"], env=server_env(isolated_home), cwd=str(tmp_path)
    )
    seen: dict[str, Any] = {}

    async def run() -> None:
        async with Client(params, read_timeout_seconds=60) as client:
            seen["tools"] = [t.name for t in (await client.list_tools()).tools]
            seen["result"] = await client.call_tool("evaluate", evaluate_args(tmp_path))

    anyio.run(run)
    assert "evaluate" in seen["tools"]
    assert not seen["result"].is_error, seen["result"].content
    assert seen["result"].structured_content["summary"]["final_verdict"] == "PASS"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_http_transport_binds_localhost_and_serves_tools(tmp_path: Path, isolated_home: Path) -> None:
    port = free_port()
    token = "loopback-token-0123456789"  # asked on loopback too
    proc = subprocess.Popen(
        [sys.executable, "-m", "moot", "mcp", "--http", str(port)],
        env={**os.environ, "MOOT_HOME": str(isolated_home), "MOOT_MCP_TOKEN": token},
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
                time.sleep(0.1)
        seen: dict[str, Any] = {}

        async def run() -> None:
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
            async with http, Client(streamable_http_client(f"http://127.0.0.1:{port}/mcp", http_client=http)) as client:
                seen["tools"] = [t.name for t in (await client.list_tools()).tools]
                seen["list"] = await client.call_tool("list_debates", {})

        anyio.run(run)
        assert "evaluate" in seen["tools"]
        assert seen["list"].structured_content == {"debates": []}
        assert proc.stderr is not None  # it said where it listens as it started
        assert proc.stderr.readline().decode() == (
            f"moot mcp: serving streamable HTTP at http://127.0.0.1:{port}/mcp (this machine only); Ctrl-C stops it\n"
        )
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        if proc.stderr:
            proc.stderr.close()


def test_mcp_command_rejects_a_bad_host(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", "--http", "8765", "--host", "every where"]) == 2
    assert "--host must be an IP address or localhost" in capsys.readouterr().err


def test_decide_tool_returns_the_decision_json_with_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    progress: Progress = []
    seen: dict[str, Any] = {}

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def body(client: Client) -> None:
        args = {"question": QUESTION, "option": OPTIONS, "judges": str(decide_panel(tmp_path)), "no_files": True}
        seen["ok"] = await client.call_tool("decide", args, progress_callback=on_progress)
        seen["one option"] = await client.call_tool("decide", {**args, "option": OPTIONS[:1]})

    in_process(body)
    data = seen["ok"].structured_content
    assert not seen["ok"].is_error
    assert data["protocol"] == "decide" and data["recommended_option"] == "C" and data["rounds_completed"] == 2
    effect = data["debate_effect"]
    assert (effect["round1_verdict"], effect["final_verdict"], effect["changed_judges"]) == ("tie", "C", ["value"])
    assert effect["judges"][1]["reason"] == "Convinced by the ROI analysis"
    assert main(["show", data["debate_id"], "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == data
    progress = boundaries(progress)
    assert [p[0] for p in progress] == [0.5, 1.0, 1.5, 2.0]
    assert (
        progress[3][2] is not None and progress[3][2].startswith("round 2 finished") and "consensus" in progress[3][2]
    )
    assert seen["one option"].is_error and "at least two options" in seen["one option"].content[0].text


def test_challenge_tool_returns_the_tradeoff_json_with_rising_progress(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    progress: Progress = []
    seen: dict[str, Any] = {}

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def body(client: Client) -> None:
        args = {"topic": "How should we shard the orders table?", "judges": str(challenge_panel(tmp_path))}
        seen["ok"] = await client.call_tool("challenge", args, progress_callback=on_progress)
        seen["empty"] = await client.call_tool("challenge", {**args, "topic": "  "})

    in_process(body)
    assert not seen["ok"].is_error, seen["ok"].content
    data = seen["ok"].structured_content
    assert data["outcome"] == "TRADEOFF" and data["rounds"] == 2
    effect = data["debate_effect"]
    assert (effect["round1_verdict"], effect["final_verdict"], effect["differs"]) == ("tie", "tie", False)
    assert [(j["judge"], j["final"]) for j in effect["judges"]][1:] == [
        ("challenger-1", "agree"),
        ("challenger-2", "disagree"),
    ]
    assert main(["show", data["debate_id"], "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == data
    values = [p[0] for p in progress]
    assert values == sorted(values) and len(set(values)) == len(values)  # always rising
    assert {p[1] for p in progress} == {None}  # no total: the rounds asked for, and none were
    ends = [m for _, _, m in progress if m and m.startswith("round 2") and "started" not in m]
    assert ends, progress  # the end of the last round is reported too
    assert seen["empty"].is_error and "the topic is empty" in seen["empty"].content[0].text


def test_protocol_tools_take_a_cost_cap(tmp_path: Path) -> None:
    results: dict[str, Any] = {}

    async def body(client: Client) -> None:
        results["bad"] = await client.call_tool("evaluate", {**evaluate_args(tmp_path), "max_cost": -1})
        results["ok"] = await client.call_tool("evaluate", {**evaluate_args(tmp_path), "max_cost": 0.5})

    in_process(body)
    assert results["bad"].is_error and "max_cost must be a positive number" in results["bad"].content[0].text
    ok = results["ok"]
    assert not ok.is_error and ok.structured_content["summary"]["final_verdict"] in ("PASS", "CONDITIONAL", "FAIL")


def test_progress_never_runs_past_its_total(tmp_path: Path) -> None:
    progress: Progress = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total, message))

    async def body(client: Client) -> None:
        # two rounds asked for and run to the end, then every party's assumptions: a step after the last round
        args = {"topic": "How should we shard the orders table?", "judges": str(challenge_panel(tmp_path))}
        r = await client.call_tool("challenge", {**args, "max_rounds": 2}, progress_callback=on_progress)
        assert not r.is_error, r.content

    in_process(body)
    values = [p[0] for p in progress]
    assert {p[1] for p in progress} == {2}
    assert values == sorted(values) and len(set(values)) == len(values) and max(values) <= 2
    assert any(m and m.startswith("round 2") and "started" not in m for _, _, m in progress)

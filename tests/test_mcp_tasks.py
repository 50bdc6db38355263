"""A debate as a durable MCP task (`io.modelcontextprotocol/tasks`), driven by the official SDK's client with
the tasks extension declared (`tests.mcp_tasks_client`): in-process, over stdio and over streamable HTTP.

A task-augmented evaluate answers with a task at once; `tasks/get` follows it to `completed` with the plain
call's result; the task outlives its client's connection and its server (killed with SIGKILL mid-debate: a
new server resumes it from the store); `tasks/cancel` leaves no vendor call after it; host seats' requests
are `input_required` and `tasks/update` answers them. A client without the extension gets today's results."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, MISSING_REQUIRED_CLIENT_CAPABILITY, CallToolResult

from moot.errors import DebateCancelled
from moot.mcp import build_server
from moot.store import Store
from moot.testing import FakeLLMServer, Reply

from .mcp_tasks_client import (
    CreatedTask,
    TasksClient,
    cancel_task,
    follow,
    get_task,
    start_task,
    update_task,
)
from .replies import CRITERIA, round1
from .scripted_panels import artifact, converging_panel
from .test_host_evaluate import SCRIPT
from .test_host_mcp import _http_server

Body = Callable[[Client], Awaitable[None]]


def _args(tmp_path: Path) -> dict[str, Any]:
    return {
        "solution": [str(artifact(tmp_path))],
        "criteria": CRITERIA,
        "judges": str(converging_panel(tmp_path)),
        "no_reports": True,
    }


def _in_process(body: Body, *, tasks: bool = True) -> None:
    async def run() -> None:
        async with Client(build_server(), extensions=[TasksClient()] if tasks else None) as client:
            await body(client)

    anyio.run(run)


def _stdio(home: Path, cwd: Path, body: Body) -> None:
    env = {"MOOT_HOME": str(home), "PATH": os.environ.get("PATH", "")}
    params = StdioServerParameters(command=sys.executable, args=["-m", "moot", "mcp"], env=env, cwd=str(cwd))

    async def run() -> None:
        async with Client(params, read_timeout_seconds=60, extensions=[TasksClient()]) as client:
            await body(client)

    anyio.run(run)


def _http(url: str, body: Body) -> None:
    async def run() -> None:
        async with Client(url, extensions=[TasksClient()]) as client:
            await body(client)

    anyio.run(run)


def test_a_task_augmented_evaluate_answers_with_a_task_that_completes_with_the_plain_result(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}

    async def with_tasks(client: Client) -> None:
        seen["task"] = await start_task(client, "evaluate", _args(tmp_path))
        seen["done"] = await follow(client, seen["task"].task_id)
        seen["show"] = await client.call_tool("show_debate", {"debate_id": seen["task"].task_id})
        seen["dry"] = await start_task(client, "evaluate", {**_args(tmp_path), "dry_run": True})
        seen["hidden"] = await client.call_tool("evaluate", _args(tmp_path))  # a client that hides the task

    async def without(client: Client) -> None:
        seen["plain"] = await client.call_tool("evaluate", _args(tmp_path))

    _in_process(with_tasks)
    _in_process(without, tasks=False)
    task = seen["task"]
    assert isinstance(task, CreatedTask) and task.result_type == "task" and task.status == "working"
    assert task.ttl_ms is None and task.poll_interval_ms
    done = seen["done"]
    assert done.status == "completed" and done.task_id == task.task_id
    result = CallToolResult.model_validate(done.result)
    assert result.structured_content == seen["show"].structured_content
    plain = seen["plain"]
    assert isinstance(plain, CallToolResult) and plain.structured_content["status"] == "finished"  # today's
    for other in (result, seen["hidden"]):
        assert other.structured_content is not None and plain.structured_content is not None
        assert other.structured_content["verdict"] == plain.structured_content["verdict"]
        assert other.structured_content.keys() == plain.structured_content.keys()
        assert [c.type for c in other.content] == [c.type for c in plain.content]
    assert isinstance(seen["dry"], CallToolResult) and seen["dry"].structured_content["dry_run"] is True


def test_the_tasks_methods_need_the_extension_and_a_known_task(tmp_path: Path) -> None:
    errors: dict[str, int] = {}

    async def without(client: Client) -> None:
        try:
            await get_task(client, "x")
        except MCPError as e:
            errors["undeclared"] = e.error.code

    async def declared(client: Client) -> None:
        for name, call in (("get", get_task), ("cancel", cancel_task)):
            try:
                await call(client, "no-such-task")
            except MCPError as e:
                errors[name] = e.error.code

    _in_process(without, tasks=False)
    _in_process(declared)
    assert errors == {"undeclared": MISSING_REQUIRED_CLIENT_CAPABILITY, "get": INVALID_PARAMS, "cancel": INVALID_PARAMS}


def test_host_seats_are_input_required_and_tasks_update_answers_them(tmp_path: Path) -> None:
    seen: list[Any] = []

    async def body(client: Client) -> None:
        task = await start_task(client, "evaluate", {**_args(tmp_path), "judges": "host"})
        assert isinstance(task, CreatedTask)
        for _ in range(3):
            state = await follow(client, task.task_id, until=("input_required", "completed", "failed"))
            seen.append(state)
            asked = state.input_requests or {}
            responses = {}
            for key, request in asked.items():
                about = request["params"]["_meta"]["moot/request"]
                reply = SCRIPT[about["seat"]][int(about["round"]) - 1]
                responses[key] = {"role": "assistant", "content": {"type": "text", "text": reply}, "model": "host"}
            await update_task(client, task.task_id, responses)
            await follow(client, task.task_id, until=("working", "completed", "input_required"))
        seen.append(await follow(client, task.task_id))

    _in_process(body)
    first = seen[0]
    assert first.status == "input_required" and len(first.input_requests) == 3
    request = next(iter(first.input_requests.values()))
    assert request["method"] == "sampling/createMessage" and request["params"]["systemPrompt"]
    assert request["params"]["messages"][0]["content"]["text"] and request["params"]["_meta"]["moot/request"]["schema"]
    assert seen[-1].status == "completed"
    result = CallToolResult.model_validate(seen[-1].result).structured_content
    assert result is not None and result["rounds_completed"] == 3 and result["summary"]["final_verdict"] == "PASS"


class Gate:
    """Judges whose replies wait until the test opens the gate: a debate caught mid-call, for certain."""

    def __init__(self, server: FakeLLMServer) -> None:
        self.open = threading.Event()
        self.server = server
        server.responder = self.reply

    def reply(self, model: str, body: dict[str, Any]) -> Reply:
        self.open.wait(timeout=60)
        return Reply(text=round1(4.0, 4))

    def wait_for_calls(self, n: int) -> None:
        deadline = time.monotonic() + 60
        while len(self.server.requests) < n:
            assert time.monotonic() < deadline, f"{len(self.server.requests)} calls, waited for {n}"
            time.sleep(0.05)


def _gated_args(tmp_path: Path, server: FakeLLMServer, rounds: int = 1) -> dict[str, Any]:
    """An evaluate by two judges of the fake server, one round (quick), or more (`rounds`)."""
    judges = [{"model": m, "stance": s, "api_base": server.base_url} for m, s in (("g-a", "for"), ("g-b", "against"))]
    panel = tmp_path / "gated.yaml"
    panel.write_text(json.dumps({"debate_judges": judges}), encoding="utf-8")
    args = {"solution": [str(artifact(tmp_path))], "criteria": CRITERIA, "judges": str(panel), "no_reports": True}
    return args | ({"mode": "quick"} if rounds == 1 else {"max_rounds": rounds})


def test_a_task_survives_its_http_server_killed_mid_debate(tmp_path: Path, isolated_home: Path) -> None:
    seen: dict[str, Any] = {}
    with FakeLLMServer() as llm:
        gate = Gate(llm)
        args = _gated_args(tmp_path, llm)

        async def first(client: Client) -> None:
            seen["task"] = await start_task(client, "evaluate", args)
            await anyio.to_thread.run_sync(gate.wait_for_calls, 2)  # both judges asked, neither answered
            seen["mid"] = await get_task(client, seen["task"].task_id)

        async def second(client: Client) -> None:
            seen["done"] = await follow(client, seen["task"].task_id)

        with _http_server(isolated_home, tmp_path) as (url, proc):
            _http(url, first)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
        assert Store(str(isolated_home / "moot.db")).debate_status(seen["task"].task_id) == "running"
        gate.open.set()
        with _http_server(isolated_home, tmp_path) as (url, _):
            _http(url, second)
    assert seen["mid"].status == "working"
    done = seen["done"]
    assert done.status == "completed", done
    result = CallToolResult.model_validate(done.result).structured_content
    assert result is not None and result["debate_id"] == seen["task"].task_id and result["status"] == "finished"
    assert len(llm.requests) == 4  # the two calls cut off by the kill were asked again, nothing more


def test_a_task_outlives_its_stdio_client_and_server(tmp_path: Path, isolated_home: Path) -> None:
    seen: dict[str, Any] = {}
    with FakeLLMServer() as llm:
        gate = Gate(llm)
        args = _gated_args(tmp_path, llm)

        async def first(client: Client) -> None:
            seen["task"] = await start_task(client, "evaluate", args)
            await anyio.to_thread.run_sync(gate.wait_for_calls, 2)

        async def second(client: Client) -> None:
            seen["done"] = await follow(client, seen["task"].task_id)

        _stdio(isolated_home, tmp_path, first)  # the client leaves; its server ends with it
        gate.open.set()
        _stdio(isolated_home, tmp_path, second)
    assert seen["done"].status == "completed", seen["done"]
    result = CallToolResult.model_validate(seen["done"].result).structured_content
    assert result is not None and result["summary"]["final_verdict"] in ("PASS", "CONDITIONAL", "FAIL")


def test_tasks_cancel_leaves_no_vendor_call_after_it(tmp_path: Path, isolated_home: Path) -> None:
    seen: dict[str, Any] = {}
    with FakeLLMServer() as llm:
        gate = Gate(llm)
        args = _gated_args(tmp_path, llm, rounds=3)

        async def body(client: Client) -> None:
            task = await start_task(client, "evaluate", args)
            assert isinstance(task, CreatedTask)
            await anyio.to_thread.run_sync(gate.wait_for_calls, 2)
            await cancel_task(client, task.task_id)
            seen["calls at cancel"] = len(llm.requests)
            gate.open.set()  # the calls cut off get their replies now: nobody is listening
            seen["state"] = await follow(client, task.task_id)
            seen["show"] = await client.call_tool("show_debate", {"debate_id": task.task_id})
            await anyio.sleep(1.0)  # time for a round 2 a debate still running would start at once
            seen["calls after"] = len(llm.requests)

        with _http_server(isolated_home, tmp_path) as (url, _):
            _http(url, body)
    assert seen["state"].status == "cancelled"
    assert seen["show"].structured_content["status"] == "cancelled"
    assert seen["calls at cancel"] == seen["calls after"] == 2


def test_a_debate_cancelled_from_another_process_sends_no_further_call(tmp_path: Path, isolated_home: Path) -> None:
    """The engine reads the status before each call: a cancel written by another server stops the debate
    between calls, and it stays cancelled."""
    import moot

    with FakeLLMServer() as llm:
        other = Store(str(isolated_home / "moot.db"))  # another process's connection to the same store

        def reply(model: str, body: dict[str, Any]) -> Reply:
            if len(llm.requests) == 2:  # round 1's second call: the user cancels from elsewhere meanwhile
                debate_id = other.list_debates(1)[0].id
                other.set_status(debate_id, "cancelled", error="cancelled")
            return Reply(text=round1(4.0 if model == "g-a" else 2.0, 4))

        llm.responder = reply
        args = _gated_args(tmp_path, llm, rounds=3)
        with pytest.raises(DebateCancelled):
            moot.evaluate_sync(
                args["solution"], criteria=CRITERIA, judges=args["judges"], max_rounds=3, reports_dir=None
            )
    assert len(llm.requests) == 2
    assert other.list_debates(1)[0].status == "cancelled"


def test_http_answers_the_old_and_the_new_handshake_with_progress_on_both(tmp_path: Path, isolated_home: Path) -> None:
    """`moot mcp --http`: a 2025-11-25 client (initialize) and a 2026-07-28 one (no handshake, one POST per
    request) both run a debate and hear its round progress (over SSE, as the new revision requires)."""
    seen: dict[str, Any] = {}

    async def run(url: str, mode: str) -> None:
        notes: list[str | None] = []

        async def on_progress(value: float, total: float | None, message: str | None) -> None:
            notes.append(message)

        async with Client(url, mode=mode) as client:  # type: ignore[arg-type]
            r = await client.call_tool("evaluate", _args(tmp_path), progress_callback=on_progress)
            seen[mode] = (client.protocol_version, r.structured_content["status"], notes)  # type: ignore[index]

    with _http_server(isolated_home, tmp_path) as (url, _):
        for mode in ("legacy", "2026-07-28"):
            anyio.run(run, url, mode)
    assert seen["legacy"][0] == "2025-11-25" and seen["2026-07-28"][0] == "2026-07-28"
    for _, status, notes in seen.values():
        assert status == "finished" and "round 1 started with judge-1, judge-2, judge-3" in notes, notes


def test_a_contested_decide_task_asks_the_user_through_the_task(tmp_path: Path) -> None:
    """A task's CONTESTED decision is `input_required` with the question (for a client that can ask its user);
    `tasks/update` with the answer records it, and the task completes with the person's choice."""
    from mcp.types import ElicitResult

    from .scripted_panels import contested_decide_panel
    from .test_decide_support import OPTIONS, QUESTION

    seen: list[Any] = []

    async def never(context: Any, params: Any) -> ElicitResult:
        raise AssertionError("asked through the task, not during the call")

    async def body() -> None:
        async with Client(build_server(), extensions=[TasksClient()], elicitation_callback=never) as client:
            args = {"question": QUESTION, "option": OPTIONS, "judges": str(contested_decide_panel(tmp_path))}
            task = await start_task(client, "decide", args)
            assert isinstance(task, CreatedTask)
            asked = await follow(client, task.task_id, until=("input_required", "completed"))
            seen.append(asked)
            answer = {"action": "accept", "content": {"choice": "A"}}
            await update_task(client, task.task_id, {"moot/human-choice": answer})
            seen.append(await follow(client, task.task_id))

    anyio.run(body)
    asked, done = seen
    request = asked.input_requests["moot/human-choice"]
    assert asked.status == "input_required" and request["method"] == "elicitation/create"
    assert request["params"]["requestedSchema"]["properties"]["choice"]["enum"] == ["A", "B", "C"]
    result = CallToolResult.model_validate(done.result).structured_content
    assert done.status == "completed" and result is not None
    assert result["outcome"] == "CONTESTED" and result["user_choice"] == "A" and result["decided_by"] == "user"


def test_a_task_whose_panel_runs_programs_resumes_only_where_commands_are_allowed() -> None:
    """A new server picks up a dead server's task by itself only when it may run the programs its panel
    names (`--allow-commands`); else `moot resume` is the way."""
    from moot.mcp.tasks import runs_programs

    assert runs_programs({"judges": [{"model": "scripted"}, {"name": "gamma", "command": ["sh", "-c", "true"]}]})
    assert runs_programs({"panel": {"debate_judges": [{"cli": "claude"}]}})
    assert not runs_programs({"judges": [{"model": "gpt-5", "command": None, "cli": None}], "task": "command"})


@pytest.mark.parametrize(("fail_under", "held"), [(4.5, True), (4.0, False)])
def test_a_gate_holds_on_a_tasks_result_and_on_show_debate_after_wait_false(
    tmp_path: Path, fail_under: float, held: bool
) -> None:
    """The panel ends on about 4.07. Asked with `fail_under`, the plain call, a task's completed result and
    `show_debate` of a debate started with `wait: false` answer alike: below the gate, `isError` and a last
    item `gate failed: ...` after the unchanged result; above it, the plain result."""
    seen: dict[str, Any] = {}
    gated_args = {**_args(tmp_path), "fail_under": fail_under}

    async def with_tasks(client: Client) -> None:
        task = await start_task(client, "evaluate", gated_args)
        seen["task"] = CallToolResult.model_validate((await follow(client, task.task_id)).result)

    async def without(client: Client) -> None:
        seen["plain"] = await client.call_tool("evaluate", gated_args)
        started = await client.call_tool("evaluate", {**gated_args, "wait": False})
        debate_id = started.structured_content["debate_id"]
        for _ in range(200):
            shown = await client.call_tool("show_debate", {"debate_id": debate_id})
            if shown.structured_content and shown.structured_content.get("status") == "finished":
                break
            await anyio.sleep(0.05)
        seen["show"] = shown

    _in_process(with_tasks)
    _in_process(without, tasks=False)
    plain = seen["plain"]
    assert plain.structured_content is not None and plain.structured_content["status"] == "finished"
    for name in ("plain", "task", "show"):
        got = seen[name]
        assert got.structured_content is not None and got.structured_content["status"] == "finished", name
        assert got.structured_content["verdict"] == plain.structured_content["verdict"], name
        assert bool(got.is_error) is held, name
        last = got.content[-1]
        assert (last.type == "text" and last.text.startswith("gate failed: score 4.")) is held, name
        if held:
            assert f"--fail-under {fail_under:g}" in last.text and json.loads(got.content[0].text)["debate_id"]


def test_the_html_report_a_background_call_asked_for_is_there_at_its_end(tmp_path: Path) -> None:
    """`html` given to a task-augmented call or a `wait: false` call: the file is written when the debate
    ends, as the waiting call writes it; `html: "-"` puts the report in the task's result, as in the plain
    call's."""
    seen: dict[str, Any] = {}
    files = {name: tmp_path / f"{name}.html" for name in ("task", "nowait")}

    async def with_tasks(client: Client) -> None:
        task = await start_task(client, "evaluate", {**_args(tmp_path), "html": str(files["task"])})
        await follow(client, task.task_id)
        inline = await start_task(client, "evaluate", {**_args(tmp_path), "html": "-"})
        seen["inline"] = CallToolResult.model_validate((await follow(client, inline.task_id)).result)

    async def without(client: Client) -> None:
        seen["plain"] = await client.call_tool("evaluate", {**_args(tmp_path), "html": "-"})
        started = await client.call_tool("evaluate", {**_args(tmp_path), "html": str(files["nowait"]), "wait": False})
        for _ in range(200):
            shown = await client.call_tool("show_debate", {"debate_id": started.structured_content["debate_id"]})
            if shown.structured_content and shown.structured_content.get("status") == "finished":
                break
            await anyio.sleep(0.05)
        for _ in range(100):  # written once the debate's last step is stored: a moment after it shows finished
            if files["nowait"].exists():
                break
            await anyio.sleep(0.05)

    _in_process(with_tasks)
    _in_process(without, tasks=False)
    for name, path in files.items():
        assert path.is_file() and "<html" in path.read_text(encoding="utf-8").lower(), name
    assert (
        [c.type for c in seen["inline"].content]
        == [c.type for c in seen["plain"].content]
        == ["text", "resource", "text"]
    )
    assert "<html" in seen["inline"].content[1].resource.text.lower()

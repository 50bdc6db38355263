"""Long one-shot debates that no client cuts off (issue 28, point 4): progress when each judge call starts
and ends plus a keep-alive while calls are out, and `wait: false` on the protocol tools."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from moot.mcp import build_server
from moot.testing import FakeLLMServer, Reply

from .replies import CRITERIA, round1
from .scripted_panels import artifact, converging_panel

IDLE_TIMEOUT = 15.0  # the client gives up after this long without a reply or a progress notification
REPLY_SECONDS = 24.0  # each judge takes this long to reply: longer than the client waits, and than 4 keep-alives


async def call_with_idle_timeout(client: Client, name: str, args: dict[str, Any], notes: list[Any]) -> Any:
    """A tool call under a read timeout that every progress notification resets (as Claude Code's is)."""
    heard = [time.monotonic()]
    outcome: list[Any] = []

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        heard[0] = time.monotonic()
        notes.append((round(heard[0] - started, 1), value, message))

    started = time.monotonic()
    async with anyio.create_task_group() as tg:

        async def call() -> None:
            outcome.append(await client.call_tool(name, args, progress_callback=on_progress))
            tg.cancel_scope.cancel()

        tg.start_soon(call)
        while not outcome:
            await anyio.sleep(0.25)
            if time.monotonic() - heard[0] > IDLE_TIMEOUT:
                tg.cancel_scope.cancel()  # the client gives up on the call
                break
    if not outcome:
        raise TimeoutError(f"no progress for {IDLE_TIMEOUT:g}s: {notes}")
    return outcome[0]


def _slow_debate(tmp_path: Path, server: FakeLLMServer) -> dict[str, Any]:
    """An evaluate of two judges that take REPLY_SECONDS each, in one round: the shortest debate the
    criterion allows."""
    for model in ("slow-a", "slow-b"):
        server.script(model, Reply(text=round1(4.0, 4), delay=REPLY_SECONDS))
    pairs = (("slow-a", "for"), ("slow-b", "against"))
    judges = [{"model": m, "stance": s, "api_base": server.base_url} for m, s in pairs]
    panel = tmp_path / "slow.yaml"
    panel.write_text(json.dumps({"debate_judges": judges}), encoding="utf-8")
    args = {"solution": [str(artifact(tmp_path))], "criteria": CRITERIA, "judges": str(panel)}
    return args | {"mode": "quick", "no_reports": True}


def test_without_the_keep_alive_the_same_client_gives_up(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The control: with keep-alives further apart than the client's patience, the call is cut off."""
    monkeypatch.setattr("moot.mcp.progress.KEEPALIVE_SECONDS", 3600.0)
    notes: list[Any] = []
    with FakeLLMServer() as server:
        args = _slow_debate(tmp_path, server)

        seen: dict[str, Any] = {}

        async def run() -> None:
            async with Client(build_server()) as client:
                try:
                    await call_with_idle_timeout(client, "evaluate", args, notes)
                except TimeoutError as e:
                    seen["gave up"] = (str(e), time.monotonic() - started)

        started = time.monotonic()
        anyio.run(run)
    message, after = seen["gave up"]
    assert message.startswith("no progress for 15s") and IDLE_TIMEOUT <= after < REPLY_SECONDS
    assert not any(m and m.startswith("still waiting") for _, _, m in notes)


def test_a_client_with_a_15s_idle_timeout_finishes_a_debate_of_replies_longer_than_that(tmp_path: Path) -> None:
    notes: list[Any] = []
    with FakeLLMServer() as server:
        args = _slow_debate(tmp_path, server)
        seen: dict[str, Any] = {}

        async def run() -> None:
            async with Client(build_server()) as client:
                seen["result"] = await call_with_idle_timeout(client, "evaluate", args, notes)

        anyio.run(run)
    result = seen["result"]
    assert not result.is_error, result.content
    assert result.structured_content["summary"]["final_verdict"] == "PASS"
    messages = [m for _, _, m in notes]
    assert "round 1: judge-1 asked (judge)" in messages
    assert any(m and m.startswith("round 1: judge-2 answered: score 4") for m in messages), messages
    keep_alives = [t for t, _, m in notes if m and m.startswith("still waiting for judge-1")]
    # without the keep-alive nothing would be heard between the calls' start and their end, REPLY_SECONDS later
    assert keep_alives and max(b - a for a, b in zip([0.0, *keep_alives], keep_alives, strict=False)) <= 10.5
    replied = [t for t, _, m in notes if m and " replied in " in m]
    assert min(replied) >= REPLY_SECONDS - 1


def test_wait_false_returns_at_once_and_show_debate_gives_the_result(tmp_path: Path) -> None:
    seen: dict[str, Any] = {}
    args = {
        "solution": [str(artifact(tmp_path))],
        "criteria": CRITERIA,
        "judges": str(converging_panel(tmp_path)),
        "no_reports": True,
        "wait": False,
    }

    async def run() -> None:
        async with Client(build_server()) as client:
            r = await client.call_tool("evaluate", args)
            seen["started"] = r.structured_content
            for _ in range(100):
                shown = await client.call_tool("show_debate", {"debate_id": r.structured_content["debate_id"]})  # type: ignore[index]
                if shown.structured_content["status"] not in ("running",):  # type: ignore[index]
                    break
                await anyio.sleep(0.1)
            seen["shown"] = shown.structured_content

    anyio.run(run)
    assert seen["started"]["status"] == "running" and set(seen["started"]) >= {"debate_id", "status"}
    assert seen["shown"]["debate_id"] == seen["started"]["debate_id"]
    assert seen["shown"]["summary"]["final_verdict"] == "PASS"

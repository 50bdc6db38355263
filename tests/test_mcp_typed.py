"""Every MCP tool declares an `outputSchema` and annotations, and every result it gives fits its schema.

The SDK's own client validates each result against the tool's `outputSchema` on every call (so every MCP
test is also a check of the schemas); here each result shape is produced on purpose (a finished debate of
each protocol, a dry run, `wait: false`, a waiting debate with host seats, a cancelled one, the calls list,
the list, doctor) and checked with `jsonschema` independently of the SDK."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import jsonschema
from mcp import Client
from mcp.types import CallToolResult, TextContent, Tool

from moot.mcp import build_server

from .replies import CRITERIA
from .scripted_panels import artifact, challenge_panel, converging_panel, decide_panel
from .test_decide_support import OPTIONS, QUESTION

READ_ONLY = {"show_debate", "list_debates", "doctor"}


def _calls(tmp_path: Path) -> list[tuple[str, dict[str, Any]]]:
    evaluate = {
        "solution": [str(artifact(tmp_path))],
        "criteria": CRITERIA,
        "judges": str(converging_panel(tmp_path)),
        "no_reports": True,
    }
    return [
        ("evaluate", evaluate),
        ("evaluate", {**evaluate, "dry_run": True}),
        ("evaluate", {**evaluate, "wait": False}),
        ("evaluate", {**evaluate, "judges": "host"}),
        (
            "decide",
            {"question": QUESTION, "option": OPTIONS, "judges": str(decide_panel(tmp_path)), "no_reports": True},
        ),
        ("challenge", {"topic": "Adopt a monorepo?", "judges": str(challenge_panel(tmp_path)), "max_rounds": 2}),
        ("list_debates", {}),
        ("doctor", {"judges": str(converging_panel(tmp_path))}),
    ]


def _run(tmp_path: Path, calls: int | None = None) -> tuple[dict[str, Tool], list[tuple[str, CallToolResult]]]:
    tools: dict[str, Tool] = {}
    results: list[tuple[str, CallToolResult]] = []

    async def call(client: Client, name: str, args: dict[str, Any]) -> CallToolResult:
        r = await client.call_tool(name, args)
        assert not r.is_error, (name, r.content)
        results.append((name, r))
        return r

    async def body() -> None:
        async with Client(build_server()) as client:
            tools.update({t.name: t for t in (await client.list_tools()).tools})
            for name, args in _calls(tmp_path)[:calls]:
                r = await call(client, name, args)
                data = r.structured_content or {}
                if name == "evaluate" and data.get("status") in ("finished", "waiting"):
                    await call(client, "show_debate", {"debate_id": data["debate_id"]})
                    await call(client, "show_debate", {"debate_id": data["debate_id"], "calls": True})
                if data.get("status") == "waiting":
                    await call(client, "cancel_debate", {"debate_id": data["debate_id"]})
                    await call(client, "show_debate", {"debate_id": data["debate_id"]})  # where it stopped

    anyio.run(body)
    return tools, results


def test_each_tool_declares_its_output_schema_and_annotations(tmp_path: Path) -> None:
    tools, _ = _run(tmp_path, calls=0)
    for name, tool in tools.items():
        assert tool.output_schema is not None and tool.output_schema["type"] == "object", name
        jsonschema.Draft202012Validator.check_schema(tool.output_schema)
        assert tool.annotations is not None and tool.annotations.title, name
        assert tool.annotations.read_only_hint is (name in READ_ONLY), name
    for protocol in ("evaluate", "decide", "challenge"):
        hints = tools[protocol].annotations
        assert hints is not None and hints.open_world_hint is True and hints.destructive_hint is False
    for name in (
        "evaluate",
        "decide",
        "challenge",
        "show_debate",
        "submit_replies",
    ):  # a size hint where results run long
        assert (tools[name].meta or {}).get("anthropic/maxResultSizeChars", 0) >= 100_000, name
    cancel = tools["cancel_debate"].annotations
    assert cancel is not None and cancel.destructive_hint is True


def test_every_result_fits_its_tools_output_schema_and_reads_in_one_line(tmp_path: Path) -> None:
    tools, results = _run(tmp_path)
    shapes = set()
    for name, r in results:
        schema = tools[name].output_schema
        assert schema is not None
        jsonschema.validate(r.structured_content, schema, cls=jsonschema.Draft202012Validator)
        data = r.structured_content or {}
        shapes.add((name, data.get("status"), "dry_run" in data, "calls" in data))
        assert isinstance(r.content[0], TextContent) and r.content[0].text.startswith("{")  # the JSON, first
    assert {s[:2] for s in shapes} >= {
        ("evaluate", "finished"),
        ("evaluate", "running"),
        ("evaluate", "waiting"),
        ("evaluate", None),  # the dry run
        ("decide", "finished"),
        ("challenge", "finished"),
        ("show_debate", "finished"),
        ("show_debate", "waiting"),
        ("show_debate", "cancelled"),
        ("show_debate", None),  # the calls list
        ("cancel_debate", "cancelled"),
    }, shapes
    lines = {name: r.content[-1].text for name, r in results if name != "show_debate"}  # type: ignore[union-attr]
    assert "verdict PASS" in lines["evaluate"] or "dry run" in lines["evaluate"] or "waiting" in lines["evaluate"]
    finished = [r for n, r in results if n == "evaluate" and (r.structured_content or {}).get("status") == "finished"]
    line = finished[0].content[-1]
    assert isinstance(line, TextContent) and "finished, consensus verdict PASS" in line.text, line


def test_the_schema_refuses_what_is_not_a_result(tmp_path: Path) -> None:
    tools, results = _run(tmp_path, calls=1)
    schema = tools["evaluate"].output_schema
    assert schema is not None
    finished = next(
        r.structured_content for n, r in results if n == "evaluate" and r.structured_content["status"] == "finished"
    )  # type: ignore[index]
    without_verdict = {k: v for k, v in finished.items() if k != "verdict"}  # type: ignore[union-attr]
    assert not jsonschema.Draft202012Validator(schema).is_valid(without_verdict)
    assert not jsonschema.Draft202012Validator(schema).is_valid({"debate_id": "x", "status": "running"})

"""A CONTESTED decide asks the client's user to choose (MCP elicitation), through the official SDK's client
with an elicitation callback, on both protocol versions: the answer is recorded as the person's decision
beside the panel's; a declined question, or a client without elicitation, gets the panel's result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.types import ElicitRequestParams, ElicitResult, ListRootsResult, Root

from moot.mcp import build_server

from .scripted_panels import contested_decide_panel
from .test_decide_support import OPTIONS, QUESTION


def _args(tmp_path: Path) -> dict[str, Any]:
    return {"question": QUESTION, "option": OPTIONS, "judges": str(contested_decide_panel(tmp_path))}


def _run(tmp_path: Path, answer: dict[str, Any] | None, **client: Any) -> dict[str, Any]:
    """A contested decide; the user answers `answer` (None: the client has no elicitation)."""
    seen: dict[str, Any] = {"asked": []}

    async def on_elicit(context: Any, params: ElicitRequestParams) -> ElicitResult:
        seen["asked"].append(params)
        assert answer is not None
        return ElicitResult(**answer)

    async def body() -> None:
        callback = {"elicitation_callback": on_elicit} if answer is not None else {}
        async with Client(build_server(), **callback, **client) as c:
            r = await c.call_tool("decide", _args(tmp_path))
            assert not r.is_error, r.content
            seen["result"] = r.structured_content
            seen["show"] = (
                await c.call_tool("show_debate", {"debate_id": r.structured_content["debate_id"]})
            ).structured_content  # type: ignore[index]
            seen["debates"] = (await c.call_tool("list_debates", {})).structured_content["debates"]  # type: ignore[index]

    anyio.run(body)
    return seen


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_a_contested_decide_asks_the_user_and_records_their_choice(tmp_path: Path, mode: str) -> None:
    seen = _run(tmp_path, {"action": "accept", "content": {"choice": "B"}}, mode=mode)
    (asked,) = seen["asked"]
    assert QUESTION in asked.message
    assert asked.requested_schema["properties"]["choice"]["enum"] == ["A", "B", "C"]
    result = seen["result"]
    assert result["outcome"] == "CONTESTED" and result["consensus"] is False  # the panel's, as it was
    assert result["user_choice"] == "B" and result["decided_by"] == "user"  # the person's, beside it
    assert result["verdict"]["answer"] == "B" and result["verdict"]["needs_human"] is False
    assert seen["show"]["user_choice"] == "B"  # stored
    assert len(seen["debates"]) == 1  # the answer ran nothing again


def test_the_answer_arrives_beside_the_clients_roots(tmp_path: Path) -> None:
    async def roots(context: Any) -> ListRootsResult:
        return ListRootsResult(roots=[Root(uri=tmp_path.as_uri())])

    seen = _run(tmp_path, {"action": "accept", "content": {"choice": "C"}}, list_roots_callback=roots)
    assert seen["result"]["user_choice"] == "C" and len(seen["debates"]) == 1


def test_a_declined_question_or_no_elicitation_leaves_the_panels_result(tmp_path: Path) -> None:
    declined = _run(tmp_path, {"action": "decline"})
    assert len(declined["asked"]) == 1
    plain = _run(tmp_path, None)
    for seen in (declined, plain):
        result = seen["result"]
        assert result["outcome"] == "CONTESTED" and result.get("user_choice") is None
        assert result["verdict"]["needs_human"] is True

"""What a user reads names things in plain words: no "seed 003" or "sadd" they cannot look up.

The protocols come from documents the project calls seeds; a user has never seen them. Folder names taken
from them stay (files on disk are a contract), explained where they are shown.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from moot.cli.app import main

ROOT = Path(__file__).resolve().parent.parent
JARGON = re.compile(r"\bseeds?\b", re.IGNORECASE)
COMMANDS = ["evaluate", "decide", "challenge", "demo", "doctor", "show", "list", "resume", "report", "mcp"]
USER_DOCS = [
    "README.md",
    "docs/api.md",
    "docs/challenge.md",
    "docs/ci.md",
    "docs/decide.md",
    "docs/mcp.md",
    "docs/providers.md",
    "docs/structured-replies.md",
]


@pytest.mark.parametrize("command", COMMANDS)
def test_help_speaks_plainly(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    main([command, "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert not JARGON.search(shown), shown
    if "sadd/" in shown:
        assert "decision files" in shown


def test_mcp_tool_descriptions_speak_plainly() -> None:
    """As a client lists them: each tool's description and its arguments' (a protocol's from its spec)."""
    import anyio

    from moot.mcp import build_server

    async def listed() -> list[Any]:
        return list(await build_server().list_tools())

    tools = anyio.run(listed)
    said = [t.description or "" for t in tools]
    said += [arg.get("description", "") for t in tools for arg in t.input_schema["properties"].values()]
    assert len(said) > 20 and not [s for s in said if JARGON.search(s)]


@pytest.mark.parametrize("doc", USER_DOCS)
def test_user_docs_speak_plainly(doc: str) -> None:
    text = (ROOT / doc).read_text(encoding="utf-8")
    found = [line for line in text.splitlines() if JARGON.search(line)]
    assert not found, found


def test_the_exported_demo_panel_speaks_plainly() -> None:
    for path in (ROOT / "src/moot/protocols").glob("*/demo/*.yaml"):
        assert not JARGON.search(path.read_text(encoding="utf-8")), path.name

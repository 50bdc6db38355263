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
# every page a user reads: the README, each docs page, the plugin's README and skills, the agents' skills
PAGES = [ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "plugins").rglob("*.md")]
USER_DOCS = sorted(
    p.relative_to(ROOT).as_posix()
    for p in [*PAGES, *(ROOT / ".agents").rglob("*.md"), *(ROOT / "commands").rglob("*.toml")]
)
# in the docs, moot's `--seed` option (and `seed=` in Python) is a word the user has: the spec's seeds and the
# project's issue numbers are not
DOC_JARGON = re.compile(r"(?<![-\w])seeds?\b(?!\s*=)|\bissues?\s+#?\d+", re.IGNORECASE)


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
    found = [line for line in text.splitlines() if DOC_JARGON.search(line)]
    assert not found, found


def test_the_docs_rule_catches_the_words_a_user_has_no_page_for() -> None:
    said = ["seed 003's judges", "## Seed 004 from a shell", "`panel` (issue 30):", "the seeds' average", "issue #12"]
    kept = ["moot bench SUITE [--seed S]", 'load_suite("judgebench", seed=0)', "a stream seeded by the id"]
    assert all(DOC_JARGON.search(s) for s in said) and not any(DOC_JARGON.search(s) for s in kept)
    assert len(USER_DOCS) > 20 and "docs/host.md" in USER_DOCS and "docs/envelope.md" in USER_DOCS


def test_the_exported_demo_panel_speaks_plainly() -> None:
    for path in (ROOT / "src/moot/protocols").glob("*/demo/*.yaml"):
        assert not JARGON.search(path.read_text(encoding="utf-8")), path.name

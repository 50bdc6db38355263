"""What users read stays the same, byte for byte: every command's `--help`, each protocol's demo debate as
JSON, and the same debate shown again from the store as text, against snapshots in tests/data/golden/.

Only what differs between two runs of the same code is normalized first: debate ids, dates and times, and
durations (`seconds`, `wall_seconds`, the Seconds column, "wall 2.4 s"). A change to any other byte fails
here with a diff; when the change is meant, rewrite the snapshots with
`MOOT_GOLDEN_UPDATE=1 python -m pytest tests/test_golden_outputs.py` and review them in the commit.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
from pathlib import Path

import pytest

from moot.cli.app import main
from moot.cli.commands import commands

GOLDEN = Path(__file__).parent / "data" / "golden"
DEMOS = ("evaluate", "decide", "challenge")

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_STAMP = re.compile(r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?")
_SECONDS_KEY = re.compile(r'("(?:seconds|wall_seconds|latency_s)": )\d+(\.\d+)?')
_WALL = re.compile(r"\b(wall|call time \(sum over calls\)) \d+(\.\d+)? s\b")


def _seconds_column(text: str) -> str:
    """Blank the cells of a Markdown table's Seconds column: how long a scripted judge took varies."""
    out, col = [], None
    for line in text.split("\n"):
        cells = line.split("|")
        if not line.startswith("|"):
            col = None
        elif col is None and "Seconds" in (c.strip() for c in cells):
            col = [c.strip() for c in cells].index("Seconds")
        elif col is not None and not set(line) <= set("|-: ") and col < len(cells):
            cells[col] = " - "
            line = "|".join(cells)
        out.append(line)
    return "\n".join(out)


def normalized(text: str) -> str:
    ids: dict[str, str] = {}
    text = _UUID.sub(lambda m: ids.setdefault(m.group(0), f"<id{len(ids) + 1}>"), text)
    text = _STAMP.sub("<date>", text)
    text = _SECONDS_KEY.sub(r"\1-1", text)
    text = _WALL.sub(r"\1 - s", text)
    return _seconds_column(text)


def check(name: str, text: str) -> None:
    path = GOLDEN / name
    text = normalized(text)
    if os.environ.get("MOOT_GOLDEN_UPDATE") == "1":
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    diff = "".join(difflib.unified_diff(expected.splitlines(True), text.splitlines(True), name, "now", n=2))
    assert text == expected, f"{name} changed:\n{diff}"


@pytest.fixture(autouse=True)
def fixed_width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("NO_COLOR", "1")
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(name, raising=False)


def test_every_help_text_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    texts = []
    for argv in (["--help"], *([name, "--help"] for name in commands())):
        assert main(argv) == 0
        texts.append(f"$ moot {' '.join(argv)}\n{capsys.readouterr().out}")
    check("help.txt", "\n".join(texts))


def run_demo(protocol: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> str:
    """The demo's debate as JSON. The challenge demo's prompt names its bundled context file by its absolute
    path, whose length (the checkout's folder) changes the token counts: that one runs from its exported
    panel, as its printed command does, where the file is named relative to the folder."""
    if protocol != "challenge":
        assert main(["demo", protocol, "--format", "json", "--no-progress"]) == 0
        return capsys.readouterr().out
    assert main(["demo", protocol, "--export", "panel", "--format", "json"]) == 0
    command = shlex.split(json.loads(capsys.readouterr().out)["command"].partition(" && ")[2])
    monkeypatch.chdir("panel")
    assert main([*command[1:], "--format", "json", "--no-progress"]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("protocol", DEMOS)
def test_demo_debate_and_its_stored_text_are_unchanged(
    protocol: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    out = run_demo(protocol, capsys, monkeypatch)
    check(f"demo-{protocol}.json", out)
    assert main(["show", json.loads(out)["debate_id"]]) == 0
    check(f"show-{protocol}.txt", capsys.readouterr().out)

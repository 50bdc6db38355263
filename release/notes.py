"""Print the CHANGELOG.md section of one version: the release's notes.

    python release/notes.py 0.1.0 > notes.md

A section starts at a `## VERSION` heading (`## 0.1.0 (2026-12-06)` counts) and runs to the next `## `.
A version with no section, or an empty one, is an error: a release never goes out without its notes.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

CHANGELOG = Path(__file__).resolve().parent.parent / "CHANGELOG.md"


def section(text: str, version: str) -> str:
    match = re.search(rf"^## \[?{re.escape(version)}\]?(?:[ \t][^\n]*)?\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    if match is None or not match.group(1).strip():
        raise SystemExit(f"CHANGELOG.md has no notes for {version}: add a '## {version}' section")
    return match.group(1).strip() + "\n"


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit("usage: python release/notes.py VERSION")
    sys.stdout.write(section(CHANGELOG.read_text(encoding="utf-8"), sys.argv[1]))

"""Findings that point at code: a judge's `file` and `line`, read from its reply, checked against what the
judges were shown, and written out as SARIF 2.1.0 (one result per located finding) for code scanning.

What was shown: every line of a whole file; of a change (`moot.diffs`), the lines its hunks number (and the
whole new text when it was sent). A location outside it is kept but marked `location_valid: false`: a judge
may be right about a line it was not shown, but nothing should put a comment there unchecked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from moot.about import repository_url, version
from moot.diffs import shown_lines
from moot.protocol import ReplyModel, reply_field
from moot.protocols.evaluate.schemas import Located
from moot.schemas.config import Artifact

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_AT = re.compile(r"^(?P<file>.+?):(?P<line>\d+)(?::\d+)?$")
_LEVEL = {"CRITICAL": "error", "MUST": "error", "SHOULD": "warning", "COULD": "note"}


class PlaceEntry(ReplyModel):
    """Where a finding or claim of a reply points, as judges write it: `location: "src/a.py:12"` (what the
    declared entries ask for), or a `file` and a `line` of their own."""

    file: Any = reply_field(default=None)
    line: Any = reply_field(default=None)
    location: Any = reply_field(default=None)


def location(item: Mapping[str, Any]) -> dict[str, Any]:
    """`file` and `line` of a reply's item (`location: "src/a.py:12"` is read too); none when not given."""
    place = PlaceEntry.model_validate(item)
    file = str(place.file or "").strip() or None
    line: Any = place.line
    at = _AT.match(str(place.location or "").strip())
    if file is None and at:
        file, line = at["file"], line or at["line"]
    if file is not None and (m := _AT.match(file)) and line in (None, "", 0):
        file, line = m["file"], m["line"]
    try:
        number = int(line) if line not in (None, "") else None
    except (TypeError, ValueError):
        number = None
    return {"file": file, "line": number if number and number > 0 else None}


def shown_map(artifacts: Sequence[Artifact]) -> dict[str, set[int]]:
    """Each artifact's path -> the line numbers the judges were shown of it."""
    out: dict[str, set[int]] = {}
    for a in artifacts:
        lines = shown_lines(a.text)
        out[a.path.removeprefix("./")] = lines if lines is not None else set(range(1, a.text.count("\n") + 2))
    return out


def check(item: Located, shown: Mapping[str, set[int]]) -> None:
    """Mark `item.location_valid` (left None when the item names no file)."""
    if item.file is None:
        return
    lines = shown.get(item.file.removeprefix("./"))
    item.location_valid = lines is not None and (item.line is None or item.line in lines)


def same_place(a: Located, b: Located) -> bool:
    """Two findings at one checked location (same file and line) are one finding, whoever words it."""
    return bool(a.file and a.line and a.location_valid and b.location_valid) and (a.file, a.line) == (b.file, b.line)


def apart(findings: Sequence[Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Findings whose quote was found (or that predate quotes), and those whose quote was not: every report
    shows the two apart."""
    items = [f for f in findings if isinstance(f, Mapping)]
    return [dict(f) for f in items if f.get("grounded") is not False], [
        dict(f) for f in items if f.get("grounded") is False
    ]


def located(result: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The result's findings with a valid file:line, for review comments and SARIF: each grounded critical
    finding, then each recommendation not already one of them (an ungrounded finding's "Check" among them)."""
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, int]] = set()
    grounded, _ = apart(list(result.get("critical_findings") or []))
    for kind, items in (("CRITICAL", grounded), (None, result.get("recommendations"))):
        for item in items or []:
            if not isinstance(item, Mapping) or not item.get("file") or not item.get("line"):
                continue
            if item.get("location_valid") is False or (item["file"], item["line"]) in seen:
                continue
            seen.add((item["file"], item["line"]))
            text = str(item.get("finding") or item.get("action") or "")
            level = kind or item.get("priority")
            out.append({"file": item["file"], "line": item["line"], "level": level, "text": text})
    return out


def sarif(result: Mapping[str, Any]) -> dict[str, Any]:
    """SARIF 2.1.0: one run by moot, one result per located finding (GitHub code scanning's upload format)."""
    verdict = str((result.get("summary") or {}).get("final_verdict", ""))
    results = [
        {
            "ruleId": "moot/" + ("critical-finding" if f["level"] == "CRITICAL" else "recommendation"),
            "level": _LEVEL.get(str(f["level"]), "note"),
            "message": {"text": f["text"] or "(no text)"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": str(f["file"]).removeprefix("./")},
                        "region": {"startLine": int(f["line"])},
                    }
                }
            ],
        }
        for f in located(result)
    ]
    rules = [
        {"id": "moot/critical-finding", "shortDescription": {"text": "A CRITICAL finding of the judges' debate"}},
        {"id": "moot/recommendation", "shortDescription": {"text": "A recommendation of the judges' debate"}},
    ]
    driver: dict[str, Any] = {"name": "moot", "rules": rules}
    if url := repository_url():  # the project's own address, from pyproject.toml's [project.urls]
        driver["informationUri"] = url
    if release := version():
        driver["semanticVersion"] = release
    run = {"tool": {"driver": driver}, "results": results, "properties": {"verdict": verdict}}
    return {"version": "2.1.0", "$schema": SARIF_SCHEMA, "runs": [run]}

"""The contract a protocol author learns (issue 32): one module, `moot.protocol`, with a pinned `__all__`;
a spec of at most 12 top-level fields, grouped by the face that reads them; a toy protocol built from that
module alone; and no protocol reaching into the output folder (`moot.reports`)."""

from __future__ import annotations

import ast
import dataclasses
import sys
from pathlib import Path

import moot.protocol
from moot.protocol import ProtocolSpec

ROOT = Path(__file__).resolve().parent.parent
TOY = ROOT / "tests" / "toy_protocol" / "moot_toy"
PROTOCOLS = ROOT / "src" / "moot" / "protocols"

PINNED = {
    # the spec and its groups
    *("BatchSpec", "BenchRole", "CliSpec", "DemoSpec", "ProtocolSpec", "Terminal", "VerdictSpec", "VerdictTone"),
    "ViewSpec",
    # arguments
    *("Arg", "ProtocolArgs", "RunArgs", "api_builder", "api_function", "arg"),
    # replies
    *("Flag", "LongText", "ReplyError", "ReplyModel", "Required", "Score", "Text", "as_bool", "as_text", "items"),
    *("one_of", "read_reply", "reply_example", "reply_field", "reply_parser", "reply_schema", "specialize", "word"),
    *("CONFIDENCE", "Meaning", "Words"),
    # judges and the debate ready to run
    *("JudgeLike", "JudgeSpec", "PanelFile", "Prepared", "Seat", "UsageError", "blocking", "check_rounds"),
    *("load_panel", "make_seats", "resumed_judges", "scenarios", "tokens_of"),
    # steps
    *("Answer", "Call", "Message", "Outcome", "Prompt", "Step", "Templates"),
    # the result
    *("NO_ANSWER", "TIE", "DebateEffect", "JudgeEffect", "PanelRecorded", "ResultEnvelope", "RunEnvelope"),
    *("RunStatus", "SeatStatus", "Spend", "Verdict", "VerdictConfidence", "VerdictKind", "seat_fate"),
    # its renderings
    *("TextReport", "TextTable"),
}


def _imports(path: Path) -> set[str]:
    """Every module `path` imports, at any depth of its code."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def test_the_author_surface_is_pinned() -> None:
    assert set(moot.protocol.__all__) == PINNED
    assert len(moot.protocol.__all__) == len(PINNED)  # none listed twice
    missing = [name for name in moot.protocol.__all__ if not hasattr(moot.protocol, name)]
    assert missing == []


def test_the_spec_has_at_most_twelve_top_level_fields_grouped_by_face() -> None:
    names = [f.name for f in dataclasses.fields(ProtocolSpec)]
    assert len(names) <= 12, names
    assert {"cli", "batch", "bench", "views", "verdict", "demo"} <= set(names)


def test_the_toy_protocol_imports_only_moot_protocol_the_standard_library_and_pydantic() -> None:
    allowed = {"moot.protocol", "pydantic"}
    outside: list[str] = []
    for path in sorted(TOY.glob("*.py")):
        for module in _imports(path):
            top = module.split(".")[0]
            if module in allowed or top in ("pydantic", "moot_toy", "__future__") or top in sys.stdlib_module_names:
                continue
            outside.append(f"{path.name}: {module}")
    assert outside == []


def test_no_protocol_imports_the_reports_folder() -> None:
    reaching = [
        f"{path.relative_to(PROTOCOLS)}: {module}"
        for path in sorted(PROTOCOLS.rglob("*.py"))
        for module in _imports(path)
        if module == "moot.reports" or module.startswith("moot.reports.")
    ]
    assert reaching == []

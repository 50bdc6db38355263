"""`evaluate`'s command and tool: its parameters, written once for `moot evaluate` and the MCP tool
`evaluate` (both built from them, see `moot.engine.spec.Param`), and how their values become the API's
arguments (`adapt`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from moot.engine.spec import FORMAT, Param

DESCRIPTION = "Evaluate an artifact by a debate between judges with assigned stances."
MCP_DESCRIPTION = "Evaluate an artifact by a debate between judges with assigned stances; returns the verdict JSON."
MCP_SUMMARY = (
    "`evaluate` scores an artifact (files) against criteria and returns a verdict (PASS, CONDITIONAL or FAIL) "
    "with findings and recommendations."
)

PARAMS = (
    Param(
        "solution",
        list[str],
        flags=("--solution", "-s"),
        help="File, folder or glob; repeatable.",
        mcp_type=list[str] | str,
        mcp_help="Files, folders or globs to evaluate.",
    ),
    Param("task", str, "", help="What the solution was supposed to accomplish."),
    Param(
        "criteria",
        str,
        "code",
        help="name:weight,... or a rubric YAML file or a built-in rubric (code, design, documentation, plan).",
        mcp_help="name:weight,... or a rubric YAML file or code, design, documentation, plan.",
    ),
    Param(
        "judges",
        str | None,
        None,
        help="Judges file (YAML with a debate_judges list).",
        mcp_help="Judges file (YAML). Default: gemini-3-pro-preview, gpt-5.2 and grok-4.",
    ),
    Param("max_rounds", int | None, None, help="Most rounds (default 3)."),
    Param("mode", str, "complete", help="complete (up to max rounds) or quick (one round)."),
    FORMAT,
    Param("reports_dir", str, ".specs/reports", help="Where per-judge reports are written.", mcp_type=str | None),
    Param("no_reports", bool, False, flags=("--no-reports",), help="Write no report files."),
)


def adapt(values: Mapping[str, Any]) -> dict[str, Any]:
    names = ("solution", "task", "criteria", "judges", "max_rounds", "mode")
    return {**{n: values[n] for n in names}, "reports_dir": None if values["no_reports"] else values["reports_dir"]}

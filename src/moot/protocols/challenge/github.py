"""`--format github` for a position challenge: the outcome and final position, what changed, the core
disagreement and the assumptions behind it (`ProtocolSpec.github_markdown`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from moot.protocols.challenge.schemas import OUTCOME_WORDS
from moot.reports.github import (
    as_dict,
    as_list,
    cell,
    cost_line,
    md,
    not_ok_lines,
    rounds_text,
    verdict_of,
)
from moot.schemas.envelope import headline


def challenge_github(result: Mapping[str, Any]) -> str:
    outcome = headline(result, OUTCOME_WORDS) or "?"
    v = verdict_of(result)
    lines = [
        f"## {'✅' if outcome == 'CONSENSUS' else '⚠️'} moot challenge: {md(outcome)}",
        "",
        f"**{md(result.get('topic', ''))}**",
        "",
        f"**Final position:** {md(result.get('final_position', ''))}",
        "",
        f"confidence {md(v.get('confidence', '-'))} · {rounds_text(result)}"
        + (" · fast exit" if result.get("fast_exit") else ""),
        "",
        *not_ok_lines(result),
    ]
    if result.get("what_changed"):
        lines += ["### What changed", ""] + [f"- {md(x)}" for x in as_list(result.get("what_changed"))] + [""]
    if result.get("core_disagreement"):
        lines += ["### Core disagreement", "", md(result.get("core_disagreement")), ""]
    rows = [as_dict(a) for a in as_list(result.get("assumptions"))]
    if rows:
        lines += ["| Assumption | Held by | Supports |", "|---|---|---|"]
        lines += [
            f"| {cell(a.get('assumption'))} | {cell(a.get('held_by'))} | {cell(a.get('supports'))} |" for a in rows
        ]
        lines.append("")
    cost = cost_line(result)
    return "\n".join([*lines, cost, ""] if cost else lines)

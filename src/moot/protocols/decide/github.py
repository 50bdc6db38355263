"""`--format github` for a decision: the option recommended (or the contest), who backed which option,
the perspectives and what changed (`ProtocolSpec.github_markdown`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from moot.protocols.decide.schemas import OUTCOME_WORDS
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


def decision_github(result: Mapping[str, Any]) -> str:
    options = {str(as_dict(o).get("id")): as_dict(o) for o in as_list(result.get("options"))}
    v = verdict_of(result)
    chosen = v.get("answer")
    if chosen:
        label = as_dict(options.get(str(chosen))).get("label")
        head = f"✅ moot decide: option {md(chosen)}" + (f" ({md(label)})" if label else "")
    else:
        head = f"⚠️ moot decide: {md(headline(result, OUTCOME_WORDS) or '?')}"
    lines = [
        f"## {head}",
        "",
        f"**{md(result.get('question', ''))}**",
        "",
        f"confidence {md(v.get('confidence', '-'))} · {rounds_text(result)}",
        "",
        *not_ok_lines(result),
        "| Option | Label | Recommended by |",
        "|---|---|---|",
    ]
    distribution = as_dict(result.get("distribution"))
    for oid, o in options.items():
        by = ", ".join(map(str, as_list(distribution.get(oid))))
        lines.append(f"| {cell(oid)} | {cell(o.get('label', ''))} | {cell(by) or '-'} |")
    lines.append("")
    perspectives = as_dict(result.get("perspectives"))
    if perspectives:
        lines += ["### Perspectives", ""] + [f"- **{md(k)}**: {md(v)}" for k, v in perspectives.items()] + [""]
    changes = [as_dict(c) for c in as_list(result.get("change_log"))]
    if changes:
        lines += ["### Change log", ""]
        lines += [
            f"- {md(c.get('judge'))}, round {md(c.get('round'))}: {md(c.get('from'))} → {md(c.get('to'))}: "
            f"{md(c.get('reason'))}"
            for c in changes
        ]
        lines.append("")
    if result.get("message"):
        lines += [md(result.get("message")), ""]
    cost = cost_line(result)
    return "\n".join([*lines, cost, ""] if cost else lines)

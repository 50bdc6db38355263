"""`--format github` for a scored evaluation: the verdict and score, the judges' scores by criterion, what is
left for a person, and what it cost (`ProtocolSpec.github_markdown`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from moot.reports.github import (
    as_dict,
    as_list,
    bullets,
    cell,
    cost_line,
    md,
    not_ok_lines,
    num,
    rounds_text,
    verdict_of,
)

ICONS = {"PASS": "✅", "CONDITIONAL": "⚠️", "FAIL": "❌"}


def _recommendation(r: dict[str, Any]) -> str:
    return f"**{md(r.get('priority'))}** {md(r.get('action'))}" + (
        f" — {md(r.get('rationale'))}" if r.get("rationale") else ""
    )


def _critical(c: dict[str, Any]) -> str:
    return f"{md(c.get('id', ''))} {md(c.get('finding', ''))}" + (f" ({md(c.get('state'))})" if c.get("state") else "")


def evaluation_github(result: Mapping[str, Any]) -> str:
    s = as_dict(result.get("summary"))
    v = verdict_of(result)
    verdict = str(v.get("answer") or "?")
    rounds = rounds_text(result) + (
        f", consensus in round {result['consensus_reached_at']}" if result.get("consensus_reached_at") else ""
    )
    lines = [
        f"## {ICONS.get(verdict, '❔')} moot evaluate: {md(verdict)} ({num(s.get('consensus_score'))}/5)",
        "",
        f"**{md(result.get('artifact_evaluated', ''))}**"
        + (f": {md(result.get('task'))}" if result.get("task") else ""),
        "",
        f"{md(s.get('consensus_method', '-'))} · confidence {md(v.get('confidence', '-'))} · {rounds}",
        "",
    ]
    judges = [as_dict(j) for j in as_list(result.get("judges")) if as_dict(j).get("final_score") is not None]
    if judges:
        lines.append(
            "| Criterion | " + " | ".join(cell(f"{j.get('judge')} ({j.get('stance')})") for j in judges) + " |"
        )
        lines.append("|---" * (len(judges) + 1) + "|")
        for key in as_dict(result.get("criteria")):
            scores = [num(as_dict(j.get("final_scores")).get(key)) for j in judges]
            lines.append(f"| {cell(key)} | " + " | ".join(scores) + " |")
        lines.append("| **overall** | " + " | ".join(f"**{num(j.get('final_score'))}**" for j in judges) + " |")
        lines.append("")
    lines += not_ok_lines(result)
    lines += bullets("Recommendations", result.get("recommendations"), _recommendation)
    lines += bullets("Critical findings", result.get("critical_findings"), _critical)
    lines += bullets("Needs human review", result.get("user_attention_needed"), lambda a: md(a.get("issue")))
    details = [
        ("Majority opinion", result.get("majority_opinion")),
        ("Minority opinion", result.get("minority_opinion")),
    ]
    for title, text in details:
        if text:
            lines += [f"<details><summary>{title}</summary>", "", md(text), "", "</details>", ""]
    progression = as_dict(result.get("round_progression"))
    if progression:
        lines += [
            "<details><summary>Rounds</summary>",
            "",
            "| Round | Scores | Range | Consensus |",
            "|---|---|---|---|",
        ]
        for name, p in progression.items():
            pd = as_dict(p)
            agreed = "yes" if pd.get("consensus") else cell("; ".join(map(str, as_list(pd.get("reasons")))))
            lines.append(
                f"| {cell(name.replace('_', ' '))} | {', '.join(num(x) for x in as_list(pd.get('scores')))} | "
                f"{num(pd.get('range'))} | {agreed} |"
            )
        lines += ["", "</details>", ""]
    cost = cost_line(result)
    if cost:
        lines += [cost, ""]
    return "\n".join(lines)

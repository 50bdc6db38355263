"""A scored evaluation as text for a person (what `--format text` and `moot show` print).

Compact on purpose: the verdict and why first, then one table of judges by round, one of scores by
criterion, what is left for a person to weigh, and what it cost. Everything else is in the JSON, the
report files and the HTML page.

`--format github` for a scored evaluation: the verdict and score, the judges' scores by criterion, what is
left for a person, and what it cost (`ProtocolSpec.github_markdown`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from moot.protocol import Terminal, TextReport, TextTable
from moot.protocols.evaluate.follow_up import change_line
from moot.protocols.evaluate.locations import apart, located, sarif
from moot.protocols.evaluate.markdown import score_grid
from moot.protocols.evaluate.schemas import VERDICT, EvaluationResult, Summary
from moot.render.cost_table import cost_grid, with_spend
from moot.render.effect_text import effect_blocks
from moot.render.github import (
    as_dict,
    as_list,
    bullets,
    cell,
    comment_text,
    md,
    not_ok_lines,
    num,
    rounds_text,
    verdict_of,
)
from moot.render.terminal import Block, Faces, Paragraph, TextSection, files_line, model_cell, without_idle_status

ICONS = {"PASS": "✅", "CONDITIONAL": "⚠️", "FAIL": "❌"}


def _recommendation(r: dict[str, Any]) -> str:
    return f"**{md(r.get('priority'))}** {md(r.get('action'))}" + (
        f" — {md(r.get('rationale'))}" if r.get("rationale") else ""
    )


def _critical(c: dict[str, Any]) -> str:
    return f"{md(c.get('id', ''))} {md(c.get('finding', ''))}" + (f" ({md(c.get('state'))})" if c.get("state") else "")


def _ungrounded(c: dict[str, Any]) -> str:
    return f"{md(c.get('id', ''))} {md(c.get('finding', ''))} ({md(c.get('ungrounded_reason'))})"


def _on_the_code(f: dict[str, Any]) -> str:
    """A located finding as a review comment would carry it: its file and line first."""
    return f"{md(f['file'])}:{int(f['line'])} **{md(f['level'])}** {md(f['text'])}"


def show(result: EvaluationResult, fmt: str, _options: Mapping[str, Any], terminal: Terminal) -> EvaluationResult:
    """`--format sarif`: SARIF 2.1.0, one result per located finding; any other format as every command prints."""
    if fmt == "sarif":
        terminal.emit(json.dumps(sarif(result.model_dump(mode="json")), indent=2))
    else:
        terminal.emit(terminal.render(result, fmt))
    return result


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
    earlier = as_dict(result.get("follow_up"))
    if earlier:
        lines += [md(change_line(earlier)), ""]
        lines += bullets(
            "Earlier findings",
            earlier.get("items"),
            lambda i: f"{md(i.get('id'))} **{md(i.get('status'))}** {md(i.get('text'))}",
        )
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
    grounded, ungrounded = apart(as_list(result.get("critical_findings")))
    lines += bullets("Critical findings", grounded, _critical)
    lines += bullets("Not grounded (block nothing)", ungrounded, _ungrounded)
    lines += bullets("On the code", located(result), _on_the_code)
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
    return comment_text(lines, result)


def _round_note(result: EvaluationResult) -> str:
    """Why the last round ended as it did: consensus, or the rule it missed."""
    if result.consensus_reached:
        return f"consensus in round {result.consensus_reached_at}"
    if not result.round_progression:
        return ""
    name, last = list(result.round_progression.items())[-1]
    return f"{name.replace('_', ' ')}: " + ("; ".join(last.reasons) or "no consensus")


def _judges_table(result: EvaluationResult) -> TextTable:
    rounds = list(result.round_progression.values())
    rows = []
    for j in result.judges:
        scores = [r.by_judge.get(j.judge) for r in rounds]
        cells = [f"{x:g}" if x is not None else "-" for x in scores]
        rows.append([j.judge, j.stance, model_cell(j.model, j.answered_by), *cells, j.fate])
    rows.append(["range", "", "", *(f"{r.range:g}" for r in rounds), ""])
    columns = ["Judge", "Stance", "Model", *(f"Round {n}" for n in range(1, len(rounds) + 1)), "Status"]
    return TextTable(columns, rows, note=_round_note(result))


def _terminal_judges_table(result: EvaluationResult) -> TextTable:
    """At a terminal the judges table also carries each judge's spend, in place of the seed's cost table."""
    table = _judges_table(result)
    if "moderator" in result.spend.per_judge:
        by = result.synthesis_by.removeprefix("moderator:").strip()
        table.rows.insert(-1, ["moderator", "", by, *([""] * len(result.round_progression)), ""])
    table.terminal_columns = [*table.columns[:3], *(f"R{n}" for n in range(1, len(result.round_progression) + 1))]
    table.terminal_columns.append(table.columns[-1])
    return without_idle_status(with_spend(table, result.spend))


def _majority(result: EvaluationResult) -> str:
    line = (
        f"majority {', '.join(result.majority_judges)} at {result.majority_score:g}; "
        f"minority {', '.join(result.minority_judges)}"
    )
    return line + (f" at {result.minority_score:g}" if result.minority_score is not None else "")


def _findings(result: EvaluationResult) -> list[Block]:
    out: list[Block] = []
    if result.follow_up is not None and result.follow_up.items:
        earlier = [f"{i.id} [{i.status}] {i.text}" for i in result.follow_up.items]
        out.append(TextSection(f"Earlier findings ({result.follow_up.debate_id}):", earlier))
    grounded, ungrounded = apart(result.critical_findings)
    if grounded:
        items = [f"{f['id']} [{f['state']}] {f['finding']} (raised by {f['raised_by']})" for f in grounded]
        out.append(TextSection("CRITICAL findings:", items))
    if ungrounded:
        items = [
            f"{f['id']} {f['finding']} (raised by {f['raised_by']}: {f.get('ungrounded_reason')})" for f in ungrounded
        ]
        out.append(TextSection("Not grounded (their quote is not in the artifact; they block nothing):", items))
    if result.minority_opinion:
        who = f" ({', '.join(result.minority_judges)})" if result.minority_judges else ""
        out.append(Paragraph(f"Minority opinion{who}:", result.minority_opinion))
    disputes = [d.finding for d in result.divergent_findings]
    disputes += [a.issue for a in result.user_attention_needed if a.issue not in disputes]
    if disputes:
        title = "Left for you to weigh:" if result.user_attention_needed else "Divergent findings:"
        out.append(TextSection(title, disputes))
    if result.recommendations:
        out.append(TextSection("Recommendations:", [f"{r.priority:6} {r.action}" for r in result.recommendations]))
    if result.notes:
        out.append(TextSection("Notes:", result.notes))
    return out


def _by(s: Summary) -> str:
    """The aggregate a score was taken by, named when it is not the seeds' mean (a forced verdict's median
    goes without saying)."""
    return "" if s.aggregate == "mean" or s.consensus_method == "forced" else f", {s.aggregate.replace('_', ' ')}"


def evaluation_report(result: EvaluationResult) -> TextReport:
    s = result.summary
    reached = f"consensus in round {result.consensus_reached_at}" if result.consensus_reached else "no consensus"
    facts = [f"Debate {result.debate_id}: {result.rounds_completed} round(s), {reached}"]
    if result.majority_judges and not result.consensus_reached:
        facts.append(_majority(result))
    if result.follow_up is not None:
        facts.append(change_line(result.follow_up.model_dump()))
    judges = Faces(_judges_table(result), _terminal_judges_table(result))
    # after the scores, beside the prose blocks: at a terminal those run together, without a blank line
    blocks: list[Block] = [judges, score_grid(result), *effect_blocks(result.debate_effect), *_findings(result)]
    if result.spend.calls:
        blocks.append(Faces(cost_grid(result.spend), None))
    if result.reports:
        blocks.append(files_line("Reports (one per judge, and the consensus report)", result.reports))
    return TextReport(
        f"Verdict: {s.final_verdict}  score {s.consensus_score:g}/5  ({s.consensus_method}{_by(s)}, "
        f"confidence {s.confidence})",
        VERDICT.tone(s.final_verdict) or "plain",
        facts,
        blocks,
    )

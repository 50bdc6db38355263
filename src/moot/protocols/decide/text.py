"""An option-choice debate as text for a person (what `moot decide` and `moot show` print).

The outcome first, then each judge's recommendation per round, the perspectives and changes of mind, and,
when the judges split, the choice handed to the person: as the protocol's question where someone can
answer it, as a plain statement under `--no-input`, where nobody will be asked.

`--format github` for a decision: the option recommended (or the contest), who backed which option,
the perspectives and what changed (`ProtocolSpec.github_markdown`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from moot.protocol import TextReport, TextTable
from moot.protocols.decide.schemas import OUTCOME_WORDS, VERDICT, DecisionJudge, DecisionResult
from moot.render.cost_table import spend_line, with_spend
from moot.render.effect_text import effect_blocks
from moot.render.github import as_dict, as_list, cell, comment_text, md, status_lines, verdict_of
from moot.render.terminal import Block, Faces, TextSection, Tone, files_line, model_cell, without_idle_status
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
        *status_lines(result),
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
    for title, risks in zip(RISK_TITLES, _apart(as_list(result.get("risks"))), strict=True):
        if risks:
            lines += [f"### {title}", ""] + [f"- {md(_risk(r))}" for r in risks] + [""]
    if result.get("message"):
        lines += [md(result.get("message")), ""]
    return comment_text(lines, result)


RISK_TITLES = ("Risks named, quoted", "Risks not grounded (their quote is not in the question, options or context)")


def _apart(risks: Sequence[Any]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    found = [as_dict(r) for r in risks]
    return [r for r in found if r.get("grounded")], [r for r in found if not r.get("grounded")]


def _risk(r: Mapping[str, Any]) -> str:
    why = f" ({r.get('ungrounded_reason')})" if not r.get("grounded") else ""
    return f"{r.get('judge')} on {r.get('option')}: {r.get('risk')}{why}"


def _risks(risks: Sequence[Any]) -> list[Block]:
    """The risks judges named, those whose quote was found apart from the rest."""
    return [
        TextSection(f"{t}:", [_risk(r) for r in rs]) for t, rs in zip(RISK_TITLES, _apart(risks), strict=True) if rs
    ]


def round_cells(judge: DecisionJudge, rounds: list[str]) -> list[str]:
    """A judge's recommendation in each round, worded alike in the terminal table and the decision record
    so the two never disagree about a dropped judge ("dropped") or a round it had no part in ("-")."""
    cells = []
    for name in rounds:
        if name in judge.recommendations:
            cells.append(judge.recommendations[name] or "none")
        else:
            cells.append("dropped" if judge.dropped_in_round is not None else "-")
    return cells


def _judges_table(result: DecisionResult) -> TextTable:
    rounds = list(result.rounds)
    rows = []
    for j in result.judges:
        cells = round_cells(j, rounds)
        rows.append([j.judge, model_cell(j.model, j.answered_by), *cells, j.fate])  # judges are named by stance
    numbers = range(1, len(rounds) + 1)
    columns = ["Judge", "Model", *(f"Round {n}" for n in numbers), "Status"]
    return TextTable(columns, rows, terminal_columns=[*columns[:2], *(f"R{n}" for n in numbers), "Status"])


def _choice(result: DecisionResult, asking: bool) -> list[Block]:
    """What is left to the person when the judges split."""
    if result.user_choice:
        return [f"Decided by the user: {result.user_choice}"]
    if asking and result.user_prompt:
        return [result.user_prompt.rstrip()]
    options = [f"[{o.id}] {o.text}" for o in result.options]
    return [TextSection("The judges did not agree; the choice is yours (nobody was asked: --no-input):", options)]


def _distribution(result: DecisionResult) -> TextSection:
    spread = [f"{o}: {', '.join(js)}" for o, js in result.distribution.items()]
    if result.no_recommendation:
        spread.append(f"(no recommendation: {', '.join(result.no_recommendation)})")
    return TextSection("Distribution:", spread)


def decision_report(result: DecisionResult, *, asking: bool = True) -> TextReport:
    """`asking`: whether the text may put the protocol's question to the reader (not under --no-input)."""
    if result.consensus:
        head = f"RECOMMENDED: {result.recommended_option}  (confidence {result.confidence})"
    else:
        head = f"CONTESTED  (confidence {result.confidence})"
    reached = f"consensus in round {result.consensus_reached_at}" if result.consensus else "no consensus"
    facts = [f"Debate {result.debate_id}: {result.rounds_completed} round(s), {reached}"]
    facts.append(f"Question: {result.question}")
    table = _judges_table(result)
    blocks: list[Block] = [
        Faces(table, without_idle_status(with_spend(table, result.spend))),
        *effect_blocks(result.debate_effect),
        TextSection("Perspectives:", [f"{judge}: {text}" for judge, text in result.perspectives.items()]),
    ]
    if result.change_log:
        changes = [f"{e.judge} (round {e.round}): {e.from_} -> {e.to}: {e.reason}" for e in result.change_log]
        blocks.append(TextSection("Changes:", changes))
    if not result.consensus:
        blocks.append(_distribution(result))
    blocks += _risks(result.risks)
    if result.notes:
        blocks.append(TextSection("Notes:", result.notes))
    blocks.append(Faces(spend_line(result.spend), None))
    if result.files:
        what = "Files (each judge's recommendation per round, and the decision record)"
        blocks.append(files_line(what, result.files))
    if not result.consensus:  # last, so that a question put to the reader is right above the answer
        blocks += _choice(result, asking)
    tone: Tone = VERDICT.tone(result.outcome) or "plain"
    return TextReport(head, tone, facts, blocks)

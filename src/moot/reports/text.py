"""A scored evaluation as text for a person (what `--format text` and `moot show` print).

Compact on purpose: the verdict and why first, then one table of judges by round, one of scores by
criterion, what is left for a person to weigh, and what it cost. Everything else is in the JSON, the
report files and the HTML page.
"""

from __future__ import annotations

from pathlib import PurePath

from moot.reports.cost_table import cost_grid, times, usd
from moot.reports.markdown import score_grid
from moot.reports.terminal import Block, Faces, Paragraph, Section, Table, TextReport, Tone
from moot.schemas.evaluate import EvaluationResult
from moot.schemas.spend import SpendLine

VERDICT_TONE: dict[str, Tone] = {"PASS": "good", "CONDITIONAL": "warn", "FAIL": "bad"}


def model_cell(label: str, answered_by: str) -> str:
    """The configured model, and the one that answered when that says something new (a fallback took the
    seat); a scripted judge is labelled as one, so it never passes for the model it stands in for."""
    if not answered_by or answered_by in label or answered_by.startswith(label):
        return label
    return f"{label} (answered by {answered_by})"


def _round_note(result: EvaluationResult) -> str:
    """Why the last round ended as it did: consensus, or the rule it missed."""
    if result.consensus_reached:
        return f"consensus in round {result.consensus_reached_at}"
    if not result.round_progression:
        return ""
    name, last = list(result.round_progression.items())[-1]
    return f"{name.replace('_', ' ')}: " + ("; ".join(last.reasons) or "no consensus")


def _judges_table(result: EvaluationResult) -> Table:
    rounds = list(result.round_progression.values())
    rows = []
    for j in result.judges:
        scores = [r.by_judge.get(j.judge) for r in rounds]
        cells = [f"{x:g}" if x is not None else "-" for x in scores]
        rows.append([j.judge, j.stance, model_cell(j.model, j.answered_by), *cells, j.status])
    rows.append(["range", "", "", *(f"{r.range:g}" for r in rounds), ""])
    columns = ["Judge", "Stance", "Model", *(f"Round {n}" for n in range(1, len(rounds) + 1)), "Status"]
    return Table(columns, rows, note=_round_note(result))


def _spend_cells(line: SpendLine | None) -> list[str]:
    if line is None:
        return ["", ""]
    return [f"{line.input_tokens:,}/{line.output_tokens:,}", usd(line)]


def _terminal_judges_table(result: EvaluationResult) -> Table:
    """At a terminal the judges table also carries each judge's spend, in place of the seed's cost table."""
    table = _judges_table(result)
    sp = result.spend
    rows = [[*r[:-1], *_spend_cells(sp.per_judge.get(r[0])), r[-1]] for r in table.rows]
    if "moderator" in sp.per_judge:
        by = result.synthesis_by.removeprefix("moderator:").strip()
        blanks = [""] * len(result.round_progression)
        rows.insert(-1, ["moderator", "", by, *blanks, *_spend_cells(sp.per_judge["moderator"]), ""])
    rounds = [f"R{n}" for n in range(1, len(result.round_progression) + 1)]
    columns = ["Judge", "Stance", "Model", *rounds, "Tokens in/out", "Cost", "Status"]
    total = (
        f"{sp.calls} calls, {sp.input_tokens:,}/{sp.output_tokens:,} tokens, "
        f"{usd(sp, bool(sp.unpriced_models))}; {times(sp)}"
    )
    return Table(columns, rows, note="\n".join(n for n in (table.note, total) if n))


def _majority(result: EvaluationResult) -> str:
    line = (
        f"majority {', '.join(result.majority_judges)} at {result.majority_score:g}; "
        f"minority {', '.join(result.minority_judges)}"
    )
    return line + (f" at {result.minority_score:g}" if result.minority_score is not None else "")


def _findings(result: EvaluationResult) -> list[Block]:
    out: list[Block] = []
    if result.critical_findings:
        items = [
            f"{f['id']} [{f['state']}] {f['finding']} (raised by {f['raised_by']})" for f in result.critical_findings
        ]
        out.append(Section("CRITICAL findings:", items))
    if result.minority_opinion:
        who = f" ({', '.join(result.minority_judges)})" if result.minority_judges else ""
        out.append(Paragraph(f"Minority opinion{who}:", result.minority_opinion))
    disputes = [d.finding for d in result.divergent_findings]
    disputes += [a.issue for a in result.user_attention_needed if a.issue not in disputes]
    if disputes:
        title = "Left for you to weigh:" if result.user_attention_needed else "Divergent findings:"
        out.append(Section(title, disputes))
    if result.recommendations:
        out.append(Section("Recommendations:", [f"{r.priority:6} {r.action}" for r in result.recommendations]))
    if result.notes:
        out.append(Section("Notes:", result.notes))
    return out


def _reports_line(paths: list[str]) -> str:
    folders = {str(PurePath(p).parent) for p in paths}
    if len(folders) == 1:
        names = ", ".join(PurePath(p).name for p in paths)
        return f"Reports (one per judge, and the consensus report) in {folders.pop()}/: {names}"
    return "Reports: " + ", ".join(paths)


def evaluation_report(result: EvaluationResult) -> TextReport:
    s = result.summary
    reached = f"consensus in round {result.consensus_reached_at}" if result.consensus_reached else "no consensus"
    facts = [f"Debate {result.debate_id}: {result.rounds_completed} round(s), {reached}"]
    if result.majority_judges and not result.consensus_reached:
        facts.append(_majority(result))
    judges = Faces(_judges_table(result), _terminal_judges_table(result))
    blocks: list[Block] = [judges, score_grid(result), *_findings(result)]
    if result.spend.calls:
        blocks.append(Faces(cost_grid(result.spend), None))
    if result.reports:
        blocks.append(_reports_line(result.reports))
    return TextReport(
        f"Verdict: {s.final_verdict}  score {s.consensus_score:g}/5  ({s.consensus_method}, confidence {s.confidence})",
        VERDICT_TONE.get(s.final_verdict, "plain"),
        facts,
        blocks,
    )


def evaluation_text(result: EvaluationResult) -> str:
    return evaluation_report(result).plain()

"""Markdown renderings of a scored evaluation (seed 003's consensus report)."""

from __future__ import annotations

from moot.protocols.evaluate.schemas import EvaluationResult
from moot.reports.cost_table import cost_section
from moot.reports.terminal import TextTable, table_lines
from moot.schemas.safe_text import inert_markdown


def score_grid(result: EvaluationResult) -> TextTable:
    """Seed 003's table: one row per criterion, one column per judge, and the mean of all judges; then the
    verdict's score in a row of its own, labelled with whose mean it is (the majority's when the panel split),
    so that two different figures are never read as one that does not add up."""
    judges = [j for j in result.judges if j.final_score is not None]
    rows = []
    for key in result.criteria:
        scores = [j.final_scores.get(key) for j in judges]
        rows.append([key, *(_score(s) for s in scores), _score(_mean(scores))])
    overall = [j.final_score for j in judges]
    rows.append(["**overall**", *(_score(s) for s in overall), _score(_mean(overall))])
    verdict = [f"**verdict ({_basis(result)})**", *([""] * len(judges)), _score(result.summary.consensus_score)]
    rows.append(verdict)
    return TextTable(["Criterion", *(f"{j.judge} ({j.stance})" for j in judges), "Mean of all judges"], rows)


def _mean(scores: list[float | None]) -> float | None:
    present = [s for s in scores if s is not None]
    return round(sum(present) / len(present), 2) if present else None


def _score(value: float | None) -> str:
    return f"{value:g}/5" if value is not None else "-"


def _basis(result: EvaluationResult) -> str:
    """Whose scores the verdict's score is the mean of: the majority's when the panel split (the verdict's
    line names them), else every judge's."""
    return "majority" if result.majority_judges and not result.consensus_reached else "all judges"


def score_table(result: EvaluationResult) -> list[str]:
    return table_lines(score_grid(result))


def consensus_report(result: EvaluationResult) -> str:
    """Seed 003's consensus file: the verdict and scores, how the debate went, what the judges agree and
    disagree on, the opinions, what to do and what needs a person, then the cost. Judge text in it is
    inert: no control character, no workflow command, no raw HTML (`inert_markdown`)."""
    lines = _head(result) + _progress(result) + _findings(result)
    lines += ["## Majority Opinion", "", result.majority_opinion or "-", ""]
    if result.minority_opinion:
        lines += ["## Minority Opinion", "", result.minority_opinion, ""]
    lines += _actions(result)
    lines += ["## Final Recommendation", "", _final_recommendation(result), ""]
    if result.notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in result.notes] + [""]
    return inert_markdown("\n".join(lines + _cost(result)))


def _head(result: EvaluationResult) -> list[str]:
    s = result.summary
    title = "Consensus Evaluation Report" if result.consensus_reached else "Evaluation Report (no consensus)"
    return [
        f"# {title}",
        "",
        f"- Debate: {result.debate_id}",
        f"- Artifact: {result.artifact_evaluated}",
        f"- Task: {result.task or '(none given)'}",
        f"- Verdict: **{s.final_verdict}** ({s.consensus_method}, confidence {s.confidence})",
        f"- Rounds: {result.rounds_completed}"
        + (f", consensus reached in round {result.consensus_reached_at}" if result.consensus_reached_at else ""),
        "",
        "## Consensus Scores" if result.consensus_reached else "## Final Scores",
        "",
        *score_table(result),
        "",
        f"**{'Consensus ' if result.consensus_reached else ''}Overall Score**: {s.consensus_score:g}/5.0",
        "",
    ]


def _progress(result: EvaluationResult) -> list[str]:
    lines = ["## Debate Summary", ""]
    for name, r in result.round_progression.items():
        status = "consensus" if r.consensus else "; ".join(r.reasons) or "no consensus"
        lines.append(
            f"- {name.replace('_', ' ')}: scores {', '.join(f'{x:g}' for x in r.scores)} (range {r.range:g}): {status}"
        )
    lines.append("")
    if result.majority_judges and not result.consensus_reached:
        lines += [
            f"Majority ({', '.join(result.majority_judges)}): {result.majority_score:g}; "
            f"minority ({', '.join(result.minority_judges)}): "
            + (f"{result.minority_score:g}" if result.minority_score is not None else "-"),
            "",
        ]
    return lines


def _findings(result: EvaluationResult) -> list[str]:
    lines: list[str] = []
    if result.convergent_findings:
        lines += ["## Consensus Strengths and Weaknesses", ""]
        lines += [f"- [{f.priority}] {f.finding}" for f in result.convergent_findings] + [""]
    if result.divergent_findings:
        lines += ["## Persistent Disagreements", ""]
        for d in result.divergent_findings:
            lines.append(f"- {d.finding}")
            lines += [f"  - {j}: {v}" for j, v in d.positions.items()]
        lines.append("")
    return lines


def _actions(result: EvaluationResult) -> list[str]:
    lines: list[str] = []
    if result.recommendations:
        lines += ["## Recommendations", ""]
        lines += [
            f"- **{r.priority}** {r.action}" + (f" — {r.rationale}" if r.rationale else "")
            for r in result.recommendations
        ]
        lines.append("")
    if result.user_attention_needed:
        lines += ["## Needs Human Review", ""]
        lines += [
            f"- {a.issue}" + (f": {a.recommendation}" if a.recommendation else "") for a in result.user_attention_needed
        ]
        lines.append("")
    return lines


def _cost(result: EvaluationResult) -> list[str]:
    sp = result.spend
    calls = f"{sp.judge_calls} judge, {sp.clarifications} clarification, {sp.moderator_calls} moderator"
    return cost_section(sp, f"{calls}; {sp.retries} transport retries")


def _final_recommendation(result: EvaluationResult) -> str:
    s = result.summary
    word = {"PASS": "Pass", "CONDITIONAL": "Needs revision (conditional)", "FAIL": "Fail"}[s.final_verdict]
    why = {
        "unanimous": f"all judges agree within the consensus ranges on {s.consensus_score:g}/5",
        "majority": f"a majority of judges ({', '.join(result.majority_judges)}) scores {s.consensus_score:g}/5; "
        "the minority opinion above should be read before acting",
        "forced": f"the judges did not converge; the median score {s.consensus_score:g}/5 stands and "
        "automated evaluation could not reach consensus: flagged for human review",
    }[s.consensus_method]
    return f"{word}: {why}."

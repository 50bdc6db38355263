"""Markdown renderings of a scored evaluation (seed 003's consensus report).

Seed 003's per-judge report files: `{reports_dir}/{solution-name}-{YYYY-MM-DD}.{N}.md`.

Each starts `Done by Judge {N}`; each later round is APPENDED as `## Debate Round {R}`, never rewritten.
A section already present (from before a crash) is not written again, so a resumed debate appends each
round exactly once. The consensus report goes beside them as `{base}.consensus.md`.
"""

from __future__ import annotations

import re
from dataclasses import KW_ONLY, dataclass
from datetime import date
from pathlib import Path

from moot.protocol import TextTable
from moot.protocols.evaluate.schemas import EvaluationResult, JudgeRoundRecord, ScoredPosition
from moot.protocols.evaluate.task_rubric import Rubric
from moot.render.cost_table import cost_section
from moot.render.serialize import atomic_append, atomic_write, fence
from moot.render.terminal import table_lines
from moot.schemas.config import Artifact
from moot.schemas.events import Event
from moot.schemas.safe_text import inert_markdown, safe_text
from moot.store.db import Store


def solution_name(paths: list[str]) -> str:
    """Seed 003: `users-api` from `src/api/users.ts` (file stem, then its folder)."""
    if not paths:
        return "solution"
    p = Path(paths[0])
    parts = [p.stem or p.name]
    if p.parent.name and p.parent.name not in (".", ""):
        parts.append(p.parent.name)
    slug = re.sub(r"[^a-z0-9]+", "-", "-".join(parts).lower()).strip("-")
    return slug or "solution"


def choose_base(reports_dir: Path, name: str, today: date) -> str:
    """`{name}-{date}`, or with a `-2`, `-3` suffix when another debate already wrote those files today."""
    base = f"{name}-{today.isoformat()}"
    candidate, n = base, 1
    while (reports_dir / f"{candidate}.1.md").exists():
        n += 1
        candidate = f"{base}-{n}"
    return candidate


def _scores_table(position: ScoredPosition, weights: dict[str, float], previous: ScoredPosition | None) -> str:
    rows = ["| Criterion | Weight | Score | Change |", "|---|---|---|---|"]
    for key, w in weights.items():
        now = position.dimension_scores[key]
        if previous is None:
            change = ""
        elif key in position.carried_over or previous.dimension_scores[key] == now:
            change = "maintained"
        else:
            change = f"revised from {previous.dimension_scores[key]:g}"
        rows.append(f"| {key} | {round(w * 100)}% | {now:g}/5 | {change} |")
    return "\n".join(rows)


@dataclass(eq=False)  # a subscriber is itself, not its settings
class JudgeReports:
    """Writes each judge's file as its rounds complete: a subscriber to the runner's events."""

    directory: Path
    base: str
    store: Store
    debate_id: str
    _: KW_ONLY
    weights: dict[str, float]
    artifacts: list[Artifact]
    task: str

    def __call__(self, event: Event) -> None:
        record = event.data.get("record") if event.kind == "record" else None
        if isinstance(record, JudgeRoundRecord):
            self.write_round(record)
        elif isinstance(record, Rubric):  # `--criteria auto`: the criteria are known from now on
            self.weights = {c.key: c.weight for c in record.as_criteria()}

    def path_for(self, number: int) -> Path:
        return self.directory / f"{self.base}.{number}.md"

    @property
    def consensus_path(self) -> Path:
        return self.directory / f"{self.base}.consensus.md"

    def _section(self, rec: JudgeRoundRecord) -> tuple[str, str]:
        """The round's section: the judge's points as Markdown with no raw HTML (`inert_markdown`), then
        its reply as given, in a fence, where HTML is shown as text by every renderer."""
        position, text = rec.position, rec.text
        lines: list[str] = []
        if position.round == 1:
            marker = f"Done by Judge {rec.number}"
            lines += [
                marker,
                "",
                f"# Judge {rec.number}: {rec.model} ({rec.stance})",
                "",
                f"- Debate: {self.debate_id}",
                f"- Artifact: {', '.join(a.path for a in self.artifacts)}",
                f"- Task: {self.task or '(none given)'}",
                "",
                "## Round 1: Independent Analysis",
                "",
            ]
        else:
            marker = f"## Debate Round {position.round}"
            lines += ["", "---", "", marker, ""]
            if position.disagreements:
                lines += ["### Disagreements Identified", ""]
                lines += [f"- with {d.with_judge or 'another judge'} on {d.on_point}" for d in position.disagreements]
                lines.append("")
            lines += ["### Revised Assessment", ""]
        lines += [_scores_table(position, self.weights, rec.previous), ""]
        label = "Overall weighted score" if position.round == 1 else "New Weighted Score"
        lines += [f"**{label}**: {position.overall_score:g}/5.0", ""]
        if position.change_reason:
            lines += ["Reason: " + position.change_reason, ""]
        if position.statement:
            lines += [position.statement, ""]
        if position.raised:
            lines += ["### Critical findings", ""] + [f"- {f.finding}" for f in position.raised] + [""]
        if position.critical_responses:
            lines += ["### Responses to critical findings", ""]
            lines += [f"- {fid}: {resp}" for fid, resp in sorted(position.critical_responses.items())] + [""]
        lines += ["### Reply as given", ""]
        return marker, inert_markdown("\n".join(lines)) + "\n" + safe_text(fence(text, "yaml")) + "\n"

    def write_round(self, rec: JudgeRoundRecord) -> None:
        path = self.path_for(rec.number)
        position = rec.position
        section = f"round-{position.round}"
        if self.store.has_section(self.debate_id, str(path), section):
            return
        marker, body = self._section(rec)
        existing = path.read_text(encoding="utf-8") if path.exists() else ""
        if position.round == 1 and not existing.startswith(marker):
            atomic_write(path, body)
        elif position.round > 1 and f"\n{marker}\n" not in existing:
            atomic_append(path, body)
        self.store.mark_section(self.debate_id, str(path), section)

    def finish(self, result: EvaluationResult) -> EvaluationResult:
        result.reports = self.write_consensus(result)
        return result

    def write_consensus(self, result: EvaluationResult) -> list[str]:
        atomic_write(self.consensus_path, consensus_report(result))
        judge_paths = [str(self.path_for(j.number)) for j in result.judges if self.path_for(j.number).exists()]
        return [*judge_paths, str(self.consensus_path)]


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

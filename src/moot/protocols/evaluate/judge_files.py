"""Seed 003's per-judge report files: `{reports_dir}/{solution-name}-{YYYY-MM-DD}.{N}.md`.

Each starts `Done by Judge {N}`; each later round is APPENDED as `## Debate Round {R}`, never rewritten.
A section already present (from before a crash) is not written again, so a resumed debate appends each
round exactly once. The consensus report goes beside them as `{base}.consensus.md`.
"""

from __future__ import annotations

import re
from dataclasses import KW_ONLY, dataclass
from datetime import date
from pathlib import Path

from moot.protocols.evaluate.markdown import consensus_report
from moot.protocols.evaluate.schemas import EvaluationResult, JudgeRoundRecord, ScoredPosition
from moot.reports.files import atomic_append, atomic_write, fence
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

"""Rules of the scored evaluation (seed 000's consensus check, seed 001's verdict, seed 003's acceptance).

Ranges are compared with a small tolerance so that 4.3 - 3.8 (0.5000000000000004 in floating point)
counts as the 0.5 it is: a range exactly at the limit is consensus.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from moot.engine.aggregate import aggregate
from moot.protocols.evaluate.criteria import Criterion
from moot.protocols.evaluate.schemas import (
    ConsensusMethod,
    CriticalFinding,
    CriticalResponse,
    ScoreConfidence,
    ScoredPosition,
    ScoreVerdict,
    VerdictType,
)
from moot.protocols.evaluate.settings import ConsensusSettings, VerdictThresholds

EPSILON = 1e-9
FindingState = Literal["agreed", "withdrawn", "rejected", "disputed", "open"]
RESOLVED_STATES: frozenset[FindingState] = frozenset({"agreed", "withdrawn", "rejected"})


def spread(scores: Sequence[float]) -> float:
    """Highest minus lowest score, rounded to hide floating-point noise (0.0 for fewer than two)."""
    return round(max(scores) - min(scores), 6) if len(scores) > 1 else 0.0


def within(value: float, limit: float) -> bool:
    return value <= limit + EPSILON


def weighted_overall(dimension_scores: Mapping[str, float], criteria: Sequence[Criterion]) -> float:
    """Seed 003's weighted overall score, from per-criterion scores and normalised weights."""
    return round(sum(dimension_scores[c.key] * c.weight for c in criteria), 2)


def finding_states(
    findings: Sequence[CriticalFinding],
    responses: Mapping[str, Mapping[str, CriticalResponse]],
    active: Sequence[str],
) -> dict[str, FindingState]:
    """Where each CRITICAL finding stands, from each judge's latest explicit response to it.

    - withdrawn: the judge who raised it withdrew it;
    - agreed: every other active judge accepted it (the raiser counts as accepting);
    - rejected: the raiser has left the panel and every remaining judge rejected it;
    - disputed: someone rejected it; open: someone has not answered it yet.
    """
    states: dict[str, FindingState] = {}
    for f in findings:
        if responses.get(f.raised_by, {}).get(f.id) == "withdraw":
            states[f.id] = "withdrawn"
            continue
        others = [j for j in active if j != f.raised_by]
        answers = [responses.get(j, {}).get(f.id) for j in others]
        if f.raised_by not in active and others and all(a == "reject" for a in answers):
            states[f.id] = "rejected"
        elif all(a == "accept" for a in answers):
            states[f.id] = "agreed"
        elif any(a == "reject" for a in answers):
            states[f.id] = "disputed"
        else:
            states[f.id] = "open"
    return states


@dataclass(frozen=True)
class ConsensusCheck:
    reached: bool
    overall_range: float
    dimension_ranges: dict[str, float]
    reasons: list[str] = field(default_factory=list)


def check_consensus(
    positions: Sequence[ScoredPosition],
    criteria: Sequence[Criterion],
    settings: ConsensusSettings,
    states: Mapping[str, FindingState] | None = None,
) -> ConsensusCheck:
    """Seed 000's check: overall scores within range, every criterion within range, CRITICAL findings
    agreed or withdrawn; plus, when configured, seed 003's explicit acceptance by every judge.

    Fewer than two positions is never consensus: one judge cannot agree with itself.
    """
    overall = spread([p.overall_score for p in positions]) if positions else 0.0
    dims = {c.key: spread([p.dimension_scores[c.key] for p in positions]) for c in criteria} if positions else {}
    reasons: list[str] = []
    if len(positions) < 2:
        reasons.append("fewer than two judges")
    if not within(overall, settings.overall_score_range):
        reasons.append(f"overall scores differ by {overall:g} (limit {settings.overall_score_range:g})")
    for key, r in dims.items():
        if not within(r, settings.dimension_score_range):
            reasons.append(f"'{key}' scores differ by {r:g} (limit {settings.dimension_score_range:g})")
    if settings.critical_finding_agreement and states:
        unresolved = sorted(i for i, s in states.items() if s not in RESOLVED_STATES)
        if unresolved:
            reasons.append("CRITICAL findings not agreed: " + ", ".join(unresolved))
    if settings.require_explicit_acceptance:
        refusing = [p.judge for p in positions if p.accepts_consensus is not True]
        if refusing:
            reasons.append("not explicitly accepted by: " + ", ".join(refusing))
    return ConsensusCheck(reached=not reasons, overall_range=overall, dimension_ranges=dims, reasons=reasons)


@dataclass(frozen=True)
class Majority:
    majority: list[str]
    minority: list[str]


def find_majority(scores: Mapping[str, float], score_range: float) -> Majority | None:
    """The largest group of judges whose scores lie within `score_range`, if it is a strict majority and
    the only group of its size. Two equally large, different groups leave no majority (the verdict is then
    forced), since picking one would be arbitrary."""
    ordered = sorted(scores.items(), key=lambda kv: (kv[1], kv[0]))
    n = len(ordered)
    best: list[frozenset[str]] = []
    best_size = 0
    for i in range(n):
        j = i
        while j + 1 < n and within(round(ordered[j + 1][1] - ordered[i][1], 6), score_range):
            j += 1
        group = frozenset(k for k, _ in ordered[i : j + 1])
        size = len(group)
        if size > best_size:
            best, best_size = [group], size
        elif size == best_size and group not in best and not any(group <= g for g in best):
            best.append(group)
    if len(best) != 1 or best_size * 2 <= n:
        return None
    chosen = best[0]
    return Majority(
        majority=[k for k in scores if k in chosen],
        minority=[k for k in scores if k not in chosen],
    )


def mean(scores: Sequence[float]) -> float:
    return round(statistics.fmean(scores), 2)


def median(scores: Sequence[float]) -> float:
    return round(statistics.median(scores), 2)


def verdict_for(score: float, thresholds: VerdictThresholds, *, critical_accepted: bool = False) -> ScoreVerdict:
    """PASS / CONDITIONAL / FAIL from the thresholds; a CRITICAL finding all judges accept caps at
    CONDITIONAL (it never lifts a FAIL)."""
    if score + EPSILON >= thresholds.pass_at:
        verdict: ScoreVerdict = "PASS"
    elif score + EPSILON >= thresholds.conditional_at:
        verdict = "CONDITIONAL"
    else:
        verdict = "FAIL"
    if critical_accepted and verdict == "PASS":
        verdict = "CONDITIONAL"
    return verdict


class PanelSplit(TypedDict):
    verdict_type: VerdictType
    majority_score: float | None
    minority_score: float | None
    majority_judges: list[str]
    minority_judges: list[str]


@dataclass(frozen=True)
class VerdictDecision:
    """The numbers of a verdict, from final scores alone."""

    verdict: ScoreVerdict
    score: float
    method: ConsensusMethod
    verdict_type: VerdictType
    confidence: ScoreConfidence
    majority: list[str] = field(default_factory=list)
    minority: list[str] = field(default_factory=list)
    majority_score: float | None = None
    minority_score: float | None = None

    @property
    def split(self) -> PanelSplit:
        """How the panel divided, under the names an evaluation result reports it by."""
        return {
            "verdict_type": self.verdict_type,
            "majority_score": self.majority_score,
            "minority_score": self.minority_score,
            "majority_judges": list(self.majority),
            "minority_judges": list(self.minority),
        }


def decide_verdict(
    final_scores: Mapping[str, float],
    *,
    consensus_reached: bool,
    settings: ConsensusSettings,
    thresholds: VerdictThresholds,
    critical_accepted: bool = False,
) -> VerdictDecision:
    """Seed 000/001 synthesis: consensus -> the mean, HIGH; else a strict majority within the overall range
    -> the majority's mean, MEDIUM, minority documented; else forced -> the median, LOW, for a person.
    `settings.aggregate` replaces the mean (median, trimmed mean) for the consensus and the majority."""

    def decided(
        score: float, how: ConsensusMethod, kind: VerdictType, conf: ScoreConfidence, **rest: Any
    ) -> VerdictDecision:
        verdict = verdict_for(score, thresholds, critical_accepted=critical_accepted)
        return VerdictDecision(verdict, score, how, kind, conf, **rest)

    scores = list(final_scores.values())
    how = settings.aggregate
    if consensus_reached:
        return decided(aggregate(scores, how), "unanimous", "consensus", "HIGH")
    found = find_majority(final_scores, settings.overall_score_range)
    if found is not None:
        score = aggregate([final_scores[j] for j in found.majority], how)
        return decided(
            score,
            "majority",
            "majority",
            "MEDIUM",
            majority=found.majority,
            minority=found.minority,
            majority_score=score,
            minority_score=aggregate([final_scores[j] for j in found.minority], how) if found.minority else None,
        )
    return decided(median(scores), "forced", "no_consensus", "LOW")

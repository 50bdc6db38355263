"""The engine's synthesis of a scored evaluation (seed 001's format): convergent and divergent findings,
recommendations, opinions and what needs a person, derived from the judges' structured findings and
scores only. Agreement is never read from prose. A configured moderator may later replace the prose parts.

Each source (critical findings, criteria, the judges' own exchanges) adds to the same three lists, in
that order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from moot.protocols.evaluate.schemas import (
    AttentionItem,
    ConvergentFinding,
    CriticalFinding,
    DivergentFinding,
    EvaluationRequest,
    EvaluationResult,
    Recommendation,
    ScoredPosition,
)
from moot.protocols.evaluate.state import DebateState

_ANSWER = {"accept": "accepts it", "reject": "rejects it"}
_PERSON_WEIGHS = "a person should weigh the evidence on both sides; the majority is not correct by vote count alone"


@dataclass
class _Synthesis:
    convergent: list[ConvergentFinding] = field(default_factory=list)
    divergent: list[DivergentFinding] = field(default_factory=list)
    recommendations: list[Recommendation] = field(default_factory=list)


def engine_synthesis(result: EvaluationResult, state: DebateState, request: EvaluationRequest) -> EvaluationResult:
    latest = {s.id: state.latest(s) for s in state.active}
    out = _Synthesis()
    _from_findings(out, state)
    _from_criteria(out, request, latest)
    _from_exchanges(out, latest)
    majority_ids, minority_ids = _sides(result, [s.id for s in state.active])
    return result.model_copy(
        update={
            "convergent_findings": out.convergent,
            "divergent_findings": out.divergent,
            "majority_opinion": _opinion(state, majority_ids),
            "minority_opinion": _opinion(state, minority_ids),
            "recommendations": out.recommendations,
            "user_attention_needed": _attention(result, out.divergent, majority_ids, minority_ids),
        }
    )


def _from_findings(out: _Synthesis, state: DebateState) -> None:
    """A critical finding every judge accepted must be resolved; one still disputed or open is a question."""
    states = state.states()
    for f in state.findings:
        if states[f.id] == "agreed":
            out.convergent.append(
                ConvergentFinding(finding=f.finding, priority="CRITICAL", action_required=True, source_judges=["all"])
            )
            rationale = f"{f.id}: critical, accepted by all judges"
            out.recommendations.append(
                Recommendation(priority="MUST", action=f"Resolve: {f.finding}", rationale=rationale)
            )
        elif states[f.id] in ("disputed", "open"):
            out.divergent.append(DivergentFinding(finding=f"{f.id}: {f.finding}", positions=_positions(state, f)))
            action, rationale = f"Decide whether this blocks: {f.finding}", f"{f.id} is disputed between judges"
            out.recommendations.append(Recommendation(priority="SHOULD", action=action, rationale=rationale))


def _positions(state: DebateState, f: CriticalFinding) -> dict[str, str]:
    positions = {f.raised_by: "raised it as CRITICAL"}
    for seat in state.active:
        if seat.id != f.raised_by:
            answer = state.responses.get(seat.id, {}).get(f.id)
            positions[seat.id] = _ANSWER.get(answer or "", "did not answer")
    return positions


def _from_criteria(out: _Synthesis, request: EvaluationRequest, latest: dict[str, ScoredPosition]) -> None:
    """Per criterion: a spread wider than the consensus range diverges; all high or all low converges; a mean
    under the verdict bars asks for improvement (the stricter bar first, one recommendation per criterion)."""
    thr = request.thresholds
    for c in request.criteria:
        scores = {j: p.dimension_scores[c.key] for j, p in latest.items()}
        lo, hi = min(scores.values()), max(scores.values())
        if hi - lo > request.consensus.dimension_score_range + 1e-9:
            finding = f"'{c.key}' scores range from {lo:g} to {hi:g}"
            out.divergent.append(
                DivergentFinding(finding=finding, positions={j: f"{v:g}/5" for j, v in scores.items()})
            )
        elif lo >= 4:
            finding = f"All judges rate {c.key} {lo:g}/5 or better"
            out.convergent.append(ConvergentFinding(finding=finding, priority="LOW", source_judges=["all"]))
        elif hi <= 2.5:
            finding = f"All judges rate {c.key} {hi:g}/5 or worse"
            out.convergent.append(
                ConvergentFinding(finding=finding, priority="HIGH", action_required=True, source_judges=["all"])
            )
        avg = round(sum(scores.values()) / len(scores), 2)
        bar = next(((p, b) for p, b in (("MUST", thr.conditional_at), ("SHOULD", thr.pass_at)) if avg < b), None)
        if bar is not None:
            rationale = f"mean score {avg:g}/5, below {bar[1]:g}"
            out.recommendations.append(Recommendation(priority=bar[0], action=f"Improve {c.key}", rationale=rationale))


def _from_exchanges(out: _Synthesis, latest: dict[str, ScoredPosition]) -> None:
    """What each judge itself still disputes, and the points it says it agrees on with another judge."""
    for seat_id, position in latest.items():
        for item in position.unresolved:
            # the parser quotes the judge ("mine: ..."); a reader needs to know whose view it is
            said = item.replace("(mine: ", f"({seat_id}'s view: ", 1).replace("; opposing: ", "; opposing view: ", 1)
            out.divergent.append(DivergentFinding(finding=said, positions={seat_id: "maintains this dispute"}))
        for ex in position.agreements:
            if ex.with_judge and ex.on_point:
                out.convergent.append(
                    ConvergentFinding(finding=ex.on_point, priority="MEDIUM", source_judges=[seat_id, ex.with_judge])
                )


def _sides(result: EvaluationResult, active: list[str]) -> tuple[list[str], list[str]]:
    """Whose opinion is the majority's and whose the minority's: everyone is the majority of a consensus,
    and of a forced verdict (which has no majority to speak for)."""
    if not result.consensus_reached and result.majority_judges:
        return result.majority_judges, result.minority_judges
    return active, []


def _attention(
    result: EvaluationResult, divergent: list[DivergentFinding], majority_ids: list[str], minority_ids: list[str]
) -> list[AttentionItem]:
    """Without consensus, every divergence goes to a person with both sides' scores; a forced verdict first."""
    if result.consensus_reached:
        return []
    maj, mino = result.majority_score, result.minority_score
    majority_view = f"majority ({', '.join(majority_ids)}) scores {maj:g}" if maj is not None else "no majority"
    minority_view = f"minority ({', '.join(minority_ids)}) scores {mino:g}" if mino is not None else ""
    attention = [
        AttentionItem(
            issue=d.finding, majority_view=majority_view, minority_view=minority_view, recommendation=_PERSON_WEIGHS
        )
        for d in divergent
    ]
    if result.summary.consensus_method == "forced":
        forced = AttentionItem(
            issue="no majority: the verdict was forced from the median score",
            recommendation="review the judges' reports before acting on this verdict",
        )
        attention.insert(0, forced)
    return attention


def _opinion(state: DebateState, seat_ids: list[str]) -> str:
    parts = []
    for seat in state.active:
        if seat.id in seat_ids:
            p = state.latest(seat)
            statement = p.statement.strip() or "(no statement given)"
            parts.append(f"{seat.id} ({seat.stance}, {p.overall_score:g}/5): {statement}")
    return "\n\n".join(parts)

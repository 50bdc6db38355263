"""The result of a scored evaluation: the verdict from the final positions, then the synthesis
(findings, opinions and recommendations in seed 001's format).

The engine writes the synthesis from the judges' own structured findings and scores; a configured
moderator (seed 001's debate-judge) may replace the prose parts. Numbers always come from the engine.
"""

from __future__ import annotations

from collections.abc import Sequence

from moot.consensus.evaluate import decide_verdict
from moot.judges.base import Seat
from moot.protocols.evaluate_effect import evaluate_effect
from moot.protocols.evaluate_moderator import merge_moderator
from moot.protocols.evaluate_state import DebateState
from moot.protocols.seat_fate import seat_fate
from moot.schemas.evaluate import (
    AttentionItem,
    ConvergentFinding,
    CriticalFinding,
    DivergentFinding,
    EvaluationRequest,
    EvaluationResult,
    JudgeOutcome,
    Recommendation,
    Summary,
)


def build_result(
    request: EvaluationRequest, seats: Sequence[Seat], state: DebateState, debate_id: str, *, moderator_label: str = ""
) -> EvaluationResult:
    """The verdict, the engine's synthesis, and the moderator's prose over it when it gave any; and what the
    debate changed against its round 1."""
    result = engine_synthesis(verdict_result(request, seats, state, debate_id), state, request)
    result.debate_effect = evaluate_effect(state, seats, request.thresholds, result.summary)
    if state.moderator_reply is not None:
        return merge_moderator(result, state.moderator_reply, moderator_label)
    if state.moderated:
        note = f"moderator failed ({state.moderator_error}); synthesis written by the engine"
        return result.model_copy(update={"notes": [*result.notes, note]})
    return result


def verdict_result(
    request: EvaluationRequest, seats: Sequence[Seat], state: DebateState, debate_id: str
) -> EvaluationResult:
    """The numbers: verdict, method, majority and minority, from the judges' final positions."""
    st = state
    final = {s.id: st.latest(s).overall_score for s in st.active}
    states = st.states()
    d = decide_verdict(
        final,
        consensus_reached=st.consensus_at is not None,
        settings=request.consensus,
        thresholds=request.thresholds,
        critical_accepted=any(v == "agreed" for v in states.values()),
    )
    last = st.progression[f"round_{len(st.progression)}"]
    if d.method == "majority":
        last.majority_score, last.minority_score = d.majority_score, d.minority_score
    findings = [
        {**f.model_dump(), "state": states.get(f.id, "open"), "responses": _responses_to(st, f)} for f in st.findings
    ]
    return EvaluationResult(
        debate_id=debate_id,
        artifact_evaluated=", ".join(a.path for a in request.artifacts),
        task=request.task,
        rounds_completed=len(st.progression),
        consensus_reached=st.consensus_at is not None,
        consensus_reached_at=st.consensus_at,
        summary=Summary(
            final_verdict=d.verdict,
            consensus_score=d.score,
            score_range=[min(final.values()), max(final.values())],
            consensus_method=d.method,
            confidence=d.confidence,
        ),
        round_progression=st.progression,
        **d.split,
        critical_findings=findings,
        criteria={c.key: round(c.weight, 4) for c in request.criteria},
        judges=[_outcome(seat, st) for seat in seats],
        notes=list(st.notes),
    )


def _outcome(seat: Seat, st: DebateState) -> JudgeOutcome:
    pos = st.positions.get(seat.id) if seat.id not in st.dropped else None  # a dropped judge has no final say
    return JudgeOutcome(
        **seat_fate(seat, st.answered_by, st.dropped),
        number=seat.number,
        final_score=pos[-1].overall_score if pos else None,
        final_scores=dict(pos[-1].dimension_scores) if pos else {},
    )


def _responses_to(st: DebateState, f: CriticalFinding) -> dict[str, str]:
    out = {f.raised_by: "raised"}
    for judge, resp in st.responses.items():
        if f.id in resp:
            out[judge] = resp[f.id]
    return out


def _opinion(state: DebateState, seat_ids: list[str]) -> str:
    parts = []
    for seat in state.active:
        if seat.id in seat_ids:
            p = state.latest(seat)
            statement = p.statement.strip() or "(no statement given)"
            parts.append(f"{seat.id} ({seat.stance}, {p.overall_score:g}/5): {statement}")
    return "\n\n".join(parts)


def engine_synthesis(result: EvaluationResult, state: DebateState, request: EvaluationRequest) -> EvaluationResult:
    """Findings and recommendations derived from structured data only (no reading of prose for agreement)."""
    active = [s.id for s in state.active]
    latest = {s.id: state.latest(s) for s in state.active}
    states = state.states()
    convergent: list[ConvergentFinding] = []
    divergent: list[DivergentFinding] = []
    recs: list[Recommendation] = []

    for f in state.findings:
        s = states[f.id]
        if s == "agreed":
            convergent.append(
                ConvergentFinding(finding=f.finding, priority="CRITICAL", action_required=True, source_judges=["all"])
            )
            recs.append(
                Recommendation(
                    priority="MUST",
                    action=f"Resolve: {f.finding}",
                    rationale=f"{f.id}: critical, accepted by all judges",
                )
            )
        elif s in ("disputed", "open"):
            positions = {f.raised_by: "raised it as CRITICAL"}
            for j in active:
                resp = state.responses.get(j, {}).get(f.id)
                if j != f.raised_by:
                    positions[j] = {"accept": "accepts it", "reject": "rejects it"}.get(resp or "", "did not answer")
            divergent.append(DivergentFinding(finding=f"{f.id}: {f.finding}", positions=positions))
            recs.append(
                Recommendation(
                    priority="SHOULD",
                    action=f"Decide whether this blocks: {f.finding}",
                    rationale=f"{f.id} is disputed between judges",
                )
            )

    for c in request.criteria:
        scores = {j: latest[j].dimension_scores[c.key] for j in active}
        lo, hi = min(scores.values()), max(scores.values())
        avg = round(sum(scores.values()) / len(scores), 2)
        if hi - lo > request.consensus.dimension_score_range + 1e-9:
            divergent.append(
                DivergentFinding(
                    finding=f"'{c.key}' scores range from {lo:g} to {hi:g}",
                    positions={j: f"{v:g}/5" for j, v in scores.items()},
                )
            )
        elif lo >= 4:
            convergent.append(
                ConvergentFinding(
                    finding=f"All judges rate {c.key} {lo:g}/5 or better",
                    priority="LOW",
                    source_judges=["all"],
                )
            )
        elif hi <= 2.5:
            convergent.append(
                ConvergentFinding(
                    finding=f"All judges rate {c.key} {hi:g}/5 or worse",
                    priority="HIGH",
                    action_required=True,
                    source_judges=["all"],
                )
            )
        thr = request.thresholds
        for priority, bar in (("MUST", thr.conditional_at), ("SHOULD", thr.pass_at)):
            if avg < bar:  # the stricter bar first: one recommendation per criterion
                rationale = f"mean score {avg:g}/5, below {bar:g}"
                recs.append(Recommendation(priority=priority, action=f"Improve {c.key}", rationale=rationale))
                break

    for seat in state.active:
        for item in latest[seat.id].unresolved:
            # the parser quotes the judge ("mine: ..."); a reader needs to know whose view it is
            said = item.replace("(mine: ", f"({seat.id}'s view: ", 1).replace("; opposing: ", "; opposing view: ", 1)
            divergent.append(DivergentFinding(finding=said, positions={seat.id: "maintains this dispute"}))
        for ex in latest[seat.id].agreements:
            if ex.with_judge and ex.on_point:
                convergent.append(
                    ConvergentFinding(finding=ex.on_point, priority="MEDIUM", source_judges=[seat.id, ex.with_judge])
                )

    if result.consensus_reached:
        majority_ids, minority_ids = active, []
    elif result.majority_judges:
        majority_ids, minority_ids = result.majority_judges, result.minority_judges
    else:
        majority_ids, minority_ids = active, []

    attention: list[AttentionItem] = []
    if not result.consensus_reached:
        maj = result.majority_score
        for d in divergent:
            attention.append(
                AttentionItem(
                    issue=d.finding,
                    majority_view=f"majority ({', '.join(majority_ids)}) scores {maj:g}"
                    if maj is not None
                    else "no majority",
                    minority_view=f"minority ({', '.join(minority_ids)}) scores {result.minority_score:g}"
                    if result.minority_score is not None
                    else "",
                    recommendation="a person should weigh the evidence on both sides; "
                    "the majority is not correct by vote count alone",
                )
            )
        if result.summary.consensus_method == "forced":
            attention.insert(
                0,
                AttentionItem(
                    issue="no majority: the verdict was forced from the median score",
                    recommendation="review the judges' reports before acting on this verdict",
                ),
            )

    return result.model_copy(
        update={
            "convergent_findings": convergent,
            "divergent_findings": divergent,
            "majority_opinion": _opinion(state, majority_ids),
            "minority_opinion": _opinion(state, minority_ids),
            "recommendations": recs,
            "user_attention_needed": attention,
        }
    )

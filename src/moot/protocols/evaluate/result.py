"""The result of a scored evaluation: the verdict from the final positions, then the synthesis
(findings, opinions and recommendations in seed 001's format).

The engine writes the synthesis from the judges' own structured findings and scores; a configured
moderator (seed 001's debate-judge) may replace the prose parts. Numbers always come from the engine.
"""

from __future__ import annotations

from collections.abc import Sequence

from moot.engine.seat_fate import seat_fate
from moot.judges.base import Seat
from moot.protocols.evaluate.effect import evaluate_effect
from moot.protocols.evaluate.moderator import merge_moderator
from moot.protocols.evaluate.rules import decide_verdict
from moot.protocols.evaluate.schemas import (
    CriticalFinding,
    EvaluationRequest,
    EvaluationResult,
    JudgeOutcome,
    Summary,
)
from moot.protocols.evaluate.state import DebateState
from moot.protocols.evaluate.synthesis import engine_synthesis


def build_result(
    request: EvaluationRequest, seats: Sequence[Seat], state: DebateState, debate_id: str, *, moderator_label: str = ""
) -> EvaluationResult:
    """The verdict, the engine's synthesis, and the moderator's prose over it when it gave any; and what the
    debate changed against its round 1."""
    result = engine_synthesis(verdict_result(request, seats, state, debate_id), state, request)
    result.debate_effect = evaluate_effect(state, seats, request.thresholds, result.summary, request.consensus)
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
        status="stopped" if st.stopped else "finished",
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

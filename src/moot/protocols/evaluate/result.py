"""The result of a scored evaluation: the verdict from the final positions, then the synthesis
(findings, opinions and recommendations in seed 001's format).

The engine writes the synthesis from the judges' own structured findings and scores; a configured
moderator (seed 001's debate-judge) may replace the prose parts. Numbers always come from the engine.

What a scored evaluation's debate changed: the verdict its round-1 mean would have given, against the final.

Round 1 is the plain vote the bench compares debate with, combined by the same rule as the final verdict
(`decide_verdict`: the mean when round 1 reached consensus, else a strict majority's mean, else the
median) over every round-1 score (a judge dropped later still counted then), under the same thresholds.
One rule for both ends, so that a verdict moves only when a judge's score does (issue 21: aggregating
round 1 by the mean and the final by the majority made three judges who never changed their scores look
like a debate that flipped). No CRITICAL finding can cap it: findings are answered from round 2 on, so
none is agreed in round 1. A debate that ended in round 1 changed nothing, so its round 1 is its final
verdict.

A judge's answer is the verdict its overall score alone would give (the score beside it); it changed when
that verdict did, not when its score moved within one verdict's band. Its reason is the `change_reason`
of the reply that last moved its verdict, or, when that is empty (the final-positions template has no
such field), that reply's position statement (seed 000's `position_revision` / `final_position`) without
its Markdown headings.
"""

from __future__ import annotations

from collections.abc import Sequence

from moot.protocol import DebateEffect, JudgeEffect, Seat, seat_fate
from moot.protocol.effect import assemble
from moot.protocols.evaluate.follow_up import earlier_cap, follow_up
from moot.protocols.evaluate.hardening import caps_verdict
from moot.protocols.evaluate.moderator import engine_synthesis, merge_moderator
from moot.protocols.evaluate.rules import decide_verdict, verdict_for
from moot.protocols.evaluate.schemas import (
    CriticalFinding,
    EvaluationRequest,
    EvaluationResult,
    JudgeOutcome,
    ScoredPosition,
    Summary,
)
from moot.protocols.evaluate.settings import ConsensusSettings, VerdictThresholds
from moot.protocols.evaluate.state import DebateState


def _statement(text: str) -> str:
    return " ".join(line for line in text.splitlines() if not line.lstrip().startswith("#")).strip()


def _reason(positions: Sequence[ScoredPosition], thresholds: VerdictThresholds) -> str:
    """What the reply that last moved the judge's verdict said about it."""
    words = [verdict_for(p.overall_score, thresholds) for p in positions]
    moves = [p for p, before, now in zip(positions[1:], words, words[1:], strict=False) if before != now]
    return (moves[-1].change_reason.strip() or _statement(moves[-1].statement)) if moves else ""


def _judge(seat: Seat, positions: Sequence[ScoredPosition], thresholds: VerdictThresholds) -> JudgeEffect:
    first = next((p for p in positions if p.round == 1), None)
    last = positions[-1] if positions else None
    round1 = verdict_for(first.overall_score, thresholds) if first else None
    final = verdict_for(last.overall_score, thresholds) if last else None
    changed = round1 is not None and final is not None and round1 != final
    return JudgeEffect(
        judge=seat.id,
        model=seat.label,
        round1=round1,
        final=final,
        round1_score=first.overall_score if first else None,
        final_score=last.overall_score if last else None,
        changed=changed,
        reason=_reason(positions, thresholds) if changed else "",
    )


def evaluate_effect(
    state: DebateState,
    seats: Sequence[Seat],
    thresholds: VerdictThresholds,
    summary: Summary,
    settings: ConsensusSettings | None = None,
) -> DebateEffect:
    """`summary`: the final verdict and score the result reports; `settings`: the consensus settings the
    final verdict was decided under (the default ones when not given)."""
    judges = [_judge(s, state.positions.get(s.id, []), thresholds) for s in seats]
    final = (summary.final_verdict, summary.consensus_score)
    rounds = len(state.progression)
    scores = {j.judge: j.round1_score for j in judges if j.round1_score is not None}
    if rounds <= 1 or not scores:
        return assemble(final, final, judges, rounds)
    first = state.progression.get("round_1")
    d = decide_verdict(
        scores,
        consensus_reached=bool(first is not None and first.consensus),
        settings=settings or ConsensusSettings(),
        thresholds=thresholds,
    )
    return assemble((d.verdict, d.score), final, judges, rounds)


def build_result(
    request: EvaluationRequest, seats: Sequence[Seat], state: DebateState, debate_id: str, *, moderator_label: str = ""
) -> EvaluationResult:
    """The verdict, the engine's synthesis, and the moderator's prose over it when it gave any; and what the
    debate changed against its round 1."""
    result = engine_synthesis(verdict_result(request, seats, state, debate_id), state, request)
    if request.earlier is not None:
        answers = {s.id: _earlier_answers(state, s) for s in state.active}
        summary = result.summary
        result.follow_up = follow_up(request.earlier, answers, summary.final_verdict, summary.consensus_score)
        verdict, note = earlier_cap(summary.final_verdict, result.follow_up.items)
        if note is not None:  # an earlier CRITICAL still there caps the verdict as a new one would
            summary.final_verdict = verdict
            result.follow_up.verdict_now = verdict
            result.notes.append(note)
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
        critical_accepted=caps_verdict(st.findings, states, grounding=request.consensus.grounding),
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
            aggregate="median" if d.method == "forced" else request.consensus.aggregate,
        ),
        round_progression=st.progression,
        **d.split,
        critical_findings=findings,
        key_claims=[
            {"judge": judge, **c.model_dump()} for judge, ps in st.positions.items() for p in ps for c in p.key_claims
        ],
        unsupported_changes=list(st.unsupported),
        report_orders=dict(st.report_orders),
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


def _earlier_answers(st: DebateState, seat: Seat) -> dict[str, str]:
    """A judge's latest word on each earlier finding (round 1 asks; a later reply may add to it)."""
    out: dict[str, str] = {}
    for position in st.positions.get(seat.id, []):
        out.update(position.earlier_answers)
    return out


def _responses_to(st: DebateState, f: CriticalFinding) -> dict[str, str]:
    out = {f.raised_by: "raised"}
    for judge, resp in st.responses.items():
        if f.id in resp:
            out[judge] = resp[f.id]
    return out

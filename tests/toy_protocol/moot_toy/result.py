"""The end of a vote: its state as the result, with the debate's effect against round 1 (kernel shapes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from moot.protocol import NO_ANSWER, TIE, DebateEffect, JudgeEffect, Seat, seat_fate
from moot_toy.schemas import VoteJudge, VoteRequest, VoteResult

if TYPE_CHECKING:
    from moot_toy.protocol import VoteState


def _majority(answers: Sequence[str | None]) -> str:
    yes, no = answers.count("yes"), answers.count("no")
    if yes == no:
        return TIE if yes else NO_ANSWER
    return "yes" if yes > no else "no"


def _answer(state: VoteState, seat_id: str, round_no: int) -> str | None:
    reply = state.replies.get(seat_id, {}).get(round_no)
    return reply.answer if reply is not None else None


def vote_effect(state: VoteState, seats: Sequence[Seat]) -> DebateEffect:
    """Round 1's answers against the last ones, judge by judge."""
    judges = []
    for seat in seats:
        rounds = state.replies.get(seat.id, {})
        first, last = _answer(state, seat.id, 1), _answer(state, seat.id, max(rounds)) if rounds else None
        changed = first is not None and last is not None and first != last
        reply = state.latest(seat.id)
        reason = reply.reason if changed and reply is not None else ""
        judges.append(
            JudgeEffect(judge=seat.id, model=seat.label, round1=first, final=last, changed=changed, reason=reason)
        )
    round1, final = _majority([j.round1 for j in judges]), _majority([j.final for j in judges])
    return DebateEffect(
        round1_verdict=round1,
        final_verdict=final,
        differs=round1 != final,
        judges=judges,
        changed_judges=[j.judge for j in judges if j.changed],
        rounds=state.rounds_done,
    )


def build_result(request: VoteRequest, seats: Sequence[Seat], state: VoteState, debate_id: str) -> VoteResult:
    yes, no = state.tally()
    judges = []
    for seat in seats:
        judge = VoteJudge(
            **seat_fate(seat, state.answered_by, state.dropped),
            answers={f"round_{r}": (v.answer if v else None) for r, v in state.replies.get(seat.id, {}).items()},
        )
        if judge.status == "ok" and state.latest(seat.id) is None:
            judge.status, judge.reason = "unparsed", "no usable answer"
        judges.append(judge)
    return VoteResult(
        debate_id=debate_id,
        status="stopped" if state.stopped else "finished",
        rounds_completed=state.rounds_done,
        judges=judges,
        debate_effect=vote_effect(state, seats),
        question=request.question,
        yes=yes,
        no=no,
        reasons={s.id: r.reason for s in state.active if (r := state.latest(s.id)) is not None},
        notes=list(state.notes),
    )

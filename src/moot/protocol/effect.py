"""What every protocol's `debate_effect` shares: the most common answer of a round, and the record assembled
from the verdicts and judges a protocol worked out (`evaluate_effect`, `decide_effect`, `challenge_effect`).

How a seat fared, worded once for the results that list their judges (evaluate's and decide's), so a
dropped judge reads `status: dropped` with its `reason` alike in both (the envelope's judge fields).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TypedDict

from moot.judges.base import Seat
from moot.schemas.effect import NO_ANSWER, TIE, DebateEffect, JudgeEffect
from moot.schemas.envelope import JudgeStatus
from moot.schemas.words import CONFIDENCE


class SeatFate(TypedDict):
    seat: str
    judge: str
    model: str
    answered_by: str
    stance: str
    status: JudgeStatus
    reason: str | None
    dropped_in_round: int | None


def seat_fate(seat: Seat, answered_by: Mapping[str, str], dropped: Mapping[str, tuple[int, str]]) -> SeatFate:
    """`dropped` maps a seat id to the round it was dropped in and why."""
    drop = dropped.get(seat.id)
    return SeatFate(
        seat=seat.id,
        judge=seat.id,
        model=seat.label,
        answered_by=answered_by.get(seat.id, ""),
        stance=seat.stance,
        status=("unparsed" if drop[1].startswith("unparsed") else "dropped") if drop else "ok",
        reason=drop[1] if drop else None,
        dropped_in_round=drop[0] if drop else None,
    )


def plurality(answers: Iterable[str | None]) -> str:
    """The one answer given most often; `tie` when several share the top count, `none` when nobody answered
    (a judge with no usable answer is not a vote for anything)."""
    counts = Counter(a for a in answers if a is not None)
    if not counts:
        return NO_ANSWER
    ranked = counts.most_common()
    if len(ranked) > 1 and ranked[1][1] == ranked[0][1]:
        return TIE
    return ranked[0][0]


def assemble(
    round1: tuple[str, float | None], final: tuple[str, float | None], judges: Sequence[JudgeEffect], rounds: int
) -> DebateEffect:
    """The record, with what follows from its parts (`differs`, `changed_judges`) derived in one place."""
    return DebateEffect(
        round1_verdict=round1[0],
        round1_score=round1[1],
        final_verdict=final[0],
        final_score=final[1],
        differs=round1[0] != final[0],
        judges=list(judges),
        changed_judges=[j.judge for j in judges if j.changed],
        rounds=rounds,
        aggregation_changed=round1[0] != final[0] and not any(j.changed for j in judges),
    )


def stated_level(said: str | None) -> str | None:
    """HIGH, MEDIUM or LOW as a judge stated its confidence (any case, words around it aside); None otherwise."""
    words = (said or "").upper().replace('"', " ").replace(".", " ").split()
    return next((w for w in words if w in CONFIDENCE.words), None)

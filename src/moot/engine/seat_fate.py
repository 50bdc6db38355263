"""How a seat fared, worded once for the results that list their judges (evaluate's and decide's), so a
dropped judge reads `status: dropped` with its `reason` alike in both (the envelope's judge fields)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from moot.judges.base import Seat
from moot.schemas.envelope import JudgeStatus


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

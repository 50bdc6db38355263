"""How a seat fared, worded once for the results that list their judges (evaluate's and decide's), so a
dropped judge reads `dropped: <why>` alike in both."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypedDict

from moot.judges.base import Seat


class SeatFate(TypedDict):
    judge: str
    model: str
    answered_by: str
    stance: str
    status: str
    dropped_in_round: int | None


def seat_fate(seat: Seat, answered_by: Mapping[str, str], dropped: Mapping[str, tuple[int, str]]) -> SeatFate:
    """`dropped` maps a seat id to the round it was dropped in and why."""
    drop = dropped.get(seat.id)
    return SeatFate(
        judge=seat.id,
        model=seat.label,
        answered_by=answered_by.get(seat.id, ""),
        stance=seat.stance,
        status=f"dropped: {drop[1]}" if drop else "ok",
        dropped_in_round=drop[0] if drop else None,
    )

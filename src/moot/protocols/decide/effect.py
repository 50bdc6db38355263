"""What an option-choice debate changed: the option most judges recommended in round 1 against the option
most recommended in the last round (each `tie` when no one option leads, `none` when nobody recommended).

The final verdict is the last round as the protocol counted it: the judges still on the panel. It is the
recommended option when the debate reached consensus; a CONTESTED debate still has a leading option (or a
tie), which is what compares with round 1. A judge's answer is its recommendation; its last is the last
usable one (an unreadable reply does not take back an earlier recommendation, as in the change log), and a
judge dropped mid-debate keeps it. Its reason is what it said convinced it (`change_reason`, seed 002's
"what convinced you"), as the change log holds it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from moot.engine.debate_effect import assemble, plurality, stated_level
from moot.judges.base import Seat
from moot.protocols.decide.state import DecideState
from moot.schemas.effect import DebateEffect, JudgeEffect


def _judge(seat: Seat, recs: Mapping[int, str | None], state: DecideState) -> JudgeEffect:
    first = recs.get(1)
    last = next((recs[r] for r in sorted(recs, reverse=True) if recs[r] is not None), None)
    changed = first is not None and last is not None and first != last
    logged = [e.reason for e in state.change_log if e.judge == seat.id]
    stated = state.confidences.get(seat.id, {})
    last_round = next((r for r in sorted(recs, reverse=True) if recs[r] is not None), None)
    return JudgeEffect(
        judge=seat.id,
        model=seat.label,
        round1=first,
        final=last,
        changed=changed,
        reason=logged[-1].strip() if changed and logged else "",
        round1_confidence=stated_level(stated.get(1)),
        final_confidence=stated_level(stated.get(last_round)) if last_round is not None else None,
    )


def _leader(state: DecideState, round_no: int) -> str:
    return plurality(recs.get(round_no) for recs in state.recommendations.values())


def decide_effect(state: DecideState, seats: Sequence[Seat]) -> DebateEffect:
    last = max(state.tallies)
    judges = [_judge(s, state.recommendations.get(s.id, {}), state) for s in seats]
    return assemble((_leader(state, 1), None), (_leader(state, last), None), judges, last)

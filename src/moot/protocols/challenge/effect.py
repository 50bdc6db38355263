"""What a position challenge's debate changed: the challengers' most common stance in round 1, before any
confrontation, against their most common stance at the end, each agree / partial / disagree.

Round 1 here is the challenge phase (seed 004's phase 2): the verdicts given on the opening position,
before the proponent answered anything. A fast exit therefore changes nothing, while a confrontation in
round 1 that the dissenters accept does (round 1 of this protocol also holds its first confrontation).

A challenger's round-1 answer is its stated verdict (the skepticism rule's reading is recorded in the
round log, not here). A rebuttal moves it: ACCEPT reads as agree, ESCALATE as disagree, and MAINTAIN keeps
its stance (an agreement the skepticism rule sent to confrontation, maintained, reads as partial). A
challenger that was not asked again, or dropped, keeps its last answer. A rebuttal has no field for what
convinced it, so its reason is the `reasoning` of the rebuttal that last moved it.

The proponent is listed too, in its own terms: `v1` against the last version of its position (`v1` still
when no version changed it), with the reasons it gave for each objection it accepted or partly accepted.
"""

from __future__ import annotations

from collections.abc import Sequence

from moot.engine.debate_effect import assemble, plurality
from moot.judges.base import Seat
from moot.protocols.challenge.schemas import ChallengerReply
from moot.protocols.challenge.state import ChallengeState
from moot.schemas.effect import DebateEffect, JudgeEffect

_REBUTTAL = {"ACCEPT": "agree", "ESCALATE": "disagree"}


def _stance(reply: ChallengerReply, before: str | None) -> str | None:
    if reply.kind == "challenge":
        return reply.verdict
    if reply.verdict in _REBUTTAL:
        return _REBUTTAL[reply.verdict]
    return "partial" if before in (None, "agree") else before  # MAINTAIN: it still objects


def _challenger(seat: Seat, state: ChallengeState) -> JudgeEffect:
    replies = [r for rec in state.rounds for r in rec.replies if r.seat == seat.id and r.status == "ok"]
    stances: list[str | None] = []
    reason = ""
    for reply in replies:
        now = _stance(reply, stances[-1] if stances else None)
        if stances and now != stances[-1]:
            reason = reply.reasoning.strip()
        stances.append(now)
    first = stances[0] if replies and replies[0].kind == "challenge" else None
    last = stances[-1] if stances else None
    changed = first is not None and last is not None and first != last
    return JudgeEffect(
        judge=seat.id, model=seat.label, round1=first, final=last, changed=changed, reason=reason if changed else ""
    )


def _proponent(seat: Seat, state: ChallengeState) -> JudgeEffect:
    later = state.history[1:]
    changed = any(v.changed for v in later)
    reasons = [
        f"{c.decision} {c.objection_id}: {c.reason or c.objection}".strip() for v in later for c in v.changed_because
    ]
    return JudgeEffect(
        judge=seat.id,
        model=seat.label,
        round1="v1" if state.history else None,
        final=f"v{state.latest.version}" if changed else "v1" if state.history else None,
        changed=changed,
        reason="; ".join(reasons) if changed else "",
    )


def challenge_effect(state: ChallengeState, proponent: Seat, challengers: Sequence[Seat]) -> DebateEffect:
    seats = [_challenger(s, state) for s in challengers]
    round1 = plurality(j.round1 for j in seats)
    final = plurality(j.final for j in seats)
    return assemble((round1, None), (final, None), [_proponent(proponent, state), *seats], state.rounds_done)

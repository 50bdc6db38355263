"""Phase 8 of the position challenge: the debate's state -> its result (CONSENSUS or TRADEOFF).

Pure: no call is made here. The assumptions table maps each core assumption to the position it supports
(the proponent's, or a challenger's objection), from the parties' own phase-7 statements.

What a position challenge's debate changed: the challengers' most common stance in round 1, before any
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

from collections.abc import Mapping, Sequence
from typing import Any

from moot.protocol import DebateEffect, JudgeEffect, Seat, Spend
from moot.protocol.effect import assemble, plurality
from moot.protocols.challenge.rules import final_confidence
from moot.protocols.challenge.schemas import (
    AssumptionRow,
    ChallengeRequest,
    ChallengeResult,
    ChallengerOutcome,
    ChallengerReply,
    PartyStatement,
    PositionOutcome,
)
from moot.protocols.challenge.state import ChallengeState

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


def seat_kind(seat: Seat) -> str:
    spec = seat.spec
    if not spec:
        return "code"
    if spec.get("cli") or spec.get("command"):
        return "agent-cli"
    if "replies" in spec or spec.get("script"):
        return "scripted"
    return "api"


def _what_changed(state: ChallengeState) -> list[str]:
    out = []
    for v in state.history[1:]:
        for c in v.changed_because:
            out.append(f"v{v.version}: {c.decision} {c.objection_id} ({c.raised_by}): {c.objection}")
    return out


def _assumptions(state: ChallengeState) -> list[AssumptionRow]:
    rows = []
    for seat_id, s in state.statements.items():
        supports = "proponent" if seat_id == "proponent" else seat_id
        rows += [AssumptionRow(assumption=a, held_by=seat_id, supports=supports) for a in s.assumptions]
    return rows


def _core_disagreement(state: ChallengeState) -> str:
    mine = state.statements.get("proponent")
    if mine is not None and mine.core_disagreement:
        return mine.core_disagreement
    parts = [f"{seat}: {s.why_disagree}" for seat, s in state.statements.items() if seat != "proponent"]
    if not parts and mine is not None:
        parts = [f"proponent: {mine.why_disagree}"]
    if parts:
        return " | ".join(parts)
    open_ = [o for o in state.objections if o.decision in (None, "REJECT")]
    return "; ".join(f"{o.id} ({o.raised_by}): {o.text}" for o in open_[-3:]) or "not stated"


def _challengers(state: ChallengeState, challengers: Sequence[Seat]) -> list[ChallengerOutcome]:
    return [
        ChallengerOutcome(
            seat=s.id,
            number=s.number,
            model=s.label,
            kind=seat_kind(s),
            status=state.status.get(s.id, "not asked"),
            answered_by=state.answered_by.get(s.id, ""),
        )
        for s in challengers
    ]


def _statements(state: ChallengeState) -> list[PartyStatement]:
    return [
        PartyStatement(seat=seat, why_disagree=s.why_disagree, what_would_change_my_mind=s.what_would_change_my_mind)
        for seat, s in state.statements.items()
    ]


def challenge_output(
    request: ChallengeRequest,
    state: ChallengeState,
    *,
    debate_id: str,
    proponent: Seat,
    challengers: Sequence[Seat],
    spend: Spend,
) -> ChallengeResult:
    """The CONSENSUS or TRADEOFF document of the final state; a tradeoff also says what divides the parties."""
    assert state.opening is not None, "the opening comes first"
    outcome: PositionOutcome = "CONSENSUS" if state.consensus else "TRADEOFF"
    latest = state.latest
    result = ChallengeResult(
        debate_id=debate_id,
        topic=request.topic,
        outcome=outcome,
        final_position=latest.position,
        confidence=final_confidence(latest.confidence, outcome=outcome, all_agreed_at_once=state.all_agreed),
        rounds=state.rounds_done,
        fast_exit=state.fast_exit,
        position_history=list(state.history),
        what_changed=_what_changed(state),
        opening=state.opening,
        objections=list(state.objections),
        round_log=list(state.rounds),
        skepticism=list(state.skepticism),
        proponent=f"{proponent.label}",
        challengers=_challengers(state, challengers),
        skipped_challengers=list(request.skipped),
        notes=list(state.notes),
        spend=spend,
        debate_effect=challenge_effect(state, proponent, challengers),
    )
    if not state.consensus:
        result.core_disagreement = _core_disagreement(state)
        result.assumptions = _assumptions(state)
        result.statements = _statements(state)
    return result


def is_legacy_result(result: Mapping[str, Any]) -> bool:
    """A challenge result stored before the envelope had no `protocol` key: its `final_position` names it
    (`ProtocolSpec.legacy_result`)."""
    return "final_position" in result

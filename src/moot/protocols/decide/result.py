"""The end of an option-choice debate: from its state to the seed's result (consensus or contested).

A pure function of the debate's data: no call, no file. Everything a person needs to decide is here: each
stance's perspective, the change log, the distribution of options to judges, and the seed's user prompt.

What an option-choice debate changed: the option most judges recommended in round 1 against the option
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
from pathlib import Path

from moot.protocol import DebateEffect, JudgeEffect, Seat, Templates, seat_fate
from moot.protocol.effect import assemble, plurality, stated_level
from moot.protocols.decide.rules import OptionConsensus
from moot.protocols.decide.schemas import DecisionJudge, DecisionRequest, DecisionResult, RoundTally
from moot.protocols.decide.state import DecideState


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


PROMPTS = Templates(Path(__file__).parent / "templates")

CONTESTED_MESSAGE = "Judges disagree. Review perspectives below."


def perspective(state: DecideState, seat_id: str) -> str:
    """`Option A - why (changed from B)`, as the seed writes each stance's perspective."""
    rec = state.latest(seat_id)
    reply = state.counted.get(seat_id)
    if rec is None or reply is None:
        last = max(state.recommendations.get(seat_id, {0: None}))
        return f"No recommendation - its round-{last} reply gave no usable recommendation"
    why = reply.perspective or reply.rationale or "(no reason given)"
    text = f"Option {rec} - {why}"
    changed = [e for e in state.change_log if e.judge == seat_id]
    if changed and changed[0].from_ != rec:
        text += f" (changed from {changed[0].from_})"
    return text


def _judges(seats: Sequence[Seat], state: DecideState) -> list[DecisionJudge]:
    judges = []
    for seat in seats:
        recs = state.recommendations.get(seat.id, {})
        judge = DecisionJudge(
            **seat_fate(seat, state.answered_by, state.dropped),
            recommendations={f"round_{r}": rec for r, rec in recs.items()},
        )
        if judge.status == "ok" and recs and recs[max(recs)] is None:
            # it answered, but its last reply gave no usable recommendation: not "ok"
            judge.status, judge.reason = "unparsed", f"no usable recommendation in round {max(recs)}"
        judges.append(judge)
    return judges


def _rounds(state: DecideState) -> dict[str, RoundTally]:
    """Every round as the result reports it, with each judge's recommendation in that round."""
    return {
        f"round_{r}": RoundTally(
            recommendations={s: recs[r] for s, recs in state.recommendations.items() if r in recs},
            distribution=t.distribution,
            consensus=t.reached,
            option=t.option if t.reached else None,
            share=t.share,
            answered=t.answered,
        )
        for r, t in sorted(state.tallies.items())
    }


def _message(final: OptionConsensus, consensus_at: int | None) -> str:
    if not final.reached:
        return CONTESTED_MESSAGE
    after = f" (after round {consensus_at})" if consensus_at and consensus_at > 1 else ""
    return f"{final.votes} of {final.answered} judges recommend {final.option}{after}."


def build_result(request: DecisionRequest, seats: Sequence[Seat], state: DecideState, debate_id: str) -> DecisionResult:
    ctx = request.context
    last_round = max(state.tallies)
    final = state.tallies[last_round]
    consensus_at = next((r for r, t in sorted(state.tallies.items()) if t.reached), None)
    return DecisionResult(
        debate_id=debate_id,
        status="stopped" if state.stopped else "finished",
        question_id=ctx.question_id,
        question=ctx.question_text,
        options=list(ctx.options),
        consensus=final.reached,
        outcome="RECOMMENDED" if final.reached else "CONTESTED",
        recommended_option=final.option if final.reached else None,
        confidence="HIGH" if final.reached else "REQUIRES_INPUT",
        perspectives={s.id: perspective(state, s.id) for s in state.active},
        change_log=list(state.change_log),
        distribution=final.distribution,
        no_recommendation=list(final.no_recommendation),
        rounds_completed=last_round,
        consensus_reached_at=consensus_at,
        consensus_threshold=request.config.consensus_threshold,
        message=_message(final, consensus_at),
        user_prompt=None if final.reached else PROMPTS.render("user_prompt.j2", options=ctx.options),
        decided_by="judges" if final.reached else None,
        rounds=_rounds(state),
        judges=_judges(seats, state),
        notes=list(state.notes),
        debate_effect=decide_effect(state, seats),
        risks=_risks(state),
    )


def _risks(state: DecideState) -> list[dict[str, object]]:
    """Each active judge's risks in its latest reply, with its seat: grounded and ungrounded alike (shown apart)."""
    out: list[dict[str, object]] = []
    for seat in state.active:
        reply = state.counted.get(seat.id)
        if reply is not None:
            out += [{"judge": seat.id, **r.model_dump(exclude_none=True)} for r in reply.risks]
    return out

"""How each phase's answers change a position challenge's state, and what the runner must do about them.

Pure functions over `ChallengeState`: no call is made and nothing is written here. Each returns the
runner's `Outcome` (drops, the round record to store, the "note" that closes a round, or why the debate
cannot go on); the rules themselves (fast exit, skepticism, resolution) are in `moot.protocols.challenge.rules`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from moot.protocol import Answer, Outcome, Seat, Step
from moot.protocols.challenge.replies import REBUTTAL_WORDS, VERDICT_WORDS, RebuttalResponse
from moot.protocols.challenge.rules import Reading, check_challenges, is_changed, next_step, read_challenge, unresolved
from moot.protocols.challenge.schemas import (
    Challenge,
    ChallengerReply,
    Confrontation,
    Objection,
    PositionChange,
    PositionVersion,
    Rebuttal,
    RoundRecord,
)
from moot.protocols.challenge.state import ChallengeState
from moot.schemas.events import Event

_CLOSING = {
    "fast_exit": "fast exit",
    "consensus": "consensus",
    "continue": "no consensus yet",
    "tradeoff": "no consensus",
}


def failure(st: ChallengeState, seat: Seat, answer: Answer[Any], round_no: int, what: str) -> str:
    """Why a seat gave nothing usable, noted in the result (the runner reports it as a drop)."""
    reason = f"{answer.status}: {answer.reason}"
    if answer.status == "unparsed":
        reason += " (raw reply kept in the record)"
    st.notes.append(f"{seat.id} ({seat.label}) gave no usable {what} in round {round_no}: {reason}")
    return reason


def answered_by(st: ChallengeState, step: Step, answers: Sequence[Answer[Any]]) -> None:
    """Which model answered for each seat (a fallback may have taken over)."""
    for call, answer in zip(step.calls, answers, strict=True):
        if answer.value is not None and answer.answered_by:
            st.answered_by[call.seat.id] = answer.answered_by


def _failed_reply(
    seat: Seat, round_no: int, kind: Literal["challenge", "rebuttal"], answer: Answer[Any]
) -> ChallengerReply:
    raw = answer.text if answer.status == "unparsed" else ""
    return ChallengerReply(seat=seat.id, round=round_no, kind=kind, status=answer.status, error=answer.reason, raw=raw)


def finish_round(st: ChallengeState, record: RoundRecord, outcome: Outcome, *, consensus: bool) -> None:
    """A round ends: it joins the log, is stored, and a note says how it ended (progress, MCP)."""
    st.rounds.append(record)
    outcome.round_record = record.model_dump(mode="json")
    text = f"round {record.round}: {_CLOSING.get(record.decision, record.decision)} ({'; '.join(record.reasons)})"
    data = {"text": text, "consensus": consensus, "decision": record.decision}
    outcome.events.append(Event("note", record.round, "", data))


# phase 1


def absorb_opening(st: ChallengeState, seat: Seat, answer: Answer[Any]) -> Outcome:
    if answer.value is None:
        why = f"the proponent ({seat.label}) could not state a position: {answer.status}: {answer.reason}"
        return Outcome(go_on=False, abort=why)
    opening = answer.value
    st.opening = opening
    st.history.append(PositionVersion(version=1, round=0, position=opening.position, confidence=opening.confidence))
    st.phase = "challenge"
    return Outcome(go_on=True)


# phases 2-3


def _collect_challenges(
    st: ChallengeState, step: Step, answers: Sequence[Answer[Any]], outcome: Outcome
) -> tuple[RoundRecord, dict[str, Challenge], list[str]]:
    record = RoundRecord(round=1)
    answered: dict[str, Challenge] = {}
    failures: list[str] = []
    for call, answer in zip(step.calls, answers, strict=True):
        seat = call.seat
        if answer.value is None:
            reason = failure(st, seat, answer, 1, "challenge")
            st.status[seat.id] = f"failed: {reason}"
            failures.append(f"{seat.id} ({seat.label}): {reason}")
            outcome.dropped[seat.id] = reason
            record.replies.append(_failed_reply(seat, 1, "challenge", answer))
            continue
        c = answered[seat.id] = answer.value
        record.replies.append(
            ChallengerReply(seat=seat.id, round=1, kind="challenge", status="ok", **c.model_dump())  # the same names
        )
    return record, answered, failures


def _too_few(answered: dict[str, Challenge], failures: list[str], minimum: int) -> str | None:
    if not answered:
        return "all challengers failed: " + "; ".join(failures)
    if len(answered) < minimum:
        return f"only {len(answered)} challenger(s) answered, fewer than min_challengers ({minimum}): " + "; ".join(
            failures
        )
    return None


def _read(st: ChallengeState, record: RoundRecord, answered: dict[str, Challenge]) -> dict[str, Reading]:
    """The rules' reading of each answer; the skepticism rule marks a bare agreement as partial."""
    readings: dict[str, Reading] = {}
    for reply in record.replies:
        if reply.seat not in answered:
            continue
        reading = read_challenge(answered[reply.seat], round_no=1)
        readings[reply.seat] = reading
        if reading.suspicious:
            reply.treated_as = "partial"
            st.suspicious.add(reply.seat)
            st.skepticism.append(f"{reply.seat} agreed in round 1 without substantive reasoning; treated as partial")
    return readings


def absorb_challenges(st: ChallengeState, step: Step, answers: Sequence[Answer[Any]], minimum: int) -> Outcome:
    outcome = Outcome(go_on=True)
    record, answered, failures = _collect_challenges(st, step, answers, outcome)
    outcome.abort = _too_few(answered, failures, minimum)
    if outcome.abort is not None:
        return outcome
    for seat_id, c in answered.items():
        st.status[seat_id] = VERDICT_WORDS.status(c.verdict)
    check = check_challenges(_read(st, record, answered))
    record.reasons = list(check.reasons)
    record.position_version = 1
    objections = [
        st.new_objection(seat_id, 1, text, answered[seat_id].objection_strength, quote)
        for seat_id in check.dissenters
        for text, quote in _quoted(answered[seat_id].objections, answered[seat_id].quotes)
    ]
    record.objections = objections
    if check.decision == "fast_exit":
        st.fast_exit, st.all_agreed = True, check.all_agree
        record.decision = "fast_exit"
        if objections:
            st.notes.append("minor objections noted, not debated: " + "; ".join(f"{o.id} {o.text}" for o in objections))
        finish_round(st, record, outcome, consensus=True)
        st.phase, outcome.go_on = "done", False
        return outcome
    st.dissenters, st.in_play, st.record, st.phase = list(check.dissenters), objections, record, "confrontation"
    return outcome


# phase 4


def _changes(conf: Confrontation, objections: list[Objection]) -> list[PositionChange]:
    """The answers recorded on the objections; what the proponent (partly) accepted changed the position."""
    by_id = {o.id: o for o in objections}
    changes = []
    for resp in conf.responses:
        o = by_id[resp.objection]
        o.decision, o.reason = resp.decision, resp.reason
        if resp.decision in ("ACCEPT", "PARTIAL"):
            changes.append(
                PositionChange(
                    objection_id=o.id,
                    raised_by=o.raised_by,
                    objection=o.text,
                    decision=resp.decision,
                    reason=resp.reason,
                )
            )
    return changes


def absorb_confrontation(st: ChallengeState, seat: Seat, answer: Answer[Any]) -> Outcome:
    if answer.value is None:
        why = (
            f"the proponent ({seat.label}) could not answer the objections in round {st.round_no}: "
            f"{answer.status}: {answer.reason}"
        )
        return Outcome(go_on=False, abort=why)
    conf: Confrontation = answer.value
    changes = _changes(conf, st.in_play)
    previous = st.latest
    st.history.append(
        PositionVersion(
            version=previous.version + 1,
            round=st.round_no,
            position=conf.position,
            confidence=conf.confidence or previous.confidence,
            changed=is_changed(previous.position, conf.position, [r.decision for r in conf.responses]),
            changed_because=changes,
        )
    )
    st.rounds_done = st.round_no
    assert st.record is not None, "a confrontation belongs to a round"
    st.record.position_version = st.latest.version
    st.phase = "rebuttal"
    return Outcome(go_on=True)


# phase 5


def _collect_rebuttals(
    st: ChallengeState, step: Step, answers: Sequence[Answer[Any]], record: RoundRecord, outcome: Outcome
) -> dict[str, Rebuttal]:
    round_no = st.round_no
    out: dict[str, Rebuttal] = {}
    for call, answer in zip(step.calls, answers, strict=True):
        seat = call.seat
        if answer.value is None:
            reason = failure(st, seat, answer, round_no, "rebuttal")
            st.status[seat.id] = f"dropped in round {round_no}: {reason}"
            outcome.dropped[seat.id] = reason
            record.replies.append(_failed_reply(seat, round_no, "rebuttal", answer))
            continue
        r = out[seat.id] = answer.value
        st.status[seat.id] = REBUTTAL_WORDS.status(r.response) + (
            f" in round {round_no}" if r.response == "ACCEPT" else ""
        )
        record.replies.append(
            ChallengerReply(
                seat=seat.id,
                round=round_no,
                kind="rebuttal",
                status="ok",
                verdict=r.response,
                **r.model_dump(exclude={"response"}),
            )
        )
    return out


def _quoted(objections: Sequence[str], quotes: Sequence[str]) -> list[tuple[str, str]]:
    """Each objection with its quote, by place (one missing is empty: no quote)."""
    return [(text, quotes[i] if i < len(quotes) else "") for i, text in enumerate(objections)]


def _standing(st: ChallengeState, rebuttals: dict[str, Rebuttal]) -> list[Objection]:
    """The objections a MAINTAIN or ESCALATE carries into the next round (or into the tradeoff)."""
    standing: list[Objection] = []
    for seat_id, r in rebuttals.items():
        if r.response == "ACCEPT":
            continue
        if r.objections:
            standing += [
                st.new_objection(seat_id, st.round_no, text, "strong", quote)
                for text, quote in _quoted(r.objections, r.quotes)
            ]
            continue
        refs = ", ".join(o.id for o in st.in_play if o.raised_by == seat_id)
        text = r.reasoning or "the objection stands"
        if refs:
            text = f"{r.response} on {refs}: {text}"
        standing.append(st.new_objection(seat_id, st.round_no, text, "strong"))
    return standing


def absorb_rebuttals(st: ChallengeState, step: Step, answers: Sequence[Answer[Any]], max_rounds: int) -> Outcome:
    outcome = Outcome(go_on=True)
    record = st.record
    assert record is not None, "a rebuttal belongs to a round"
    rebuttals = _collect_rebuttals(st, step, answers, record, outcome)
    if not rebuttals:
        outcome.abort = f"no dissenting challenger answered the rebuttal of round {st.round_no}"
        return outcome
    responses: dict[str, RebuttalResponse] = {s: r.response for s, r in rebuttals.items()}
    decision = next_step(responses, round_no=st.round_no, max_rounds=max_rounds)
    open_seats = unresolved(responses)
    record.decision = decision
    if decision == "consensus":
        record.reasons.append("every dissenter accepted")
    else:
        record.reasons.append("still objecting: " + ", ".join(f"{s} {responses[s]}" for s in open_seats))
    standing = _standing(st, rebuttals)
    finish_round(st, record, outcome, consensus=decision == "consensus")
    _advance(st, decision, open_seats, standing, outcome)
    return outcome


def _advance(
    st: ChallengeState, decision: str, open_seats: list[str], standing: list[Objection], outcome: Outcome
) -> None:
    """Phase 6: consensus ends the debate; a tradeoff asks for assumptions; otherwise the next round."""
    if decision == "consensus":
        st.phase, outcome.go_on = "done", False
        return
    st.dissenters = open_seats
    if decision == "tradeoff":
        st.consensus, st.standing, st.phase = False, standing, "assumptions"
        return
    st.round_no += 1
    st.in_play = standing
    st.record = RoundRecord(round=st.round_no, objections=standing)
    st.phase = "confrontation"


# phase 7


def absorb_assumptions(st: ChallengeState, step: Step, answers: Sequence[Answer[Any]]) -> Outcome:
    outcome = Outcome(go_on=False)
    for call, answer in zip(step.calls, answers, strict=True):
        if answer.value is None:
            outcome.dropped[call.seat.id] = failure(st, call.seat, answer, st.rounds_done, "assumption statement")
            continue
        st.statements[call.seat.id] = answer.value
    st.phase = "done"
    return outcome


def budget_stopped(st: ChallengeState, reason: str) -> Outcome | None:
    """The budget ends the debate before a confrontation: what was argued so far stands, contested.

    A stop in round 1 closes that round (its challenges are on record); a later round had not begun.
    """
    st.notes.append(f"{reason}; the outcome is from the {st.rounds_done} round(s) done")
    st.consensus, st.phase = False, "done"
    record = st.record
    if record is None:
        return None
    record.decision = "tradeoff"
    record.reasons.append(reason)
    if record.round != 1:
        return None
    outcome = Outcome(go_on=False)
    finish_round(st, record, outcome, consensus=False)
    return outcome

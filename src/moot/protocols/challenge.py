"""The position challenge (seed 004) as a small state machine of phases.

    1  opening        the proponent states a position (v1), confidence, weaknesses, assumptions
    2  challenge      every challenger at once: verdict, objection strength, objections, reasoning
    3  check          fast exit (all agree / all partial-minor) or confrontation; the skepticism rule
    4  confrontation  the proponent answers each open objection ACCEPT / PARTIAL / REJECT -> v(N+1)
    5  rebuttal       the dissenters only: ACCEPT / MAINTAIN / ESCALATE
    6  iteration      all ACCEPT -> consensus; else back to 4 until max rounds
    7  assumptions    (no consensus) each party: why it disagrees, what would change its mind, assumptions
    8  output         CONSENSUS or TRADEOFF, with the position history v1..vN (pure: `challenge_output`)

Round N holds phase 4 and 5 of that round (round 1 also holds phases 1-3). Calls: 1 opening + one per
usable challenger; then per round 1 proponent call + one per dissenter; then, for a tradeoff, 1 + one per
remaining dissenter; plus one per clarification. Call keys are stable ("r2/challenger-1/rebuttal"), so a
resumed debate replays every call that had finished.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from moot.consensus.challenge import Reading, check_challenges, is_changed, next_step, read_challenge, unresolved
from moot.engine import Answer, Engine, Event, ask
from moot.engine.budget import tokens_of
from moot.engine.spend import spend_from_calls
from moot.errors import DebateAborted
from moot.judges.base import Seat
from moot.parsing.challenge import (
    parse_assumptions,
    parse_challenge,
    parse_confrontation,
    parse_opening,
    parse_rebuttal,
)
from moot.prompts import render
from moot.protocols.challenge_result import challenge_output
from moot.protocols.common import concurrently
from moot.schemas.challenge import (
    AssumptionStatement,
    Challenge,
    ChallengeRequest,
    ChallengeResult,
    ChallengerReply,
    Confrontation,
    Objection,
    Opening,
    PositionChange,
    PositionVersion,
    Rebuttal,
    RebuttalResponse,
    RoundRecord,
)
from moot.schemas.messages import Message, Prompt
from moot.schemas.reply_schemas import challenge_reply_schema

T = TypeVar("T")

PROPONENT_PROMPT = "Defend a clear, well-reasoned position, and change it when an objection is right."
CHALLENGER_PROMPT = "Challenge the position: find its weaknesses, hidden assumptions and risks others might miss."


@dataclass
class ChallengeState:
    """What the debate knows so far. Plain data; the phase methods below update it."""

    opening: Opening | None = None
    history: list[PositionVersion] = field(default_factory=list)
    objections: list[Objection] = field(default_factory=list)
    rounds: list[RoundRecord] = field(default_factory=list)
    status: dict[str, str] = field(default_factory=dict)  # seat -> outcome so far
    answered_by: dict[str, str] = field(default_factory=dict)
    suspicious: set[str] = field(default_factory=set)
    skepticism: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    statements: dict[str, AssumptionStatement] = field(default_factory=dict)
    fast_exit: bool = False
    all_agreed: bool = False

    @property
    def latest(self) -> PositionVersion:
        return self.history[-1]

    def new_objection(self, raised_by: str, round_no: int, text: str, strength: str) -> Objection:
        o = Objection(
            id=f"O{len(self.objections) + 1}",
            raised_by=raised_by,
            round=round_no,
            text=text,
            strength="minor" if strength == "minor" else "strong",
        )
        self.objections.append(o)
        return o


class PositionChallenge:
    """One run (or resumed run) of the position challenge."""

    def __init__(self, request: ChallengeRequest, proponent: Seat, challengers: Sequence[Seat], engine: Engine) -> None:
        self.request = request
        self.proponent = proponent
        self.challengers = list(challengers)
        self.engine = engine
        self.state = ChallengeState()
        self.system = render(
            "challenge/system.j2", topic=request.topic, context=request.context, max_rounds=request.max_rounds
        )

    # asking

    def _prompt(self, template: str, seat: Seat, round_no: int, kind: str, **variables: Any) -> Prompt:
        text = render(
            f"challenge/{template}.j2",
            seat=seat.id,
            stance_prompt=seat.stance_prompt,
            round=round_no,
            max_rounds=self.request.max_rounds,
            **variables,
        )
        schema = challenge_reply_schema(
            template,
            objection_ids=[o.id for o in variables.get("objections", [])],
            proponent=variables.get("role") == "proponent",
        )
        return Prompt(
            system=self.system,
            messages=[Message(role="user", content=text)],
            json_schema=schema,
            meta={"round": round_no, "kind": kind, "seat": seat.id},
        )

    async def _ask(
        self, seat: Seat, prompt: Prompt, parse: Callable[[str], T], *, key: str, round_no: int, kind: str
    ) -> tuple[Seat, Answer[T]]:
        answer = await ask(
            self.engine,
            seat,
            prompt,
            parse,
            key=key,
            round_no=round_no,
            kind=kind,
            clarify=lambda reason: render("challenge/clarify.j2", reason=reason),
        )
        if answer.value is not None and answer.answered_by:
            self.state.answered_by[seat.id] = answer.answered_by
        return seat, answer

    def _emit(self, kind: str, round_no: int, seat: str = "", **data: Any) -> None:
        self.engine.emit(Event(kind, round_no, seat, data))

    def _failure(self, seat: Seat, answer: Answer[Any], round_no: int, what: str) -> str:
        reason = f"{answer.status}: {answer.reason}"
        if answer.status == "unparsed":
            reason += " (raw reply kept in the record)"
        self.state.notes.append(f"{seat.id} ({seat.label}) gave no usable {what} in round {round_no}: {reason}")
        self._emit("judge_dropped", round_no, seat.id, reason=reason)
        return reason

    # phase 1

    async def _opening(self) -> Opening:
        seat = self.proponent
        self._emit("round_started", 1, judges=[seat.id], phase="opening")
        _, answer = await self._ask(
            seat,
            self._prompt("opening", seat, 1, "opening"),
            parse_opening,
            key="r1/proponent/opening",
            round_no=1,
            kind="opening",
        )
        if answer.value is None:
            raise DebateAborted(
                f"the proponent ({seat.label}) could not state a position: {answer.status}: {answer.reason}"
            )
        opening = answer.value
        self._emit("judge_answered", 1, seat.id, summary=f"position v1 (confidence {opening.confidence})")
        self.state.opening = opening
        self.state.history.append(
            PositionVersion(version=1, round=0, position=opening.position, confidence=opening.confidence)
        )
        return opening

    # phases 2-3

    async def _challenge_round(self, opening: Opening) -> tuple[RoundRecord, dict[str, Challenge]]:
        st = self.state
        self._emit("round_started", 1, judges=[s.id for s in self.challengers], phase="challenge")
        results = await concurrently(
            [
                self._ask(
                    seat,
                    self._prompt("challenge", seat, 1, "challenge", opening=opening, version=1),
                    parse_challenge,
                    key=f"r1/{seat.id}/challenge",
                    round_no=1,
                    kind="challenge",
                )
                for seat in self.challengers
            ]
        )
        record = RoundRecord(round=1)
        answered: dict[str, Challenge] = {}
        failures: list[str] = []
        for seat, answer in results:
            if answer.value is None:
                reason = self._failure(seat, answer, 1, "challenge")
                st.status[seat.id] = f"failed: {reason}"
                failures.append(f"{seat.id} ({seat.label}): {reason}")
                record.replies.append(
                    ChallengerReply(
                        seat=seat.id,
                        round=1,
                        kind="challenge",
                        status=answer.status,
                        error=answer.reason,
                        raw=answer.text if answer.status == "unparsed" else "",
                    )
                )
                continue
            c = answer.value
            answered[seat.id] = c
            record.replies.append(
                ChallengerReply(
                    seat=seat.id,
                    round=1,
                    kind="challenge",
                    status="ok",
                    verdict=c.verdict,
                    objection_strength=c.objection_strength,
                    objections=c.objections,
                    reasoning=c.reasoning,
                )
            )
            self._emit("judge_answered", 1, seat.id, summary=f"{c.verdict} ({c.objection_strength})")
        if not answered:
            raise DebateAborted("all challengers failed: " + "; ".join(failures))
        if len(answered) < self.request.min_challengers:
            raise DebateAborted(
                f"only {len(answered)} challenger(s) answered, fewer than min_challengers "
                f"({self.request.min_challengers}): " + "; ".join(failures)
            )
        return record, answered

    def _read(self, record: RoundRecord, answered: dict[str, Challenge]) -> dict[str, Reading]:
        st = self.state
        readings: dict[str, Reading] = {}
        for reply in record.replies:
            if reply.seat not in answered:
                continue
            reading = read_challenge(answered[reply.seat], round_no=1)
            readings[reply.seat] = reading
            if reading.suspicious:
                reply.treated_as = "partial"
                st.suspicious.add(reply.seat)
                st.skepticism.append(
                    f"{reply.seat} agreed in round 1 without substantive reasoning; treated as partial"
                )
        return readings

    # phase 4

    async def _confront(self, round_no: int, objections: list[Objection]) -> Confrontation:
        st = self.state
        seat = self.proponent
        notes = [
            f"{s} agreed without giving substantive reasons; it will be asked again." for s in sorted(st.suspicious)
        ]
        self._emit("round_started", round_no, judges=[seat.id], phase="confrontation")
        ids = [o.id for o in objections]
        _, answer = await self._ask(
            seat,
            self._prompt(
                "confront",
                seat,
                round_no,
                "confront",
                objections=objections,
                position=st.latest.position,
                version=st.latest.version,
                notes=notes if round_no == 1 else [],
            ),
            lambda text: parse_confrontation(text, objection_ids=ids),
            key=f"r{round_no}/proponent/confront",
            round_no=round_no,
            kind="confront",
        )
        if answer.value is None:
            raise DebateAborted(
                f"the proponent ({seat.label}) could not answer the objections in round {round_no}: "
                f"{answer.status}: {answer.reason}"
            )
        conf = answer.value
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
        previous = st.latest
        st.history.append(
            PositionVersion(
                version=previous.version + 1,
                round=round_no,
                position=conf.position,
                confidence=conf.confidence or previous.confidence,
                changed=is_changed(previous.position, conf.position, [r.decision for r in conf.responses]),
                changed_because=changes,
            )
        )
        tally = ", ".join(f"{r.objection} {r.decision}" for r in conf.responses) or "no objections"
        self._emit("judge_answered", round_no, seat.id, summary=f"position v{previous.version + 1} ({tally})")
        return conf

    # phase 5

    async def _rebut(
        self, round_no: int, dissenters: list[Seat], objections: list[Objection], record: RoundRecord
    ) -> dict[str, Rebuttal]:
        st = self.state
        self._emit("round_started", round_no, judges=[s.id for s in dissenters], phase="rebuttal")
        results = await concurrently(
            [
                self._ask(
                    seat,
                    self._prompt(
                        "rebuttal",
                        seat,
                        round_no,
                        "rebuttal",
                        objections=objections,
                        position=st.latest.position,
                        version=st.latest.version,
                        suspicious=seat.id in st.suspicious,
                    ),
                    parse_rebuttal,
                    key=f"r{round_no}/{seat.id}/rebuttal",
                    round_no=round_no,
                    kind="rebuttal",
                )
                for seat in dissenters
            ]
        )
        out: dict[str, Rebuttal] = {}
        for seat, answer in results:
            if answer.value is None:
                reason = self._failure(seat, answer, round_no, "rebuttal")
                st.status[seat.id] = f"dropped in round {round_no}: {reason}"
                record.replies.append(
                    ChallengerReply(
                        seat=seat.id,
                        round=round_no,
                        kind="rebuttal",
                        status=answer.status,
                        error=answer.reason,
                        raw=answer.text if answer.status == "unparsed" else "",
                    )
                )
                continue
            r = answer.value
            out[seat.id] = r
            st.status[seat.id] = {"ACCEPT": "accepted", "MAINTAIN": "maintained", "ESCALATE": "escalated"}[r.response]
            if r.response == "ACCEPT":
                st.status[seat.id] += f" in round {round_no}"
            record.replies.append(
                ChallengerReply(
                    seat=seat.id,
                    round=round_no,
                    kind="rebuttal",
                    status="ok",
                    verdict=r.response,
                    objections=r.objections,
                    reasoning=r.reasoning,
                )
            )
            self._emit("judge_answered", round_no, seat.id, summary=r.response)
        if not out:
            raise DebateAborted(f"no dissenting challenger answered the rebuttal of round {round_no}")
        return out

    def _standing(self, round_no: int, rebuttals: dict[str, Rebuttal], answered: list[Objection]) -> list[Objection]:
        """The objections a MAINTAIN or ESCALATE carries into the next round (or into the tradeoff)."""
        st = self.state
        standing: list[Objection] = []
        for seat_id, r in rebuttals.items():
            if r.response == "ACCEPT":
                continue
            strength = "strong"
            if r.objections:
                standing += [st.new_objection(seat_id, round_no, text, strength) for text in r.objections]
                continue
            mine = [o for o in answered if o.raised_by == seat_id]
            refs = ", ".join(o.id for o in mine)
            text = r.reasoning or "the objection stands"
            if refs:
                text = f"{r.response} on {refs}: {text}"
            standing.append(st.new_objection(seat_id, round_no, text, strength))
        return standing

    # phase 7

    async def _extract(self, rounds: int, dissenters: list[Seat], standing: list[Objection]) -> None:
        st = self.state
        parties = [self.proponent, *dissenters]
        self._emit("round_started", 0, judges=[s.id for s in parties], phase="assumptions")
        results = await concurrently(
            [
                self._ask(
                    seat,
                    self._prompt(
                        "assumptions",
                        seat,
                        0,
                        "assumptions",
                        role="proponent" if seat is self.proponent else "challenger",
                        rounds=rounds,
                        position=st.latest.position,
                        version=st.latest.version,
                        objections=standing
                        if seat is self.proponent
                        else [o for o in standing if o.raised_by == seat.id],
                    ),
                    parse_assumptions,
                    key=f"final/{seat.id}/assumptions",
                    round_no=0,
                    kind="assumptions",
                )
                for seat in parties
            ]
        )
        for seat, answer in results:
            if answer.value is None:
                self._failure(seat, answer, rounds, "assumption statement")
                continue
            st.statements[seat.id] = answer.value
            self._emit("judge_answered", 0, seat.id, summary=f"{len(answer.value.assumptions)} assumption(s)")

    # the whole debate

    def _budget_stop(self, round_no: int, dissenters: list[Seat] | None = None) -> str | None:
        """Ask the engine whether the next calls fit the budget (the judges file's `budget:`, the wall clock).

        Before round 1: the opening and every challenge. Before a confrontation: the proponent's answer;
        each dissenter's rebuttal, which repeats that prompt plus the answer (at the proponent's output
        bound); and, held in reserve, the assumption statements a tradeoff would still need.
        """
        st = self.state
        if dissenters is None:
            first = self._prompt("opening", self.proponent, 1, "opening")
            planned = [(self.proponent, first, "r1/proponent/opening")]
            planned += [(s, first, f"r1/{s.id}/challenge") for s in self.challengers]
        else:
            answer = self._prompt(
                "confront",
                self.proponent,
                round_no,
                "confront",
                objections=[],
                position=st.latest.position,
                version=st.latest.version,
                notes=[],
            )
            planned = [(self.proponent, answer, f"r{round_no}/proponent/confront")]
            prompt_tokens = tokens_of(answer.as_text())
            rebuttal_tokens = prompt_tokens + self.engine.output_bound(self.proponent)
            reserve = [(s, rebuttal_tokens) for s in dissenters]
            reserve += [(s, prompt_tokens) for s in [self.proponent, *dissenters]]
            return self.engine.round_gate(round_no, planned, reserve)
        return self.engine.round_gate(round_no, planned)

    def _finish_round(self, record: RoundRecord, *, consensus: bool) -> None:
        self.state.rounds.append(record)
        self.engine.store.record_round(self.engine.debate_id, record.round, record.model_dump(mode="json"))
        what = {
            "fast_exit": "fast exit",
            "consensus": "consensus",
            "continue": "no consensus yet",
            "tradeoff": "no consensus",
        }
        text = f"round {record.round}: {what.get(record.decision, record.decision)} ({'; '.join(record.reasons)})"
        self._emit("note", record.round, text=text, consensus=consensus, decision=record.decision)

    async def run(self) -> ChallengeResult:
        t0 = time.monotonic()
        st = self.state
        by_id = {s.id: s for s in self.challengers}
        stop = self._budget_stop(1)
        if stop is not None:
            raise DebateAborted(stop)
        opening = await self._opening()
        record, answered = await self._challenge_round(opening)
        for seat_id, c in answered.items():
            st.status[seat_id] = {"agree": "agreed", "partial": "partial", "disagree": "disagreed"}[c.verdict]
        check = check_challenges(self._read(record, answered))
        record.reasons = list(check.reasons)
        record.position_version = 1
        objections = [
            st.new_objection(seat_id, 1, text, answered[seat_id].objection_strength)
            for seat_id in check.dissenters
            for text in answered[seat_id].objections
        ]
        record.objections = objections
        rounds = 1
        outcome_consensus = True
        if check.decision == "fast_exit":
            st.fast_exit, st.all_agreed = True, check.all_agree
            record.decision = "fast_exit"
            if objections:
                st.notes.append(
                    "minor objections noted, not debated: " + "; ".join(f"{o.id} {o.text}" for o in objections)
                )
            self._finish_round(record, consensus=True)
        else:
            dissenters = [by_id[s] for s in check.dissenters]
            round_no = 1
            while True:
                stop = self._budget_stop(round_no, dissenters)
                if stop is not None:  # what was argued so far stands, contested
                    st.notes.append(f"{stop}; the outcome is from the {rounds} round(s) done")
                    outcome_consensus = False
                    record.decision = "tradeoff"
                    record.reasons.append(stop)
                    if round_no == 1:
                        self._finish_round(record, consensus=False)
                    break
                rounds = round_no
                await self._confront(round_no, objections)
                record.position_version = st.latest.version
                rebuttals = await self._rebut(round_no, dissenters, objections, record)
                responses: dict[str, RebuttalResponse] = {s: r.response for s, r in rebuttals.items()}
                step = next_step(responses, round_no=round_no, max_rounds=self.request.max_rounds)
                open_seats = unresolved(responses)
                record.decision = step
                if step == "consensus":
                    record.reasons.append("every dissenter accepted")
                else:
                    record.reasons.append("still objecting: " + ", ".join(f"{s} {responses[s]}" for s in open_seats))
                standing = self._standing(round_no, rebuttals, objections)
                self._finish_round(record, consensus=step == "consensus")
                if step == "consensus":
                    break
                dissenters = [by_id[s] for s in open_seats]
                if step == "tradeoff":
                    outcome_consensus = False
                    await self._extract(rounds, dissenters, standing)
                    break
                round_no += 1
                objections = standing
                record = RoundRecord(round=round_no, objections=objections)
        result = challenge_output(
            self.request,
            st,
            debate_id=self.engine.debate_id,
            proponent=self.proponent,
            challengers=self.challengers,
            rounds=rounds,
            consensus=outcome_consensus,
        )
        calls = self.engine.store.calls(self.engine.debate_id)
        result.spend = spend_from_calls(calls, wall_seconds=time.monotonic() - t0)
        return result

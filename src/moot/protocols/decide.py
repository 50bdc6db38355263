"""The option-choice debate (seed 002) as a small state machine of rounds.

    round 1  independent recommendations, all judges at once, none sees another (isolation)
    check    a share of the answering judges at or above the threshold on one option: consensus, stop
    round 2  adversarial response: each judge reads the others' round-1 files in full, MUST challenge
             them, may revise, and must say exactly what convinced it when it does
    check    consensus: RECOMMENDED (HIGH); otherwise CONTESTED (REQUIRES_INPUT), a person decides

Anti-sycophancy, as the seed lists it: stances assigned and restated every round (prompts); isolation in
round 1 (prompts carry no other judge's text); the challenge requirement and change documentation
(enforced by the reply parser, a breaking reply is sent back once); contested accepted as an outcome.

Exactly one call per active judge per round, plus one per clarification. Call keys are "r{round}/{seat}"
and "r{round}/{seat}/clarify", so a resumed debate replays every call that had completed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from moot.consensus.decide import OptionConsensus, changes, check_consensus
from moot.engine import Answer, Engine, Event, ask
from moot.engine.spend import spend_from_calls
from moot.errors import DebateAborted
from moot.judges.base import Seat
from moot.parsing.decide import ReplyRules, parse_stance_reply
from moot.parsing.extract import ReplyError
from moot.prompts import render
from moot.protocols.common import concurrently
from moot.protocols.decide_result import build_result
from moot.reports.decide import DecisionFiles, judge_round_markdown, round_file_name
from moot.schemas.decide import ChangeLogEntry, DecisionRequest, DecisionResult, RoundTally, StanceReply
from moot.schemas.messages import Message, Prompt
from moot.schemas.reply_schemas import decide_reply_schema


@dataclass(frozen=True)
class Stance:
    title: str
    temperament: str
    focus: str
    goal: str
    rule: str
    prompt: str


STANCES: dict[str, Stance] = {
    "risk": Stance(
        "Risk",
        "SKEPTICAL",
        "evaluate each option for risks",
        "MINIMIZES RISK",
        "Always challenge optimism.",
        "Skeptical: find what can go wrong with each option (technical, delivery, user and business risk) "
        "and recommend the option that minimises risk.",
    ),
    "value": Stance(
        "Value",
        "OPTIMISTIC",
        "evaluate each option for user value",
        "MAXIMIZES VALUE",
        "Always push for more.",
        "Optimistic: find what each option gives users and the business, and recommend the option that "
        "maximises user value.",
    ),
    "effort": Stance(
        "Effort",
        "PRAGMATIC",
        "evaluate each option for ROI",
        "OPTIMIZES ROI",
        "Always ground in reality.",
        "Pragmatic: weigh each option's value against its cost, time and complexity, and recommend the "
        "option with the best return on investment.",
    ),
}
STANCE_PROMPTS = {k: s.prompt for k, s in STANCES.items()}
DEFAULT_STANCES = ("risk", "value", "effort")
DEFAULT_MODEL = "sonnet"
DEFAULT_JUDGES = [{"model": DEFAULT_MODEL, "stance": s} for s in DEFAULT_STANCES]


def stance_of(seat: Seat) -> Stance:
    """The seed's stance for a seat, or a generic one for a stance the user named."""
    known = STANCES.get(seat.stance.lower())
    if known is not None:
        return known
    return Stance(seat.stance.capitalize(), "", "evaluate each option from your stance", "your stance favours", "", "")


@dataclass
class DecideState:
    """What the debate knows after each round. Plain data; the round functions below update it."""

    active: list[Seat]
    recommendations: dict[str, dict[int, str | None]] = field(default_factory=dict)
    counted: dict[str, StanceReply] = field(default_factory=dict)  # the reply behind each latest recommendation
    texts: dict[str, dict[int, str]] = field(default_factory=dict)
    dropped: dict[str, tuple[int, str]] = field(default_factory=dict)
    answered_by: dict[str, str] = field(default_factory=dict)
    tallies: dict[int, OptionConsensus] = field(default_factory=dict)
    change_log: list[ChangeLogEntry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)

    def latest(self, seat_id: str) -> str | None:
        recs = self.recommendations.get(seat_id, {})
        return recs[max(recs)] if recs else None


@dataclass
class _Judged:
    """A judge's round, as it will count: its recommendation (or None), the reply, and why if not clean."""

    seat: Seat
    answer: Answer[StanceReply]
    recommendation: str | None = None
    reply: StanceReply | None = None
    note: str = ""


class Decision:
    """One run (or resumed run) of the option-choice debate."""

    def __init__(self, request: DecisionRequest, seats: Sequence[Seat], engine: Engine) -> None:
        self.request = request
        self.context = request.context
        self.config = request.config
        self.engine = engine
        self.seats = list(seats)
        self.state = DecideState(active=list(seats))
        self.files = DecisionFiles(Path(request.files_dir), self.context.question_id) if request.files_dir else None
        self.system = render(
            "decide/system.j2",
            judge_count=len(self.seats),
            question_id=self.context.question_id,
            question=self.context.question_text,
            options=self.context.options,
            spec_context=self.context.spec_context,
        )

    # prompts

    def _file_label(self, seat_id: str, round_no: int) -> str:
        name = round_file_name(self.context.question_id, seat_id, round_no)
        return str(self.files.round_path(seat_id, round_no)) if self.files else f"{name} (kept in the moot store)"

    def _prompt(self, seat: Seat, round_no: int) -> Prompt:
        st = self.state
        stance = stance_of(seat)
        common = {
            "seat": seat.id,
            "stance": seat.stance,
            "stance_prompt": seat.stance_prompt or stance.prompt,
            "title": stance.title,
            "temperament": stance.temperament,
            "rule": stance.rule,
            "focus": stance.focus,
            "goal": stance.goal,
            "maintain": self.config.require_stance_maintenance,
            "round": round_no,
            "max_rounds": self.config.max_rounds,
            "options": self.context.options,
            "file": self._file_label(seat.id, round_no),
        }
        if round_no == 1:
            text = render("decide/round_1.j2", **common)
        else:
            others = [
                {
                    "judge": s.id,
                    "stance": s.stance,
                    "recommendation": st.latest(s.id),
                    "file": self._file_label(s.id, round_no - 1),
                    "text": st.texts[s.id][round_no - 1],
                }
                for s in st.active
                if s.id != seat.id
            ]
            text = render(
                "decide/round_2.j2",
                **common,
                previous=st.latest(seat.id),
                own_text=st.texts[seat.id][round_no - 1],
                own_file=self._file_label(seat.id, round_no - 1),
                others=others,
                dropped=[f"{sid} ({reason})" for sid, (_, reason) in st.dropped.items()],
                require_change_reason=self.config.require_change_documentation,
            )
        schema = decide_reply_schema(
            [o.id for o in self.context.options],
            round_no=round_no,
            others=[s.id for s in st.active if s.id != seat.id] if round_no > 1 else [],
        )
        return Prompt(
            system=self.system,
            messages=[Message(role="user", content=text)],
            json_schema=schema,
            meta={"round": round_no, "kind": "judge", "seat": seat.id},
        )

    def _rules(self, seat: Seat, round_no: int) -> ReplyRules:
        others = [s.id for s in self.state.active if s.id != seat.id] if round_no > 1 else []
        return ReplyRules(
            judge=seat.id,
            round_no=round_no,
            options=self.context.options,
            previous=self.state.latest(seat.id) if round_no > 1 else None,
            others=others,
            require_challenge=round_no > 1,
            require_change_reason=self.config.require_change_documentation,
        )

    # one round

    async def _ask(self, seat: Seat, round_no: int) -> _Judged:
        rules = self._rules(seat, round_no)
        answer = await ask(
            self.engine,
            seat,
            self._prompt(seat, round_no),
            lambda text: parse_stance_reply(text, rules),
            key=f"r{round_no}/{seat.id}",
            round_no=round_no,
            kind="judge",
            clarify=lambda reason: render("decide/clarify.j2", reason=reason, options=self.context.options),
        )
        judged = _Judged(seat, answer)
        if answer.value is not None:
            judged.reply, judged.recommendation = answer.value, answer.value.recommendation
        elif answer.status == "unparsed":
            self._settle_unparsed(judged, rules)
        if judged.recommendation is not None:
            self.engine.emit(
                Event(
                    "judge_answered",
                    round_no,
                    seat.id,
                    {"summary": f"recommends {judged.recommendation}", "clarified": answer.clarified},
                )
            )
        return judged

    def _settle_unparsed(self, judged: _Judged, rules: ReplyRules) -> None:
        """A reply still breaking a rule after its clarification: what of it counts, and the note saying so.

        No recognisable recommendation: none (seed: treat as no recommendation). A change with no reason:
        the change does not count, the previous recommendation stands. No challenge: the recommendation
        counts, and the note says the judge challenged nobody.
        """
        sid = judged.seat.id
        relaxed = replace(rules, require_challenge=False, require_change_reason=False)
        try:
            reply = parse_stance_reply(judged.answer.text, relaxed)
        except ReplyError:
            judged.note = f"{sid} gave no usable recommendation in round {rules.round_no} ({judged.answer.reason})"
            return
        notes = []
        if rules.require_challenge and not reply.challenges:
            notes.append(f"{sid} challenged nobody in round {rules.round_no}, even when asked")
        if reply.changed_from is not None and rules.require_change_reason and not reply.change_reason:
            notes.append(
                f"{sid} changed from {reply.changed_from} to {reply.recommendation} in round {rules.round_no} "
                f"without saying what convinced it, even when asked: the change is not counted"
            )
            reply = reply.model_copy(update={"recommendation": reply.changed_from, "changed_from": None})
        judged.reply, judged.recommendation, judged.note = reply, reply.recommendation, "; ".join(notes)

    async def _round(self, round_no: int) -> OptionConsensus:
        st = self.state
        self.engine.emit(Event("round_started", round_no, data={"judges": [s.id for s in st.active]}))
        results = await concurrently([self._ask(seat, round_no) for seat in st.active])
        failed = [j for j in results if j.answer.status in ("timeout", "error")]
        for j in failed:
            reason = f"{j.answer.status}: {j.answer.reason}"
            st.dropped[j.seat.id] = (round_no, reason)
            self.engine.emit(Event("judge_dropped", round_no, j.seat.id, {"reason": reason}))
        st.active = [s for s in st.active if s.id not in st.dropped]
        for j in failed:
            what = "timed out" if j.answer.status == "timeout" else f"failed ({j.answer.reason})"
            st.notes.append(
                f"{stance_of(j.seat).title} judge {what} in round {round_no} - "
                f"only {len(st.active)} perspectives available"
            )
        if len(st.active) < 2:
            raise DebateAborted(
                f"fewer than two judges left after round {round_no}: "
                + "; ".join(f"{k}: {v[1]}" for k, v in st.dropped.items())
            )
        previous = {s.id: st.latest(s.id) for s in st.active}
        current: dict[str, str | None] = {}
        reasons: dict[str, str] = {}
        for j in results:
            if j.seat.id in st.dropped:
                continue
            sid = j.seat.id
            current[sid] = j.recommendation
            st.recommendations.setdefault(sid, {})[round_no] = j.recommendation
            st.texts.setdefault(sid, {})[round_no] = j.answer.text
            st.answered_by[sid] = j.answer.answered_by or st.answered_by.get(sid, "")
            if j.reply is not None:
                st.counted[sid] = _carry_perspective(st.counted.get(sid), j.reply)
                reasons[sid] = j.reply.change_reason
            if j.note:
                st.notes.append(j.note)
                self.engine.emit(Event("note", round_no, sid, {"text": j.note}))
            self._write_round_file(j, round_no)
        if round_no > 1:
            st.change_log += changes(previous, current, reasons, round_no)
        tally = check_consensus(current, self.context.option_ids, self.config.consensus_threshold)
        st.tallies[round_no] = tally
        summary = RoundTally(
            recommendations=current,
            distribution=tally.distribution,
            consensus=tally.reached,
            option=tally.option if tally.reached else None,
            share=tally.share,
            answered=tally.answered,
        )
        self.engine.store.record_round(self.engine.debate_id, round_no, summary.model_dump(mode="json"))
        self.engine.emit(
            Event(
                "round_finished",
                round_no,
                data={
                    "consensus": tally.reached,
                    "summary": f"{tally.share:.0%} on {tally.option}",
                    "reasons": [tally.describe(self.config.consensus_threshold)],
                },
            )
        )
        return tally

    def _write_round_file(self, j: _Judged, round_no: int) -> None:
        if self.files is None:
            return
        markdown = judge_round_markdown(
            judge=j.seat.id,
            title=stance_of(j.seat).title,
            model=j.answer.answered_by or j.seat.label,
            round_no=round_no,
            question=self.context.question_text,
            reply=j.reply if j.recommendation is not None else None,
            text=j.answer.text,
            note=j.note,
        )
        self.state.files.append(str(self.files.write_round(j.seat.id, round_no, markdown)))

    # the whole debate

    def _budget_stop(self, round_no: int) -> str | None:
        """Ask the engine whether the round fits the budget (the judges file's `budget:`, the wall clock)."""
        planned = [(s, self._prompt(s, round_no), f"r{round_no}/{s.id}") for s in self.state.active]
        return self.engine.round_gate(round_no, planned)

    async def run(self) -> DecisionResult:
        t0 = time.monotonic()
        for round_no in range(1, self.config.max_rounds + 1):
            stop = self._budget_stop(round_no)
            if stop is not None:
                if round_no == 1:
                    raise DebateAborted(stop)
                self.state.notes.append(f"{stop}; the outcome is from the {round_no - 1} round(s) done")
                break
            tally = await self._round(round_no)
            if tally.reached:
                break
        result = build_result(self.request, self.seats, self.state, self.engine.debate_id)
        calls = self.engine.store.calls(self.engine.debate_id)
        result.spend = spend_from_calls(calls, wall_seconds=time.monotonic() - t0)
        if self.files is not None:
            result.files = [*self.state.files, str(self.files.record_path)]
            self.files.write_record(result)
        return result


def _carry_perspective(before: StanceReply | None, now: StanceReply) -> StanceReply:
    """A judge that keeps its recommendation without restating why keeps the reason it gave before."""
    if now.perspective or now.rationale or before is None or before.recommendation != now.recommendation:
        return now
    return now.model_copy(update={"perspective": before.perspective, "rationale": before.rationale})

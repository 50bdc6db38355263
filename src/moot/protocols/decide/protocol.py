"""The option-choice debate (seed 002) as steps over `DecideState`.

    round 1  independent recommendations, all judges at once, none sees another (isolation)
    check    a share of the answering judges at or above the threshold on one option: consensus, stop
    round 2  adversarial response: each judge reads the others' round-1 files in full, MUST challenge
             them, may revise, and must say exactly what convinced it when it does
    check    consensus: RECOMMENDED (HIGH); otherwise CONTESTED (REQUIRES_INPUT), a person decides

Anti-sycophancy, as the seed lists it: stances assigned and restated every round (prompts); isolation in
round 1 (prompts carry no other judge's text); the challenge requirement and change documentation
(enforced by the reply parser, a breaking reply is sent back once); contested accepted as an outcome.

Exactly one call per active judge per round, plus one per clarification. Call keys are "r{round}/{seat}"
and "r{round}/{seat}/clarify", so a resumed debate replays every call that had completed. The judges'
files are not written here: each round emits a `DecideRoundRecord` per judge for the file writer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from moot.grounding import drawn_order, sources
from moot.protocol import Answer, Call, Message, Outcome, Prompt, ReplyError, Seat, Spend, Step, Templates
from moot.protocols.decide.replies import ReplyRules, decide_reply_example, decide_reply_schema, parse_stance_reply
from moot.protocols.decide.result import build_result
from moot.protocols.decide.rules import OptionConsensus, changes, check_consensus
from moot.protocols.decide.schemas import (
    DecideRoundRecord,
    DecisionRequest,
    DecisionResult,
    RoundTally,
    StanceReply,
    round_file_name,
    round_file_path,
)
from moot.protocols.decide.stances import stance_of
from moot.protocols.decide.state import DecideState, Judged
from moot.schemas.events import Event

PROMPTS = Templates(Path(__file__).parent / "templates")

# an adversarial response's bound unless the judge sets its own (longest reply ~1,900 tokens, the rest thinking)
RESPONSE_MAX_TOKENS = 6144


class Decision:
    """One run (or resumed run) of the option-choice debate."""

    name = "decide"
    final_name = "final"  # never used: a decision has no step after its rounds

    def __init__(self, request: DecisionRequest, seats: Sequence[Seat], debate_id: str) -> None:
        self.request = request
        self.context = request.context
        self.config = request.config
        self.debate_id = debate_id
        self.seats = list(seats)
        self.state = DecideState(active=list(seats))
        self.option_orders = {s.id: self._options_for(s.id) for s in self.seats}
        ctx = self.context
        option_texts = "\n".join(o.text for o in ctx.options)  # as the system prompt shows each
        self.shown = sources([], question=ctx.question_text, options=option_texts, context=ctx.spec_context or "")
        # one system prompt for every judge (the prefix vendors' caches serve to all); each judge's options, in
        # the order drawn for it, come in its own part of each round's prompt (`_options.j2`)
        system = PROMPTS.render(
            "system.j2",
            judge_count=len(self.seats),
            question_id=ctx.question_id,
            question=ctx.question_text,
            spec_context=ctx.spec_context,
        )
        self.systems = dict.fromkeys(self.option_orders, system)

    def _options_for(self, seat_id: str) -> list[str]:
        """The option ids in the order this judge reads them: drawn from the question and the seat (the same on
        every rerun), or as given when `debate_config: {shuffled_options: false}`."""
        ids = [o.id for o in self.context.options]
        if not self.config.shuffled_options:
            return ids
        return drawn_order(
            ids, self.context.question_text, *(o.label + o.description for o in self.context.options), seat_id
        )

    # planning

    def plan(self) -> Step | None:
        st = self.state
        if st.stopped or st.settled or st.rounds_done >= self.config.rounds_run:
            return None
        round_no = st.rounds_done + 1
        calls = [self._call(seat, round_no) for seat in st.active]
        return Step(round_no, calls, first=round_no == 1, quorum=2)

    def _call(self, seat: Seat, round_no: int) -> Call[StanceReply]:
        rules = self._rules(seat, round_no)
        return Call(
            seat,
            self._prompt(seat, round_no),
            f"r{round_no}/{seat.id}",
            "judge",
            lambda text: parse_stance_reply(text, rules),
            lambda reason: PROMPTS.render("clarify.j2", reason=reason, options=self.context.options),
            lambda reply: {"summary": f"recommends {reply.recommendation}"},
        )

    def _file_label(self, seat_id: str, round_no: int) -> str:
        """Where a judge's round is for people: its file, or (with no files) its name in the store."""
        qid = self.context.question_id
        if self.request.files_dir:
            return str(round_file_path(self.request.files_dir, qid, seat_id, round_no))
        return f"{round_file_name(qid, seat_id, round_no)} (kept in the moot store)"

    def _prompt(self, seat: Seat, round_no: int) -> Prompt:
        if round_no == 1:
            text = PROMPTS.render("round_1.j2", **self._common(seat, round_no))
        else:
            text = self._response_text(seat, round_no)
        schema = decide_reply_schema(
            [o.id for o in self.context.options],
            round_no=round_no,
            others=self._others(seat, round_no),
        )
        return Prompt(
            system=self.systems[seat.id],
            messages=[Message(role="user", content=text)],
            json_schema=schema,
            max_tokens=None if round_no == 1 else RESPONSE_MAX_TOKENS,
            meta={"round": round_no, "kind": "judge", "seat": seat.id},
        )

    def _common(self, seat: Seat, round_no: int) -> dict[str, Any]:
        """What every round's prompt restates: the stance (every round, against sycophancy) and the task."""
        stance = stance_of(seat)
        return {
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
            "drawn_options": [{o.id: o for o in self.context.options}[i] for i in self.option_orders[seat.id]],
            "file": self._file_label(seat.id, round_no),
            "example": decide_reply_example(
                [o.id for o in self.context.options],
                round_no=round_no,
                seat=seat.id,
                stance=seat.stance,
                others=self._others(seat, round_no),
            ),
        }

    def _others(self, seat: Seat, round_no: int) -> list[str]:
        """The judges a reply of this round challenges: the other active ones, from round 2 on."""
        return [s.id for s in self.state.active if s.id != seat.id] if round_no > 1 else []

    def _response_text(self, seat: Seat, round_no: int) -> str:
        """Round 2 and later: every active judge's last reply in full, its own included, in seat order.

        The reports come first and read the same for every judge of the round (the prefix that vendors'
        prompt caches serve to all of them); who the judge is, which report is its own and whom it
        challenges come after them.
        """
        st, before = self.state, round_no - 1
        reports = [
            {
                "judge": s.id,
                "stance": s.stance,
                "recommendation": st.latest(s.id),
                "file": self._file_label(s.id, before),
                "text": st.texts[s.id][before],
                "ungrounded": st.ungrounded_risks(s.id),
            }
            for s in st.active
        ]
        return PROMPTS.render(
            "round_2.j2",
            **self._common(seat, round_no),
            previous=st.latest(seat.id),
            own_file=self._file_label(seat.id, before),
            reports=reports,
            others=[s.id for s in st.active if s.id != seat.id],
            dropped=[f"{sid} ({reason})" for sid, (_, reason) in st.dropped.items()],
            require_change_reason=self.config.require_change_documentation,
        )

    def _rules(self, seat: Seat, round_no: int) -> ReplyRules:
        others = self._others(seat, round_no)
        return ReplyRules(
            judge=seat.id,
            round_no=round_no,
            options=self.context.options,
            previous=self.state.latest(seat.id) if round_no > 1 else None,
            others=others,
            require_challenge=round_no > 1,
            require_change_reason=self.config.require_change_documentation,
            shown=self.shown,
        )

    # absorbing

    def absorb(self, step: Step, answers: Sequence[Answer[Any]]) -> Outcome:
        round_no = step.round
        # settled before the state changes: the rules are those the calls were planned with
        judged = [self._judge(c.seat, a, round_no) for c, a in zip(step.calls, answers, strict=True)]
        outcome = Outcome(go_on=True, events=[_answered(j, round_no) for j in judged if _settled(j)])
        self.state.rounds_done = round_no
        self._drop_failed(judged, round_no, outcome)
        if len(self.state.active) < 2:
            outcome.go_on = False  # the runner aborts the debate: fewer than two judges left
            return outcome
        outcome.abort = _too_few_usable(judged, self.state.dropped, round_no)
        if outcome.abort is not None:
            outcome.go_on = False
            return outcome
        tally = self._count(judged, round_no, outcome)
        outcome.go_on = not tally.reached
        return outcome

    def _judge(self, seat: Seat, answer: Answer[StanceReply], round_no: int) -> Judged:
        judged = Judged(seat, answer)
        if answer.value is not None:
            judged.reply, judged.recommendation = answer.value, answer.value.recommendation
        elif answer.status == "unparsed":
            self._settle_unparsed(judged, self._rules(seat, round_no))
        return judged

    def _settle_unparsed(self, judged: Judged, rules: ReplyRules) -> None:
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

    def _drop_failed(self, judged: Sequence[Judged], round_no: int, outcome: Outcome) -> None:
        """Only a judge that timed out or failed is dropped (seed: continue without it); an unusable reply is not."""
        st = self.state
        failed = [j for j in judged if j.answer.status in ("timeout", "error")]
        for j in failed:
            reason = f"{j.answer.status}: {j.answer.reason}"
            st.dropped[j.seat.id] = (round_no, reason)
            outcome.dropped[j.seat.id] = reason
        st.active = [s for s in st.active if s.id not in st.dropped]
        outcome.active = len(st.active)
        for j in failed:
            what = "timed out" if j.answer.status == "timeout" else f"failed ({j.answer.reason})"
            st.notes.append(
                f"{stance_of(j.seat).title} judge {what} in round {round_no} - "
                f"only {len(st.active)} perspectives available"
            )

    def _count(self, judged: Sequence[Judged], round_no: int, outcome: Outcome) -> OptionConsensus:
        """Fold the answering judges into the state, log the changes, and check for consensus."""
        st = self.state
        previous = {s.id: st.latest(s.id) for s in st.active}
        current: dict[str, str | None] = {}
        reasons: dict[str, str] = {}
        for j in judged:
            if j.seat.id in st.dropped:
                continue
            current[j.seat.id] = j.recommendation
            if j.reply is not None:
                reasons[j.seat.id] = j.reply.change_reason
            self._keep(j, round_no, outcome)
        if round_no > 1:
            st.change_log += changes(previous, current, reasons, round_no)
        tally = check_consensus(current, self.context.option_ids, self.config.consensus_threshold)
        st.tallies[round_no] = tally
        self._tally_out(tally, current, outcome)
        return tally

    def _keep(self, j: Judged, round_no: int, outcome: Outcome) -> None:
        st, sid = self.state, j.seat.id
        st.recommendations.setdefault(sid, {})[round_no] = j.recommendation
        st.texts.setdefault(sid, {})[round_no] = j.answer.text
        st.answered_by[sid] = j.answer.answered_by or st.answered_by.get(sid, "")
        if j.reply is not None:
            st.counted[sid] = _carry_perspective(st.counted.get(sid), j.reply)
            if j.recommendation is not None:
                st.confidences.setdefault(sid, {})[round_no] = j.reply.confidence
        if j.note:
            st.notes.append(j.note)
            outcome.events.append(Event("note", round_no, sid, {"text": j.note}))
        outcome.records.append(
            DecideRoundRecord(
                judge=sid,
                title=stance_of(j.seat).title,
                model=j.answer.answered_by or j.seat.label,
                round=round_no,
                question=self.context.question_text,
                reply=j.reply if j.recommendation is not None else None,
                text=j.answer.text,
                note=j.note,
            )
        )

    def _tally_out(self, tally: OptionConsensus, current: dict[str, str | None], outcome: Outcome) -> None:
        """The round as the store keeps it (`RoundTally`) and as progress shows it."""
        summary = RoundTally(
            recommendations=current,
            distribution=tally.distribution,
            consensus=tally.reached,
            option=tally.option if tally.reached else None,
            share=tally.share,
            answered=tally.answered,
        )
        outcome.round_record = summary.model_dump(mode="json")
        outcome.round_finished = {
            "consensus": tally.reached,
            "summary": f"{tally.share:.0%} on {tally.option}",
            "reasons": [tally.describe(self.config.consensus_threshold)],
        }

    # the end

    def stopped(self, step: Step, reason: str) -> None:
        self.state.stopped = True
        self.state.notes.append(f"{reason}; the outcome is from the {step.round - 1} round(s) done")

    def rehearse(self, call: Call[Any], tokens: int) -> Answer[Any]:
        """Each judge on an option of its own, so that no round reaches consensus and every round is priced
        (one voice is never consensus); a judge beyond the last option gives no usable recommendation."""
        text = "x" * 4 * max(1, tokens)
        position = [s.id for s in self.seats].index(call.seat.id)
        if position >= len(self.context.options):
            return Answer(None, text, "unparsed", "a placeholder reply")
        option = self.context.options[position].id
        round_no = int(call.prompt.meta.get("round", 1))
        return Answer(StanceReply(judge=call.seat.id, round=round_no, recommendation=option), text, "ok")

    def result(self, spend: Spend) -> DecisionResult:
        result = build_result(self.request, self.seats, self.state, self.debate_id)
        result.spend = spend
        if self.config.shuffled_options:
            result.option_orders = dict(self.option_orders)
        return result


def _too_few_usable(judged: Sequence[Judged], dropped: dict[str, Any], round_no: int) -> str | None:
    """Why the debate cannot go on when fewer than two judges gave a usable recommendation this round.

    One voice (or none) can neither agree nor disagree, so a CONTESTED verdict would be false: like an
    evaluation left with fewer than two judges, the debate ends with exit 3, naming each unusable reply.
    """
    kept = [j for j in judged if j.seat.id not in dropped]
    usable = [j for j in kept if j.recommendation is not None]
    if len(usable) >= 2:
        return None
    why = "; ".join(f"{j.seat.id}: {j.answer.reason or j.answer.status}" for j in kept if j.recommendation is None)
    return f"fewer than two judges gave a usable recommendation in round {round_no} ({why})"


def _settled(j: Judged) -> bool:
    """A reply that counts only after settling (the runner announces parsed replies itself)."""
    return j.answer.value is None and j.recommendation is not None


def _answered(j: Judged, round_no: int) -> Event:
    data = {"summary": f"recommends {j.recommendation}", "clarified": j.answer.clarified}
    return Event("judge_answered", round_no, j.seat.id, data)


def _carry_perspective(before: StanceReply | None, now: StanceReply) -> StanceReply:
    """A judge that keeps its recommendation without restating why keeps the reason it gave before."""
    if now.perspective or now.rationale or before is None or before.recommendation != now.recommendation:
        return now
    return now.model_copy(update={"perspective": before.perspective, "rationale": before.rationale})

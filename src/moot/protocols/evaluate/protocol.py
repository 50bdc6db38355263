"""The scored multi-judge debate (seeds 000, 001, 003) as steps over `DebateState`.

    round 1  independent analysis, all judges at once, none sees another
    check    overall range, per-criterion range, CRITICAL findings (and, optionally, explicit acceptance)
    round 2  rebuttal: each judge reads the others' latest positions and its own, may revise
    check
    round 3  final positions                                       (up to --max-rounds; default 3)
    verdict  consensus (mean) | majority (minority documented) | forced (median, for a person)
    synthesis by the moderator when configured (one more step), else by the engine; numbers from the engine

Exactly one call per active judge per round, plus one per clarification, plus one for the moderator.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from moot.grounding import sources
from moot.protocol import Answer, Call, Message, Outcome, Prompt, Seat, Spend, Step, Templates, reply_schema
from moot.protocols.evaluate.hardening import letters, order_seed, report_order, unsupported
from moot.protocols.evaluate.locations import check, shown_map
from moot.protocols.evaluate.moderator import moderator_call, moderator_reserve
from moot.protocols.evaluate.parsing import parse_scored_reply
from moot.protocols.evaluate.replies import phase_example, phase_model
from moot.protocols.evaluate.result import build_result, verdict_result
from moot.protocols.evaluate.rubric import placeholder, rubric_call
from moot.protocols.evaluate.rules import check_consensus, finding_states, spread
from moot.protocols.evaluate.schemas import (
    EvaluationRequest,
    EvaluationResult,
    JudgeRoundRecord,
    RoundSummary,
    ScoredPosition,
)
from moot.protocols.evaluate.state import DebateState
from moot.protocols.evaluate.task_rubric import Rubric
from moot.schemas.events import Event

PROMPTS = Templates(Path(__file__).parent / "templates")

STANCE_PROMPTS = {
    "neutral": "Evaluate objectively, weighing all factors equally",
    "for": "Advocate for this plan's strengths while acknowledging weaknesses",
    "against": "Challenge this plan. Find weaknesses and risks others might miss.",
}

DEFAULT_JUDGES = [
    {"model": "gemini-3-pro-preview", "stance": "neutral", "stance_prompt": STANCE_PROMPTS["neutral"]},
    {"model": "gpt-5.2", "stance": "for", "stance_prompt": STANCE_PROMPTS["for"]},
    {"model": "grok-4", "stance": "against", "stance_prompt": STANCE_PROMPTS["against"]},
]


# The output bound a phase's reply needs, for a judge that sets no `max_tokens` of its own (`Engine.call_bound`;
# a judge's own bound always wins): the longest reply its schema allows (a rebuttal about 4,400 tokens, a final
# position about 2,800) and room for a reasoning model's thinking. Round 1, which reads and scores the whole
# artifact and checks itself five times, keeps the default bound.
PHASE_MAX_TOKENS = {"rebuttal": 6144, "final": 4096}


class Evaluation:
    """One run (or resumed run) of the scored evaluation."""

    name = "evaluate"
    final_name = "synthesis"  # the moderator's synthesis

    def __init__(
        self,
        request: EvaluationRequest,
        seats: Sequence[Seat],
        debate_id: str,
        *,
        moderator: Seat | None = None,
        rubric_writer: Seat | None = None,
    ) -> None:
        self.request = request
        self.debate_id = debate_id
        self.moderator = moderator
        self.rubric_writer = rubric_writer  # `--criteria auto`: who writes the rubric before round 1
        self.rubric: Rubric | None = None
        self.state = DebateState(active=list(seats))
        self.seats = list(seats)
        self.shown = shown_map(request.artifacts)  # what a finding's file:line is checked against
        self.sources = sources(request.artifacts, task=request.task)  # what a finding's quote is checked against
        self.state.grounding = request.consensus.grounding
        self.letters = letters([s.id for s in self.seats])
        self.order_seed = order_seed([(a.path, a.text) for a in request.artifacts], request.task)
        self.system = self._system()

    def _system(self) -> str:
        """The judges' shared system prompt: rules, task, criteria (and a written rubric's anchors), artifact."""
        return PROMPTS.render(
            "system.j2",
            judge_count=len(self.seats),
            task=self.request.task or "(no task description given)",
            criteria=self.request.criteria,
            rubric=self.rubric,
            artifacts=self.request.artifacts,
        )

    # planning

    def plan(self) -> Step | None:
        if self.request.criteria_auto and self.rubric is None and self.rubric_writer is not None:
            call = rubric_call(self.rubric_writer, PROMPTS, self.request.task, list(self.request.artifacts))
            return Step(0, [call], phase="rubric", first=True)
        st = self.state
        ended = st.stopped or st.consensus_at is not None or st.rounds_done >= self.request.rounds_allowed
        if not ended:
            round_no = st.rounds_done + 1
            calls = [self._call(seat, round_no) for seat in st.active]
            reserve = [moderator_reserve(self.moderator, self.system, st.active)] if self.moderator else []
            return Step(round_no, calls, first=round_no == 1, reserve=reserve, quorum=2)
        if self.moderator is not None and not st.moderated and st.rounds_done:
            base = verdict_result(self.request, self.seats, st, self.debate_id)
            return Step(0, [moderator_call(self.moderator, base, st)], gated=False)
        return None

    def _call(self, seat: Seat, round_no: int) -> Call[ScoredPosition]:
        st, r = self.state, self.request
        previous = st.latest(seat) if round_no > 1 else None
        must_answer = [f for f in st.unresolved() if f.raised_by != seat.id] if round_no > 1 else []
        if not r.consensus.critical_finding_agreement:
            must_answer = []

        def parse(text: str) -> ScoredPosition:
            return parse_scored_reply(
                text,
                judge=seat.id,
                round_no=round_no,
                criteria=r.criteria,
                previous=previous,
                must_answer=must_answer,
                earlier=r.earlier if round_no == 1 else None,
                shown=self.sources,
                ask_for_quotes=r.consensus.grounding,
            )

        return Call(
            seat,
            self._prompt(seat, round_no),
            f"r{round_no}/{seat.id}",
            "judge",
            parse,
            lambda reason: PROMPTS.render("clarify.j2", reason=reason),
            lambda p: {"score": p.overall_score},
        )

    def _prompt(self, seat: Seat, round_no: int) -> Prompt:
        r = self.request
        common = {
            "number": seat.number,
            "seat": seat.id,
            "stance": seat.stance,
            "stance_prompt": seat.stance_prompt,
            "round": round_no,
            "max_rounds": r.rounds_allowed,
            "criteria": r.criteria,
            "require_acceptance": r.consensus.require_explicit_acceptance,
        }
        open_findings = self.state.unresolved() if round_no > 1 else []
        final = round_no == r.rounds_allowed and round_no >= 3
        phase = "round_1" if round_no == 1 else "final" if final else "rebuttal"
        earlier_ids = [i.id for i in r.earlier.items] if r.earlier and round_no == 1 else []
        model = phase_model(
            phase,
            [c.key for c in r.criteria],
            open_findings=[(f.id, f.raised_by == seat.id) for f in open_findings],
            require_acceptance=r.consensus.require_explicit_acceptance,
            earlier_ids=earlier_ids,
        )
        if round_no == 1:
            example = phase_example(model, {})
            text = PROMPTS.render("round_1.j2", **common, earlier=r.earlier, example=example)
        else:
            previous = self.state.latest(seat)
            values: dict[str, Any] = {} if final else {"critical_findings": []}
            text = PROMPTS.render(
                "round_3.j2" if final else "round_2.j2",
                **common,
                final=final,
                previous=previous,
                reports=self._reports(seat, round_no),
                own_label=self._label(seat.id),
                labels={s.id: self._label(s.id) for s in self.seats},
                anonymous=r.consensus.anonymous_reports,
                shuffled=r.consensus.shuffled_reports,
                open_findings=open_findings,
                example=phase_example(model, values),
            )
        schema = reply_schema(model)
        return Prompt(
            system=self.system,
            messages=[Message(role="user", content=text)],
            json_schema=schema,
            max_tokens=PHASE_MAX_TOKENS.get(phase),
            meta={"round": round_no, "kind": "judge", "seat": seat.id, "phase": phase},
        )

    def _label(self, seat_id: str) -> str:
        """How a judge is named to the others: its letter (anonymous reports), else its seat id."""
        return self.letters[seat_id] if self.request.consensus.anonymous_reports else seat_id

    def _reports(self, seat: Seat, round_no: int) -> list[dict[str, Any]]:
        """The other active judges' latest replies (the judge's own is not shown again: its scores are in its own
        part), under a letter and its stance (never its model), in the order drawn for this judge and round
        (`hardening.report_order`), recorded in the result. With both rules off: seat ids in seat order."""
        st, consensus = self.state, self.request.consensus
        active = {s.id: s for s in st.active}
        drawn = report_order(self.order_seed, seat.id, round_no, list(active), shuffled=consensus.shuffled_reports)
        order = [i for i in drawn if i != seat.id]
        if consensus.anonymous_reports or consensus.shuffled_reports:
            st.report_orders[f"r{round_no}/{seat.id}"] = [self._label(i) for i in order]
        return [
            {
                "judge": self._label(i),
                "stance": active[i].stance,
                "overall_score": st.latest(active[i]).overall_score,
                "text": st.texts[i][-1],
            }
            for i in order
        ]

    # absorbing

    def absorb(self, step: Step, answers: Sequence[Answer[Any]]) -> Outcome:
        if step.phase == "rubric":
            return self._absorb_rubric(answers[0])
        if step.round == 0:
            return self._absorb_moderator(answers[0])
        st = self.state
        st.rounds_done = step.round
        outcome = Outcome(go_on=True)
        for call, answer in zip(step.calls, answers, strict=True):
            if answer.value is None:
                self._drop(call.seat, step.round, f"{answer.status}: {answer.reason}", outcome)
                continue
            outcome.records.append(self._keep(call.seat, answer.value, answer))
        outcome.active = len(st.active)
        if len(st.active) >= 2:
            summary = self._check(step.round)
            st.progression[f"round_{step.round}"] = summary
            outcome.round_record = outcome.round_finished = summary.model_dump(mode="json")
            if summary.consensus:
                st.consensus_at = step.round
        return outcome

    def _drop(self, seat: Seat, round_no: int, reason: str, outcome: Outcome) -> None:
        st = self.state
        st.dropped[seat.id] = (round_no, reason)
        st.active = [s for s in st.active if s.id != seat.id]
        st.notes.append(f"{seat.id} ({seat.label}) dropped in round {round_no}: {reason}")
        outcome.dropped[seat.id] = reason

    def _keep(self, seat: Seat, position: ScoredPosition, answer: Answer[Any]) -> JudgeRoundRecord:
        st = self.state
        history = st.positions.setdefault(seat.id, [])
        previous = history[-1] if history else None
        history.append(position)
        st.texts.setdefault(seat.id, []).append(answer.text)
        st.answered_by[seat.id] = answer.answered_by or st.answered_by.get(seat.id, "")
        for item in [*position.raised, *position.key_claims]:
            check(item, self.shown)
        st.register_findings(position)
        if previous is not None and self.request.consensus.changes_need_support:
            self._support(seat, previous, position)
        return JudgeRoundRecord(
            number=seat.number,
            model=seat.label,
            stance=seat.stance,
            position=position,
            previous=previous,
            text=answer.text,
        )

    def _support(self, seat: Seat, previous: ScoredPosition, position: ScoredPosition) -> None:
        """A changed score that names neither a grounded finding nor another judge is listed (`hardening`)."""
        st = self.state
        grounded = [f.id for f in st.blocking()]
        others = [name for s in self.seats if s.id != seat.id for name in (self.letters[s.id], s.id)]
        before, after = previous.overall_score, position.overall_score
        if unsupported(before, after, position.moved_by, grounded, others):
            st.unsupported.append({"judge": seat.id, "round": position.round, "from": before, "to": after})

    def _check(self, round_no: int) -> RoundSummary:
        st, r = self.state, self.request
        latest = [st.latest(s) for s in st.active]
        states = finding_states(st.blocking(), st.responses, [s.id for s in st.active])
        check = check_consensus(latest, r.criteria, r.consensus, states)
        scores = [p.overall_score for p in latest]
        return RoundSummary(
            scores=scores,
            by_judge={p.judge: p.overall_score for p in latest},
            range=spread(scores),
            consensus=check.reached,
            reasons=check.reasons,
            dimension_ranges=check.dimension_ranges,
            dimension_scores={p.judge: dict(p.dimension_scores) for p in latest},
        )

    def _absorb_rubric(self, answer: Answer[Any]) -> Outcome:
        """The written rubric becomes the debate's criteria and joins every judge's system prompt; shown once."""
        if answer.value is None:
            return Outcome(go_on=False, abort=f"the rubric (--criteria auto) could not be written: {answer.reason}")
        self.rubric = answer.value
        self.request = self.request.model_copy(update={"criteria": self.rubric.as_criteria()})
        self.system = self._system()
        events = [Event("note", 0, data={"text": line}) for line in self.rubric.lines()]
        return Outcome(go_on=True, events=events, records=[self.rubric])

    def _absorb_moderator(self, answer: Answer[Any]) -> Outcome:
        st = self.state
        st.moderated = True
        st.moderator_reply = answer.value
        st.moderator_error = "" if answer.value is not None else answer.reason
        return Outcome(go_on=False)

    def stopped(self, step: Step, reason: str) -> None:
        self.state.stopped = True
        self.state.notes.append(f"{reason}; the verdict is from the {step.round - 1} round(s) done")

    def rehearse(self, call: Call[Any], tokens: int) -> Answer[Any]:
        """Scores far apart (so that every round is needed), replies of the given size."""
        if call.kind == "rubric":
            return placeholder(tokens)
        text = "x" * 4 * max(1, tokens)
        if call.kind == "moderator":
            return Answer({"majority_opinion": text}, text, "ok")
        score = 5.0 if call.seat.number % 2 else 1.0
        round_no = int(call.prompt.meta.get("round", 1))
        dims = {c.key: score for c in self.request.criteria}
        position = ScoredPosition(judge=call.seat.id, round=round_no, overall_score=score, dimension_scores=dims)
        return Answer(position, text, "ok")

    def result(self, spend: Spend) -> EvaluationResult:
        label = self.moderator.label if self.moderator else ""
        result = build_result(self.request, self.seats, self.state, self.debate_id, moderator_label=label)
        result.spend = spend
        result.rubric = self.rubric
        return result

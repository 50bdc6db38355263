"""The scored multi-judge debate (seeds 000, 001, 003) as a state machine of rounds.

    round 1  independent analysis, all judges at once, none sees another
    check    overall range, per-criterion range, CRITICAL findings (and, optionally, explicit acceptance)
    round 2  rebuttal: each judge reads the others' latest positions and its own, may revise
    check
    round 3  final positions                                       (up to --max-rounds; default 3)
    verdict  consensus (mean) | majority (minority documented) | forced (median, for a person)
    synthesis by the moderator when configured, else by the engine; numbers always from the engine

Exactly one call per active judge per round, plus one per clarification, plus one for the moderator.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from moot.consensus.evaluate import (
    RESOLVED_STATES,
    check_consensus,
    decide_verdict,
    finding_states,
    spread,
)
from moot.engine import Answer, Engine, Event, ask
from moot.engine.spend import spend_from_calls
from moot.errors import DebateAborted
from moot.judges.base import Seat
from moot.parsing.evaluate import parse_scored_reply
from moot.prompts import render
from moot.protocols.common import concurrently
from moot.protocols.evaluate_result import engine_synthesis, moderator_synthesis
from moot.reports.judge_files import JudgeReports
from moot.schemas.evaluate import (
    CriticalFinding,
    CriticalResponse,
    EvaluationRequest,
    EvaluationResult,
    JudgeOutcome,
    RoundSummary,
    ScoredPosition,
    Summary,
)
from moot.schemas.messages import Message, Prompt
from moot.schemas.reply_schemas import evaluate_reply_schema

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


@dataclass
class DebateState:
    """What the debate knows after each round. Plain data; the round functions below update it."""

    active: list[Seat]
    positions: dict[str, list[ScoredPosition]] = field(default_factory=dict)
    texts: dict[str, list[str]] = field(default_factory=dict)
    dropped: dict[str, tuple[int, str]] = field(default_factory=dict)
    answered_by: dict[str, str] = field(default_factory=dict)
    findings: list[CriticalFinding] = field(default_factory=list)
    responses: dict[str, dict[str, CriticalResponse]] = field(default_factory=dict)
    progression: dict[str, RoundSummary] = field(default_factory=dict)
    consensus_at: int | None = None
    notes: list[str] = field(default_factory=list)

    def latest(self, seat: Seat) -> ScoredPosition:
        return self.positions[seat.id][-1]

    def states(self) -> dict[str, str]:
        return dict(finding_states(self.findings, self.responses, [s.id for s in self.active]))

    def unresolved(self) -> list[CriticalFinding]:
        states = self.states()
        return [f for f in self.findings if states[f.id] not in RESOLVED_STATES]


class Evaluation:
    """One run (or resumed run) of the scored evaluation."""

    def __init__(
        self,
        request: EvaluationRequest,
        seats: Sequence[Seat],
        engine: Engine,
        *,
        moderator: Seat | None = None,
        reports: JudgeReports | None = None,
    ) -> None:
        self.request = request
        self.engine = engine
        self.moderator = moderator
        self.reports = reports
        self.state = DebateState(active=list(seats))
        self.seats = list(seats)
        self.system = render(
            "evaluate/system.j2",
            judge_count=len(seats),
            task=request.task or "(no task description given)",
            criteria=request.criteria,
            artifacts=request.artifacts,
        )

    # prompts

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
        if round_no == 1:
            text = render("evaluate/round_1.j2", **common)
            phase = "round_1"
        else:
            others = [
                {
                    "judge": s.id,
                    "stance": s.stance,
                    "overall_score": self.state.latest(s).overall_score,
                    "text": self.state.texts[s.id][-1],
                }
                for s in self.state.active
                if s.id != seat.id
            ]
            final = round_no == r.rounds_allowed and round_no >= 3
            phase = "final" if final else "rebuttal"
            text = render(
                "evaluate/round_3.j2" if final else "evaluate/round_2.j2",
                **common,
                previous=self.state.latest(seat),
                own_report=self.state.texts[seat.id][-1],
                others=others,
                open_findings=open_findings,
            )
        schema = evaluate_reply_schema(
            [c.key for c in r.criteria],
            phase=phase,
            open_findings=[(f.id, f.raised_by == seat.id) for f in open_findings],
            require_acceptance=r.consensus.require_explicit_acceptance,
        )
        return Prompt(
            system=self.system,
            messages=[Message(role="user", content=text)],
            json_schema=schema,
            meta={"round": round_no, "kind": "judge", "seat": seat.id},
        )

    # one round

    async def _ask(self, seat: Seat, round_no: int) -> tuple[Seat, Answer[ScoredPosition]]:
        previous = self.state.latest(seat) if round_no > 1 else None
        must_answer = [f for f in self.state.unresolved() if f.raised_by != seat.id] if round_no > 1 else []
        if not self.request.consensus.critical_finding_agreement:
            must_answer = []
        answer = await ask(
            self.engine,
            seat,
            self._prompt(seat, round_no),
            lambda text: parse_scored_reply(
                text,
                judge=seat.id,
                round_no=round_no,
                criteria=self.request.criteria,
                previous=previous,
                must_answer=must_answer,
            ),
            key=f"r{round_no}/{seat.id}",
            round_no=round_no,
            kind="judge",
            clarify=lambda reason: render("evaluate/clarify.j2", reason=reason),
        )
        if answer.value is not None:
            self.engine.emit(
                Event(
                    "judge_answered",
                    round_no,
                    seat.id,
                    {"score": answer.value.overall_score, "clarified": answer.clarified},
                )
            )
        return seat, answer

    async def _round(self, round_no: int) -> RoundSummary:
        st = self.state
        self.engine.emit(Event("round_started", round_no, data={"judges": [s.id for s in st.active]}))
        results = await concurrently([self._ask(seat, round_no) for seat in st.active])
        for seat, answer in results:
            if answer.value is None:
                reason = f"{answer.status}: {answer.reason}"
                st.dropped[seat.id] = (round_no, reason)
                st.active = [s for s in st.active if s.id != seat.id]
                st.notes.append(f"{seat.id} ({seat.label}) dropped in round {round_no}: {reason}")
                self.engine.emit(Event("judge_dropped", round_no, seat.id, {"reason": reason}))
                continue
            position = answer.value
            st.positions.setdefault(seat.id, []).append(position)
            st.texts.setdefault(seat.id, []).append(answer.text)
            st.answered_by[seat.id] = answer.answered_by or st.answered_by.get(seat.id, "")
            self._register_findings(position)
        if len(st.active) < 2:
            raise DebateAborted(
                f"fewer than two judges left after round {round_no}: "
                + "; ".join(f"{k}: {v[1]}" for k, v in st.dropped.items())
            )
        latest = [st.latest(s) for s in st.active]
        states = finding_states(st.findings, st.responses, [s.id for s in st.active])
        check = check_consensus(latest, self.request.criteria, self.request.consensus, states)
        scores = [p.overall_score for p in latest]
        summary = RoundSummary(
            scores=scores,
            by_judge={p.judge: p.overall_score for p in latest},
            range=spread(scores),
            consensus=check.reached,
            reasons=check.reasons,
            dimension_ranges=check.dimension_ranges,
            dimension_scores={p.judge: dict(p.dimension_scores) for p in latest},
        )
        if self.reports is not None:
            for seat in st.active:
                if st.positions[seat.id][-1].round == round_no:
                    self.reports.write_round(seat, st.positions[seat.id][-1], st.texts[seat.id][-1], self)
        return summary

    def _budget_stop(self, round_no: int) -> str | None:
        """Ask the engine whether the round fits the budget (--max-cost, wall clock), moderator included."""
        planned = [(s, self._prompt(s, round_no), f"r{round_no}/{s.id}") for s in self.state.active]
        reserve = []
        if self.moderator is not None:  # the synthesis reads every judge's latest reply
            per_judge = max(self.engine.output_bound(s) for s in self.state.active)
            reserve.append((self.moderator, len(self.system) // 4 + per_judge * len(self.state.active)))
        return self.engine.round_gate(round_no, planned, reserve)

    def _register_findings(self, position: ScoredPosition) -> None:
        st = self.state
        known = {f.id for f in st.findings}
        mine = st.responses.setdefault(position.judge, {})
        for fid, resp in position.critical_responses.items():
            if fid in known:
                mine[fid] = resp
        for raised in position.raised:
            fid = f"C{len(st.findings) + 1}"
            st.findings.append(
                CriticalFinding(
                    id=fid,
                    finding=raised.finding,
                    evidence=raised.evidence,
                    raised_by=position.judge,
                    round=position.round,
                )
            )

    # the whole debate

    async def run(self) -> EvaluationResult:
        t0 = time.monotonic()
        r = self.request
        st = self.state
        for round_no in range(1, r.rounds_allowed + 1):
            stop = self._budget_stop(round_no)
            if stop is not None:
                if round_no == 1:
                    raise DebateAborted(stop)
                st.notes.append(f"{stop}; the verdict is from the {round_no - 1} round(s) done")
                break
            summary = await self._round(round_no)
            st.progression[f"round_{round_no}"] = summary
            self.engine.store.record_round(self.engine.debate_id, round_no, summary.model_dump(mode="json"))
            self.engine.emit(Event("round_finished", round_no, data=summary.model_dump(mode="json")))
            if summary.consensus:
                st.consensus_at = round_no
                break
        result = self._verdict()
        result = await self._synthesise(result)
        calls = self.engine.store.calls(self.engine.debate_id)
        result.spend = spend_from_calls(calls, wall_seconds=time.monotonic() - t0)
        if self.reports is not None:
            result.reports = self.reports.write_consensus(result)
        return result

    def _verdict(self) -> EvaluationResult:
        r, st = self.request, self.state
        final = {s.id: st.latest(s).overall_score for s in st.active}
        states = st.states()
        critical_accepted = any(v == "agreed" for v in states.values())
        d = decide_verdict(
            final,
            consensus_reached=st.consensus_at is not None,
            settings=r.consensus,
            thresholds=r.thresholds,
            critical_accepted=critical_accepted,
        )
        last = st.progression[f"round_{len(st.progression)}"]
        if d.method == "majority":
            last.majority_score, last.minority_score = d.majority_score, d.minority_score
        judges = []
        for seat in self.seats:
            pos = st.positions.get(seat.id)
            dropped = st.dropped.get(seat.id)
            judges.append(
                JudgeOutcome(
                    judge=seat.id,
                    number=seat.number,
                    model=seat.label,
                    answered_by=st.answered_by.get(seat.id, ""),
                    stance=seat.stance,
                    status=f"dropped: {dropped[1]}" if dropped else "ok",
                    dropped_in_round=dropped[0] if dropped else None,
                    final_score=pos[-1].overall_score if pos and not dropped else None,
                    final_scores=dict(pos[-1].dimension_scores) if pos and not dropped else {},
                )
            )
        findings = [
            {**f.model_dump(), "state": states.get(f.id, "open"), "responses": self._responses_to(f)}
            for f in st.findings
        ]
        return EvaluationResult(
            debate_id=self.engine.debate_id,
            artifact_evaluated=", ".join(a.path for a in r.artifacts),
            task=r.task,
            rounds_completed=len(st.progression),
            consensus_reached=st.consensus_at is not None,
            consensus_reached_at=st.consensus_at,
            summary=Summary(
                final_verdict=d.verdict,
                consensus_score=d.score,
                score_range=[min(final.values()), max(final.values())],
                consensus_method=d.method,
                confidence=d.confidence,
            ),
            round_progression=st.progression,
            verdict_type=d.verdict_type,
            majority_score=d.majority_score,
            minority_score=d.minority_score,
            majority_judges=d.majority,
            minority_judges=d.minority,
            critical_findings=findings,
            criteria={c.key: round(c.weight, 4) for c in r.criteria},
            judges=judges,
            notes=list(st.notes),
        )

    def _responses_to(self, f: CriticalFinding) -> dict[str, str]:
        out = {f.raised_by: "raised"}
        for judge, resp in self.state.responses.items():
            if f.id in resp:
                out[judge] = resp[f.id]
        return out

    async def _synthesise(self, result: EvaluationResult) -> EvaluationResult:
        base = engine_synthesis(result, self.state, self.request)
        if self.moderator is None:
            return base
        return await moderator_synthesis(base, self.state, self.request, self.moderator, self.engine)

"""The position challenge (seed 004) as steps over `ChallengeState`.

    1  opening        the proponent states a position (v1), confidence, weaknesses, assumptions
    2  challenge      every challenger at once: verdict, objection strength, objections, reasoning
    3  check          fast exit (all agree / all partial-minor) or confrontation; the skepticism rule
    4  confrontation  the proponent answers each open objection ACCEPT / PARTIAL / REJECT -> v(N+1)
    5  rebuttal       the dissenters only: ACCEPT / MAINTAIN / ESCALATE
    6  iteration      all ACCEPT -> consensus; else back to 4 until max rounds
    7  assumptions    (no consensus) each party: why it disagrees, what would change its mind, assumptions
    8  output         CONSENSUS or TRADEOFF, with the position history v1..vN (pure: `challenge_result`)

Each of phases 1, 2, 4, 5 and 7 is one step of the runner. Round N holds phases 4 and 5 of that round
(round 1 also holds phases 1-3); phase 7 is the "final" step (round 0). Calls: 1 opening + one per usable
challenger; then per round 1 proponent call + one per dissenter; then, for a tradeoff, 1 + one per
remaining dissenter; plus one per clarification.

The budget gate runs only where a stop leaves something to conclude from: before the opening (with
every challenge held in reserve; a stop there fails the debate) and before each confrontation (with that
round's rebuttals and the tradeoff's assumption statements held in reserve, so they need no gate).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import moot.protocols.challenge.phases as phases
from moot.engine.core import Engine
from moot.grounding import sources
from moot.protocol import Answer, Call, Outcome, Seat, Spend, Step, tokens_of
from moot.protocols.challenge.calls import ChallengeCalls, input_tokens
from moot.protocols.challenge.result import challenge_output
from moot.protocols.challenge.schemas import (
    AssumptionStatement,
    Challenge,
    ChallengeRequest,
    ChallengeResult,
    Confrontation,
    Opening,
    Rebuttal,
)
from moot.protocols.challenge.state import ChallengeState

PROPONENT_PROMPT = "Defend a clear, well-reasoned position, and change it when an objection is right."
CHALLENGER_PROMPT = "Challenge the position: find its weaknesses, hidden assumptions and risks others might miss."


class PositionChallenge:
    """One run (or resumed run, or dry run) of the position challenge."""

    name = "challenge"
    final_name = "final"  # the assumption statements

    def __init__(self, request: ChallengeRequest, proponent: Seat, challengers: Sequence[Seat], debate_id: str) -> None:
        self.request = request
        self.proponent = proponent
        self.challengers = list(challengers)
        self.debate_id = debate_id
        self.state = ChallengeState(shown=sources(request.context, topic=request.topic))
        self.calls = ChallengeCalls.of(request, proponent)
        self._by_id = {s.id: s for s in self.challengers}

    # planning

    def plan(self) -> Step | None:
        st = self.state
        if st.phase == "opening":
            call = self.calls.opening()
            # the challenges carry an opening not yet written: each is priced at the opening prompt's size
            reserve = [(s, input_tokens(call.prompt)) for s in self.challengers]
            return Step(1, [call], phase="opening", first=True, reserve=reserve)
        if st.phase == "challenge":
            assert st.opening is not None, "the opening comes first"
            challenges = [self.calls.challenge(s, st.opening, st.quotable()) for s in self.challengers]
            return Step(1, challenges, phase="challenge", gated=False)
        if st.phase == "confrontation":
            return self._confrontation()
        if st.phase == "rebuttal":
            rebuttals = [self.calls.rebuttal(s, st) for s in self._dissenters()]
            return Step(st.round_no, rebuttals, phase="rebuttal", gated=False)
        if st.phase == "assumptions":
            parties = [self.proponent, *self._dissenters()]
            return Step(0, [self.calls.assumptions(s, st) for s in parties], phase="assumptions", gated=False)
        return None

    def _dissenters(self) -> list[Seat]:
        return [self._by_id[s] for s in self.state.dissenters]

    def _confrontation(self) -> Step:
        """The proponent's answer, gated with what must still fit after it: each dissenter's rebuttal (that
        prompt plus the answer, at the proponent's output bound) and the assumption statements a tradeoff
        would still need."""
        call = self.calls.confront(self.state)
        dissenters = self._dissenters()
        prompt_tokens = tokens_of(call.prompt.as_text())
        rebuttal_tokens = prompt_tokens + Engine.output_bound(self.proponent)
        reserve = [(s, rebuttal_tokens) for s in dissenters]
        reserve += [(s, prompt_tokens) for s in [self.proponent, *dissenters]]
        return Step(self.state.round_no, [call], phase="confrontation", reserve=reserve)

    # absorbing

    def absorb(self, step: Step, answers: Sequence[Answer[Any]]) -> Outcome:
        st = self.state
        phases.answered_by(st, step, answers)
        if step.phase == "opening":
            return phases.absorb_opening(st, self.proponent, answers[0])
        if step.phase == "challenge":
            return phases.absorb_challenges(st, step, answers, self.request.min_challengers)
        if step.phase == "confrontation":
            return phases.absorb_confrontation(st, self.proponent, answers[0])
        if step.phase == "rebuttal":
            return phases.absorb_rebuttals(st, step, answers, self.request.max_rounds)
        return phases.absorb_assumptions(st, step, answers)

    def stopped(self, step: Step, reason: str) -> Outcome | None:
        return phases.budget_stopped(self.state, reason)

    def rehearse(self, call: Call[Any], tokens: int) -> Answer[Any]:
        """The worst path: every challenger dissents with one objection per round, the proponent answers
        PARTIAL, every rebuttal MAINTAINs, to max rounds; then the assumption statements."""
        text = _text(tokens)
        value: Any
        if call.kind == "opening":
            value = Opening(position=_text(tokens // 2), reasoning=_text(tokens // 2), confidence="MEDIUM")
        elif call.kind == "challenge":
            value = Challenge(verdict="disagree", objection_strength="strong", objections=[text])
        elif call.kind == "confront":
            value = self._partial(tokens)
        elif call.kind == "rebuttal":
            value = Rebuttal(response="MAINTAIN", objections=[text])
        else:
            value = AssumptionStatement(why_disagree=text, what_would_change_my_mind=text, assumptions=[text])
        return Answer(value, text, "ok")

    def _partial(self, tokens: int) -> Confrontation:
        """Every objection answered PARTIAL, the reasons sharing half the reply, the position the other half."""
        ids = [o.id for o in self.state.in_play]
        share = _text(tokens // (2 * max(1, len(ids))))
        responses = [{"objection": oid, "decision": "PARTIAL", "reason": share} for oid in ids]
        reply = {"responses": responses, "position": _text(tokens // 2), "confidence": "MEDIUM"}
        return Confrontation.model_validate(reply, context={"objection_ids": ids})

    def result(self, spend: Spend) -> ChallengeResult:
        return challenge_output(
            self.request,
            self.state,
            debate_id=self.debate_id,
            proponent=self.proponent,
            challengers=self.challengers,
            spend=spend,
        )


def _text(tokens: int) -> str:
    return "x" * 4 * max(1, tokens)

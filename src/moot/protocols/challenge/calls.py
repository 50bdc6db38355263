"""The calls of the position challenge: who is asked what, how the reply is read, and what progress says.

Each prompt is rendered from the state at planning time, once; the budget gate, the real call and the
dry run all see that same prompt. Call keys are stable ("r2/challenger-1/rebuttal", "final/proponent/
assumptions"), so a resumed debate replays every call that had finished.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moot.engine.budget import CallCost, Scenario, scenario
from moot.grounding import Source
from moot.protocol import Call, Message, Prompt, Seat, Templates, tokens_of
from moot.protocols.challenge.parsing import (
    parse_assumptions,
    parse_challenge,
    parse_confrontation,
    parse_opening,
    parse_rebuttal,
)
from moot.protocols.challenge.replies import challenge_reply_schema as challenge_reply_schema
from moot.protocols.challenge.replies import reply_example_for
from moot.protocols.challenge.schemas import (
    AssumptionStatement,
    Challenge,
    ChallengeRequest,
    Confrontation,
    Opening,
    Rebuttal,
)
from moot.protocols.challenge.state import ChallengeState
from moot.schemas.reply_bounds import portable

PROMPTS = Templates(Path(__file__).parent / "templates")


def input_tokens(prompt: Prompt) -> int:
    """A prompt's input as the engine prices it (the reply schema counts too): for calls held in reserve."""
    schema = tokens_of(json.dumps(portable(prompt.json_schema))) if prompt.json_schema else 0
    return tokens_of(prompt.as_text()) + schema


def _clarify(reason: str) -> str:
    return PROMPTS.render("clarify.j2", reason=reason)


# What progress says once a reply is read (the "summary" of each judge_answered event).


def _opened(o: Opening) -> dict[str, Any]:
    return {"summary": f"position v1 (confidence {o.confidence})"}


def _challenged(c: Challenge) -> dict[str, Any]:
    return {"summary": f"{c.verdict} ({c.objection_strength})"}


def _answered(version: int) -> Callable[[Confrontation], dict[str, Any]]:
    def describe(c: Confrontation) -> dict[str, Any]:
        tally = ", ".join(f"{r.objection} {r.decision}" for r in c.responses) or "no objections"
        return {"summary": f"position v{version} ({tally})"}

    return describe


def _rebutted(r: Rebuttal) -> dict[str, Any]:
    return {"summary": r.response}


def _stated(a: AssumptionStatement) -> dict[str, Any]:
    return {"summary": f"{len(a.assumptions)} assumption(s)"}


# The output bound a challenger's rebuttal and its final statement of assumptions need, for a judge that sets
# no `max_tokens` of its own (`Engine.call_bound`; a judge's own bound always wins): their longest replies are
# under 800 tokens, the rest is room for a reasoning model's thinking. The other phases keep the default.
PHASE_MAX_TOKENS = {"rebuttal": 4096, "assumptions": 4096}


@dataclass(frozen=True)
class ChallengeCalls:
    """The prompts of one debate: its system prompt and the proponent are fixed when it starts."""

    request: ChallengeRequest
    proponent: Seat
    system: str

    @classmethod
    def of(cls, request: ChallengeRequest, proponent: Seat) -> ChallengeCalls:
        system = PROMPTS.render(
            "system.j2", topic=request.topic, context=request.context, max_rounds=request.max_rounds
        )
        return cls(request, proponent, system)

    def prompt(self, template: str, seat: Seat, round_no: int, kind: str, **variables: Any) -> Prompt:
        shape: dict[str, Any] = {
            "objection_ids": [o.id for o in variables.get("objections", [])],
            "proponent": variables.get("role") == "proponent",
        }
        text = PROMPTS.render(
            f"{template}.j2",
            seat=seat.id,
            stance_prompt=seat.stance_prompt,
            round=round_no,
            max_rounds=self.request.max_rounds,
            example=reply_example_for(template, **shape, version=variables.get("version", 0)),
            **variables,
        )
        schema = challenge_reply_schema(template, **shape)
        return Prompt(
            system=self.system,
            messages=[Message(role="user", content=text)],
            json_schema=schema,
            max_tokens=PHASE_MAX_TOKENS.get(template),
            meta={"round": round_no, "kind": kind, "seat": seat.id},
        )

    def opening(self) -> Call[Opening]:
        seat = self.proponent
        prompt = self.prompt("opening", seat, 1, "opening")
        return Call(seat, prompt, "r1/proponent/opening", "opening", parse_opening, _clarify, _opened)

    def challenge(self, seat: Seat, opening: Opening, shown: Sequence[Source] = ()) -> Call[Challenge]:
        """A challenger's verdict; `shown` (what it read) is what each objection's quote is checked against."""
        prompt = self.prompt("challenge", seat, 1, "challenge", opening=opening, version=1)

        def parse(text: str) -> Challenge:
            return parse_challenge(text, shown=shown)

        return Call(seat, prompt, f"r1/{seat.id}/challenge", "challenge", parse, _clarify, _challenged)

    def confront(self, st: ChallengeState) -> Call[Confrontation]:
        seat, round_no, objections = self.proponent, st.round_no, st.in_play
        notes = [
            f"{s} agreed without giving substantive reasons; it will be asked again." for s in sorted(st.suspicious)
        ]
        prompt = self.prompt(
            "confront",
            seat,
            round_no,
            "confront",
            objections=objections,
            position=st.latest.position,
            version=st.latest.version,
            notes=notes if round_no == 1 else [],
        )
        ids = [o.id for o in objections]

        def parse(text: str) -> Confrontation:
            return parse_confrontation(text, objection_ids=ids)

        describe = _answered(st.latest.version + 1)
        return Call(seat, prompt, f"r{round_no}/proponent/confront", "confront", parse, _clarify, describe)

    def rebuttal(self, seat: Seat, st: ChallengeState) -> Call[Rebuttal]:
        prompt = self.prompt(
            "rebuttal",
            seat,
            st.round_no,
            "rebuttal",
            objections=st.in_play,
            position=st.latest.position,
            version=st.latest.version,
            suspicious=seat.id in st.suspicious,
        )
        key = f"r{st.round_no}/{seat.id}/rebuttal"
        shown = st.quotable()

        def parse(text: str) -> Rebuttal:
            return parse_rebuttal(text, shown=shown)

        return Call(seat, prompt, key, "rebuttal", parse, _clarify, _rebutted)

    def assumptions(self, seat: Seat, st: ChallengeState) -> Call[AssumptionStatement]:
        mine = seat is self.proponent
        prompt = self.prompt(
            "assumptions",
            seat,
            0,
            "assumptions",
            role="proponent" if mine else "challenger",
            rounds=st.rounds_done,
            position=st.latest.position,
            version=st.latest.version,
            objections=st.standing if mine else [o for o in st.standing if o.raised_by == seat.id],
        )
        key = f"final/{seat.id}/assumptions"
        return Call(seat, prompt, key, "assumptions", parse_assumptions, _clarify, _stated)


def challenge_scenarios(calls: Sequence[CallCost], max_rounds: int) -> list[Scenario]:
    """A fast exit; consensus after round 1 and 2; the full debate ending in a tradeoff."""
    first = [c for c in calls if c.round == 1 and c.phase in ("opening", "challenge")]
    rows = [scenario("Fast exit", 1, first)]
    for n in sorted({1, min(2, max_rounds)}):
        rows.append(scenario(f"Round {n} consensus", n, [c for c in calls if 1 <= c.round <= n]))
    rows.append(scenario(f"Round {max_rounds} (max), tradeoff", max_rounds, calls))
    return rows

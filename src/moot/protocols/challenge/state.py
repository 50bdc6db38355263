"""What a position challenge knows after each step: plain data, changed only by the phase functions in
`challenge_phases` (through `PositionChallenge.absorb` and `.stopped`).

Besides what the result is built from, it holds where the debate is (`phase`, `round_no`) and what the
next step needs (`dissenters`, `in_play`, `standing`, the round record being filled), so that planning
the next step is a function of the state alone and a resumed debate replays the same steps.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from moot.grounding import Source, ground, source_of
from moot.protocols.challenge.schemas import AssumptionStatement, Objection, Opening, PositionVersion, RoundRecord

Phase = Literal["opening", "challenge", "confrontation", "rebuttal", "assumptions", "done"]


@dataclass
class ChallengeState:
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
    # where the debate is, and what its next step needs
    phase: Phase = "opening"
    round_no: int = 1  # the confrontation round under way (or next)
    rounds_done: int = 1  # the rounds the outcome is from (the opening and challenges count as round 1)
    consensus: bool = True  # until a budget stop or max rounds says otherwise
    dissenters: list[str] = field(default_factory=list)  # seats still objecting, in seat order
    in_play: list[Objection] = field(default_factory=list)  # what this round's confrontation answers
    standing: list[Objection] = field(default_factory=list)  # what the tradeoff's statements answer
    record: RoundRecord | None = None  # the round being filled (stored when it ends)
    shown: list[Source] = field(default_factory=list)  # the topic and context: what an objection may quote

    @property
    def latest(self) -> PositionVersion:
        return self.history[-1]

    def quotable(self) -> list[Source]:
        """What an objection may quote: the topic and context, every version of the position, the opening."""
        shown = [*self.shown, *(source_of("position", v.position) for v in self.history)]
        if self.opening is not None:  # the opening's reasoning, weaknesses and assumptions were shown too
            op = self.opening
            shown.append(source_of("opening", "\n".join([op.reasoning, *op.weaknesses, *op.assumptions])))
        return shown

    def new_objection(self, raised_by: str, round_no: int, text: str, strength: str, quote: str = "") -> Objection:
        shown = self.quotable()
        o = Objection(
            id=f"O{len(self.objections) + 1}",
            raised_by=raised_by,
            round=round_no,
            text=text,
            strength="minor" if strength == "minor" else "strong",
            quote=quote,
            **ground(quote, shown).fields(),
        )
        self.objections.append(o)
        return o

"""The vote's request, a judge's reply and the result (the envelope's keys first, as every protocol's)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, computed_field

from moot.schemas.config import JudgeSpec
from moot.schemas.effect import DebateEffect
from moot.schemas.envelope import EnvelopeFirst, RunStatus, SeatStatus, Verdict, VerdictConfidence, VerdictKind
from moot.schemas.spend import Spend

Answer = Literal["yes", "no"]
MAX_ROUNDS = 2
CONFIDENCE: dict[VerdictKind, VerdictConfidence] = {"consensus": "HIGH", "majority": "MEDIUM"}


class VoteRequest(BaseModel):
    """What the store keeps to run the vote again (resume)."""

    question: str
    judges: list[JudgeSpec]
    max_rounds: int = MAX_ROUNDS
    base_dir: str | None = None


class VoteJudge(SeatStatus):
    """A seat in the result: the envelope's fields, then its answer in each round."""

    answered_by: str = ""
    answers: dict[str, Answer | None] = Field(default_factory=dict)  # "round_1" -> yes / no / None (unusable)


class VoteResult(EnvelopeFirst):
    protocol: Literal["vote"] = "vote"
    debate_id: str
    status: RunStatus = "finished"
    rounds_completed: int
    judges: list[VoteJudge] = Field(default_factory=list)
    spend: Spend = Field(default_factory=Spend)
    debate_effect: DebateEffect | None = None
    question: str
    yes: int = 0
    no: int = 0
    reasons: dict[str, str] = Field(default_factory=dict)  # seat -> the reason behind its last answer
    notes: list[str] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verdict(self) -> Verdict:
        """Everyone agrees: consensus; more on one side: majority; a tie: contested, for a person."""
        kind: VerdictKind = "contested"
        answer: str | None = None
        if self.yes != self.no:
            answer = "yes" if self.yes > self.no else "no"
            kind = "consensus" if min(self.yes, self.no) == 0 else "majority"
        confidence = CONFIDENCE.get(kind, "REQUIRES_INPUT")
        return Verdict(kind=kind, answer=answer, confidence=confidence, needs_human=kind == "contested")

"""The vote's request, a judge's reply and the result (the envelope's keys first, as every protocol's)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from moot.protocol import JudgeSpec, ResultEnvelope, SeatStatus, Verdict, VerdictConfidence, VerdictKind, VerdictSpec

Answer = Literal["yes", "no"]
MAX_ROUNDS = 2
CONFIDENCE: dict[VerdictKind, VerdictConfidence] = {"consensus": "HIGH", "majority": "MEDIUM"}
# the vote's words, best first, by its verdict's kind: what `moot list` shows, what `--require` accepts (a
# majority or better) and their colours at a terminal and in the HTML report (`ProtocolSpec.verdict`)
OUTCOME_WORDS = {"consensus": "CONSENSUS", "majority": "MAJORITY", "contested": "CONTESTED"}
VERDICT = VerdictSpec(
    words={"CONSENSUS": "good", "MAJORITY": "warn", "CONTESTED": "warn"},
    require=("CONSENSUS", "MAJORITY"),
    outcome_words=OUTCOME_WORDS,
)


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


class VoteResult(ResultEnvelope[Literal["vote"], VoteJudge]):
    """The envelope's fields (`ResultEnvelope`: its name, the rounds, the judges, ...), then the vote's."""

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


class VoteBlock(BaseModel):
    """The judges file's `vote:` block: how many rounds a vote runs unless `--max-rounds` says."""

    model_config = ConfigDict(extra="forbid")

    rounds: int = Field(default=MAX_ROUNDS, ge=1, le=MAX_ROUNDS)


class VoteSettings(BaseModel):
    """The vote's keys of a judges file (its spec's `settings`): moot keeps them raw, this validates them."""

    model_config = ConfigDict(extra="forbid")

    vote: VoteBlock | None = None

"""What a debate changed against its round 1 (`debate_effect`, issue 11): one shape for every protocol.

Its JSON keys are a contract: `moot bench` counts its helpful and harmful flips from this record, and
users' scripts read it. Round 1 and final are always worded in the same terms, so that the two compare:
an option id (decide), PASS / CONDITIONAL / FAIL with a score (evaluate), agree / partial / disagree
(challenge). A result stored by a version that did not yet write it has `debate_effect: null`.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

TIE = "tie"  # round-1 or final answers with no single most common one
NO_ANSWER = "none"  # nobody gave a usable answer


class JudgeEffect(BaseModel):
    """One judge's round-1 answer against its last one (a judge dropped mid-debate keeps its last)."""

    judge: str  # seat id
    model: str
    round1: str | None = None  # None: it gave no usable answer in round 1
    final: str | None = None
    round1_score: float | None = None  # evaluate only
    final_score: float | None = None
    changed: bool = False
    reason: str = ""  # what it said convinced it, in its own words; "" when it did not change
    round1_confidence: str | None = None  # HIGH / MEDIUM / LOW as the judge stated it (None: not stated)
    final_confidence: str | None = None  # with its last answer (moot bench measures their calibration)


class DebateEffect(BaseModel):
    round1_verdict: str
    round1_score: float | None = None  # evaluate's round-1 mean
    final_verdict: str
    final_score: float | None = None
    differs: bool
    judges: list[JudgeEffect] = Field(default_factory=list)
    changed_judges: list[str] = Field(default_factory=list)
    rounds: int
    # the verdict moved while no judge's own answer did: the combining rule's doing (scores moving within
    # their bands can still carry a majority across a threshold), never a judge's change of mind
    aggregation_changed: bool = False

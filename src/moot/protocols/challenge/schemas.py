"""The position challenge (seed 004): a proponent's position, challengers' objections, and the outcome.

The JSON form of `ChallengeResult` is a contract: `outcome` (CONSENSUS | TRADEOFF), `final_position`,
`confidence`, `rounds`, `position_history`, and for a tradeoff `core_disagreement` and `assumptions`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from moot.panel_file import JudgeEntry
from moot.protocol import JudgeSpec, PanelFile, PanelRecorded, RunEnvelope, SeatStatus, Verdict, VerdictSpec
from moot.protocols.challenge.replies import (
    AssumptionsReply,
    ConfrontationReply,
    ObjectionDecision,
    OpeningReply,
    PositionConfidence,
    RebuttalReply,
    Strength,
    VerdictReply,
)
from moot.schemas.config import Artifact
from moot.schemas.envelope import JudgeStatus, one_line, split_status

PositionOutcome = Literal["CONSENSUS", "TRADEOFF"]


# The most confrontation rounds a challenge has (seed 004: "up to 5"); after the last, the objections still
# standing go into a tradeoff document.
MAX_ROUNDS = 5
# the one word a list shows for a challenge, by its verdict's kind (`VerdictSpec.outcome_words`)
OUTCOME_WORDS = {"consensus": "CONSENSUS", "tradeoff": "TRADEOFF"}
# its words, best first, and its gate: `--require CONSENSUS` fails a tradeoff (`ProtocolSpec.verdict`)
VERDICT = VerdictSpec(
    words={"CONSENSUS": "good", "TRADEOFF": "warn"},
    require=("CONSENSUS",),
    require_fails="the debate ends in a tradeoff",
    outcome_words=OUTCOME_WORDS,
)
ROUNDS = "confrontation rounds, then a tradeoff of the objections still standing"


class ChallengeRequest(BaseModel):
    """Everything a challenge needs, as stored (API keys scrubbed) so that `moot resume` can rebuild it.

    `challengers` holds only the challengers that preflight found usable; `challenger_numbers` keeps
    their place in the configured list, so `challenger-3` stays `challenger-3` when `challenger-2` was
    skipped.
    """

    topic: str
    context: list[Artifact] = Field(default_factory=list)
    proponent: JudgeSpec
    challengers: list[JudgeSpec]
    challenger_numbers: list[int] = Field(default_factory=list)
    skipped: list[str] = Field(default_factory=list)  # "challenger-2 (qwen): not found on PATH"
    max_rounds: int = MAX_ROUNDS
    timeout_per_cli: float = 120.0
    min_challengers: int = 1
    base_dir: str | None = None


# replies, as validated: each phase's declared reply model (`replies.py`), the one declaration of its keys

Opening = OpeningReply
Challenge = VerdictReply
Confrontation = ConfrontationReply
Rebuttal = RebuttalReply  # `objections`: new or restated ones, optional
AssumptionStatement = AssumptionsReply


# the record of a debate


class Objection(BaseModel):
    id: str  # "O1", "O2", ... in the order raised
    raised_by: str  # seat id
    round: int
    text: str
    strength: Strength = "strong"
    decision: ObjectionDecision | None = None  # the proponent's answer, once given
    reason: str = ""
    # its quote of what the challenger was shown (the position, the context, the topic), and moot's check of
    # it (`moot.grounding`): an objection whose quote is not found is kept and shown apart
    quote: str = ""
    grounded: bool | None = None
    ungrounded_reason: str | None = None


class PositionChange(BaseModel):
    objection_id: str
    raised_by: str
    objection: str
    decision: ObjectionDecision
    reason: str = ""


class PositionVersion(BaseModel):
    version: int  # 1 = the opening
    round: int  # 0 for the opening; N for the version produced in round N's confrontation
    position: str
    confidence: PositionConfidence
    changed: bool = False
    changed_because: list[PositionChange] = Field(default_factory=list)


class ChallengerReply(BaseModel):
    """What one challenger said in one round (or why it said nothing usable)."""

    seat: str
    round: int
    kind: Literal["challenge", "rebuttal"]
    status: str  # "ok" | "unparsed" | "timeout" | "error"
    verdict: str = ""  # challenge: agree/partial/disagree; rebuttal: ACCEPT/MAINTAIN/ESCALATE
    treated_as: str = ""  # the skepticism rule's reading, when it differs from `verdict`
    objection_strength: str = ""
    objections: list[str] = Field(default_factory=list)
    reasoning: str = ""
    error: str = ""
    raw: str = ""  # an unparsable reply, kept as it came


class RoundRecord(BaseModel):
    round: int
    replies: list[ChallengerReply] = Field(default_factory=list)
    decision: str = ""  # "fast_exit" | "confront" | "consensus" | "continue" | "tradeoff"
    reasons: list[str] = Field(default_factory=list)
    objections: list[Objection] = Field(default_factory=list)
    position_version: int | None = None


class AssumptionRow(BaseModel):
    assumption: str
    held_by: str  # seat id
    supports: str  # whose position it supports ("proponent", "challenger-2")


class PartyStatement(BaseModel):
    seat: str
    why_disagree: str
    what_would_change_my_mind: str


class ChallengerOutcome(BaseModel):
    seat: str
    number: int
    model: str
    kind: str  # "api" | "agent-cli" | "scripted" | "code"
    status: str  # "agreed" | "accepted" | "maintained" | "escalated" | "failed: ..." | "dropped: ..."
    answered_by: str = ""


class ChallengeResult(RunEnvelope[Literal["challenge"]], PanelRecorded):
    """`rounds` (the confrontation rounds done) keeps its meaning; `rounds_completed` is the envelope's name
    for the same number. `challengers` keeps each challenger's own status words; `judges` is the envelope's
    list: the proponent first, then every challenger. The envelope's other fields are `RunEnvelope`'s."""

    topic: str
    outcome: PositionOutcome
    final_position: str
    confidence: PositionConfidence
    rounds: int
    fast_exit: bool = False
    position_history: list[PositionVersion]
    what_changed: list[str] = Field(default_factory=list)
    core_disagreement: str = ""
    assumptions: list[AssumptionRow] = Field(default_factory=list)
    statements: list[PartyStatement] = Field(default_factory=list)
    opening: Opening
    objections: list[Objection] = Field(default_factory=list)
    round_log: list[RoundRecord] = Field(default_factory=list)
    skepticism: list[str] = Field(default_factory=list)
    proponent: str = ""
    challengers: list[ChallengerOutcome] = Field(default_factory=list)
    skipped_challengers: list[str] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verdict(self) -> Verdict:
        """The envelope's verdict: consensus or tradeoff, the final position's first line as the answer."""
        consensus = self.outcome == "CONSENSUS"
        return Verdict(
            kind="consensus" if consensus else "tradeoff",
            answer=one_line(self.final_position),
            confidence=self.confidence,
            needs_human=not consensus,
        )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def rounds_completed(self) -> int:
        return self.rounds

    @computed_field  # type: ignore[prop-decorator]
    @property
    def judges(self) -> list[SeatStatus]:
        """The proponent, then each challenger: ok while its voice counted (whatever it said), dropped when
        it failed for good (`reason` keeps its status words)."""
        seats = [SeatStatus(seat="proponent", model=self.proponent, stance="proponent", status="ok")]
        for c in self.challengers:
            fate = _challenger_fate(c.status)
            seats.append(SeatStatus(seat=c.seat, model=c.model, stance="challenger", status=fate[0], reason=fate[1]))
        return seats


def _challenger_fate(status: str) -> tuple[JudgeStatus, str | None]:
    """A challenger's status words ("agreed", "failed: timeout", "dropped in round 2: ...") in the envelope's."""
    if status.startswith("failed"):
        return "dropped", status.partition(":")[2].strip() or status
    if status.startswith("dropped"):
        return split_status(status)
    if status == "not asked":
        return "ok", "not asked"
    return "ok", None


class ChallengeSettings(BaseModel):
    """challenge's keys of a judges file (the spec's `settings`): seed 004's seats and CLI settings."""

    model_config = ConfigDict(extra="forbid")

    proponent: JudgeEntry | None = None
    challengers: list[JudgeEntry] | None = None
    timeout_per_cli: float | None = None
    min_challengers: int | None = None


def challenge_settings(panel: PanelFile | None) -> ChallengeSettings:
    """The judges file's challenge block, validated (an empty one with no file)."""
    return panel.settings(ChallengeSettings) if panel is not None else ChallengeSettings()

"""The scored evaluation (seeds 000, 001, 003): judges' positions per round and the final result.

The JSON form of `EvaluationResult` is a contract: its keys follow seed 001's synthesis format and seed
000's majority-verdict fields, and users' scripts read them.
"""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import (
    BaseModel,
    Field,
    SerializerFunctionWrapHandler,
    computed_field,
    model_serializer,
)

from moot.engine.aggregate import ScoreAggregate
from moot.protocol import JudgeSpec, PanelRecorded, ResultEnvelope, SeatStatus, Verdict, VerdictKind, VerdictSpec
from moot.protocols.evaluate.criteria import Criterion
from moot.protocols.evaluate.settings import ConsensusSettings, VerdictThresholds
from moot.protocols.evaluate.task_rubric import Rubric
from moot.schemas.config import Artifact
from moot.schemas.words import Confidence, Meaning, Words

ScoreVerdict = Literal["PASS", "FAIL", "CONDITIONAL"]
ConsensusMethod = Literal["unanimous", "majority", "forced"]
VerdictType = Literal["consensus", "majority", "no_consensus"]
ScoreConfidence = Confidence  # the confidence words, declared once (`moot.schemas.words`)
# how pressing a finding is, declared once: a reply's severity, a convergent finding's priority
Priority = Literal["CRITICAL", "HIGH", "MEDIUM", "LOW"]
PRIORITY: Words[Priority] = Words.of(Priority)
CriticalResponse = Literal["accept", "reject", "withdraw"]
# a judge's answer to a CRITICAL finding, declared once: its words (withdraw: the raiser's own only), what
# else judges write for each, and what each says of the judge's position on the finding
RESPONSES: Words[CriticalResponse] = Words.of(
    CriticalResponse,
    {
        **{"accepted": "accept", "agree": "accept", "agreed": "accept", "withdrawn": "withdraw"},
        **{"rejected": "reject", "disagree": "reject", "dispute": "reject"},
    },
    {"accept": Meaning("accepts it"), "reject": Meaning("rejects it"), "withdraw": Meaning("withdraws it")},
    upper=False,
)


class Located(BaseModel):
    """Where a finding, claim or recommendation points: a file of the artifact and a line as the judges were
    shown it (a diff's new-file number). `location_valid` is moot's check against what they were shown:
    False when the file or line was not among it (the item is kept)."""

    file: str | None = None
    line: int | None = None
    location_valid: bool | None = None

    @model_serializer(mode="wrap")
    def _only_given(self, handler: SerializerFunctionWrapHandler) -> Any:
        """An item that points nowhere keeps the keys it always had: no `file: null` in today's JSON."""
        data = handler(self)
        if isinstance(data, dict):
            for key in ("file", "line", "location_valid", "grounded", "ungrounded_reason", "grounded_by"):
                if data.get(key, 0) is None:
                    del data[key]
        return data


class Quoted(Located):
    """A finding or claim that quotes what the judges were shown (`quote`), and moot's check of it
    (`moot.grounding`): `grounded`, and when it is not, `ungrounded_reason` (no quote, quote not found,
    location does not hold the quote). Only a grounded CRITICAL finding can block. `grounded_by` names the
    judge whose own grounded quote confirmed a finding its raiser did not ground."""

    quote: str = ""
    grounded: bool | None = None
    ungrounded_reason: str | None = None
    grounded_by: str | None = None


EarlierStatus = Literal["resolved", "unresolved", "disputed"]


class EarlierItem(Located):
    """One finding of the earlier debate, as the new one's judges are shown it."""

    id: str  # "E1", ...
    kind: str  # CRITICAL, MUST or SHOULD
    text: str
    status: EarlierStatus | None = None  # set in the result
    answers: dict[str, str] = Field(default_factory=dict)  # judge -> resolved | unresolved


class Earlier(BaseModel):
    """The earlier debate a follow-up re-judges against (kept in the request, so resume has it)."""

    debate_id: str
    verdict: str
    score: float | None = None
    items: list[EarlierItem] = Field(default_factory=list)


class FollowUp(Earlier):
    """The result's link to the earlier debate: its verdict then, and each earlier item's fate now."""

    verdict_now: str = ""
    score_now: float | None = None


class KeyClaim(Quoted):
    claim: str
    evidence: str = ""
    confidence: str = ""


class RaisedFinding(Quoted):
    """A CRITICAL finding as a judge states it, before the engine gives it an id."""

    finding: str
    evidence: str = ""


class CriticalFinding(Quoted):
    id: str  # "C1", "C2", ... in the order raised
    finding: str
    evidence: str = ""
    raised_by: str
    round: int


class Exchange(BaseModel):
    """An agreement or disagreement with another judge (seed 000 round 2 / round 3)."""

    with_judge: str = ""
    on_point: str = ""
    detail: str = ""


class ScoredPosition(BaseModel):
    """One judge's validated position after one round. Scores are 1-5; every criterion is present."""

    judge: str
    round: int
    overall_score: float
    stated_overall: bool = True  # False when the engine computed it from the dimension scores
    dimension_scores: dict[str, float]
    carried_over: list[str] = Field(default_factory=list)  # criteria kept from the previous round
    statement: str = ""
    key_claims: list[KeyClaim] = Field(default_factory=list)
    raised: list[RaisedFinding] = Field(default_factory=list)
    critical_responses: dict[str, CriticalResponse] = Field(default_factory=dict)
    confirmations: dict[str, str] = Field(default_factory=dict)  # finding id -> the judge's own grounded quote
    moved_by: list[str] = Field(default_factory=list)  # what a changed score names: finding ids, judges' letters
    agreements: list[Exchange] = Field(default_factory=list)
    disagreements: list[Exchange] = Field(default_factory=list)
    unresolved: list[str] = Field(default_factory=list)
    score_changed: bool | None = None
    change_reason: str = ""
    accepts_consensus: bool | None = None
    verification: list[str] = Field(default_factory=list)
    earlier_answers: dict[str, str] = Field(default_factory=dict)  # a follow-up's E-id -> resolved | unresolved


class RoundSummary(BaseModel):
    scores: list[float]
    by_judge: dict[str, float] = Field(default_factory=dict)
    range: float
    consensus: bool
    reasons: list[str] = Field(default_factory=list)  # why there was no consensus
    dimension_ranges: dict[str, float] = Field(default_factory=dict)
    dimension_scores: dict[str, dict[str, float]] = Field(default_factory=dict)  # judge -> criterion -> score
    majority_score: float | None = None
    minority_score: float | None = None


class Summary(BaseModel):
    final_verdict: ScoreVerdict
    consensus_score: float
    score_range: list[float]
    consensus_method: ConsensusMethod
    confidence: ScoreConfidence
    # how the judges' scores became `consensus_score`: the judges file's `consensus: {aggregate: ...}` (mean by
    # default) for a consensus or a majority; a forced verdict is always the median
    aggregate: ScoreAggregate = "mean"


class ConvergentFinding(BaseModel):
    finding: str
    priority: Priority = "MEDIUM"
    action_required: bool = False
    source_judges: list[str] = Field(default_factory=list)


class DivergentFinding(BaseModel):
    finding: str
    positions: dict[str, str] = Field(default_factory=dict)
    user_decision_needed: bool = True


class Recommendation(Located):
    priority: Literal["MUST", "SHOULD", "COULD"]
    action: str
    rationale: str = ""


class AttentionItem(BaseModel):
    issue: str
    majority_view: str = ""
    minority_view: str = ""
    recommendation: str = ""


class JudgeOutcome(SeatStatus):
    """How one seat on the panel fared: its final scores, or why it was dropped. The envelope's fields come
    first (`seat`, `model` as configured, `stance`, `status`, `reason`); `judge` repeats the seat id, as
    results before the envelope named it."""

    judge: str  # seat id, e.g. "judge-1"
    number: int
    answered_by: str = ""  # the model that actually judged (differs when a fallback took the seat)
    dropped_in_round: int | None = None
    final_score: float | None = None
    final_scores: dict[str, float] = Field(default_factory=dict)


class SelfCritique(BaseModel):
    questions_passed: str = ""
    synthesis_quality: str = ""
    potential_bias: str = ""


class EvaluationResult(ResultEnvelope[Literal["evaluate"], JudgeOutcome], PanelRecorded):
    """A scored evaluation: the envelope's fields (`ResultEnvelope`), then the seed's."""

    artifact_evaluated: str
    task: str = ""
    consensus_reached: bool
    consensus_reached_at: int | None = None
    summary: Summary
    round_progression: dict[str, RoundSummary]
    convergent_findings: list[ConvergentFinding] = Field(default_factory=list)
    divergent_findings: list[DivergentFinding] = Field(default_factory=list)
    majority_opinion: str = ""
    minority_opinion: str = ""
    recommendations: list[Recommendation] = Field(default_factory=list)
    verdict_type: VerdictType
    majority_score: float | None = None
    minority_score: float | None = None
    majority_judges: list[str] = Field(default_factory=list)
    minority_judges: list[str] = Field(default_factory=list)
    user_attention_needed: list[AttentionItem] = Field(default_factory=list)
    critical_findings: list[dict[str, object]] = Field(default_factory=list)
    key_claims: list[dict[str, object]] = Field(default_factory=list)  # each judge's, with its place and quote
    # scores changed without naming what moved them: {judge, round, from, to}
    unsupported_changes: list[dict[str, object]] = Field(default_factory=list)
    # the order each judge read the others' reports in, by call ("r2/judge-1": ["C", "A", "B"])
    report_orders: dict[str, list[str]] = Field(default_factory=dict)
    criteria: dict[str, float] = Field(default_factory=dict)  # criterion key -> normalised weight
    synthesis_by: str = "engine"
    self_critique: SelfCritique | None = None
    notes: list[str] = Field(default_factory=list)
    reports: list[str] = Field(default_factory=list)
    rubric: Rubric | None = None  # the rubric `--criteria auto` wrote for this debate
    follow_up: FollowUp | None = None  # a follow-up's link to the earlier debate and each earlier finding's fate
    omitted_when_empty: ClassVar[tuple[str, ...]] = ("redactions", "follow_up", "report_orders")

    def confidence_holder(self) -> Any:
        """The confidence a one-family panel caps is the summary's."""
        return self.summary

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verdict(self) -> Verdict:
        """The envelope's verdict: PASS/CONDITIONAL/FAIL, and how the panel reached it."""
        s = self.summary
        kind: VerdictKind = "consensus"
        if s.consensus_method == "forced":
            kind = "forced"
        elif self.verdict_type == "majority":
            kind = "majority"
        elif self.verdict_type == "no_consensus":
            kind = "contested"
        return Verdict(
            kind=kind, answer=s.final_verdict, confidence=s.confidence, needs_human=kind in ("forced", "contested")
        )


# The most rounds an evaluation has. Its templates define three: independent analysis, rebuttal, final
# positions. A fourth would only repeat the rebuttal, which no seed defines, and the seed's cost table ends
# at "Round 3 (max)"; so a higher --max-rounds is refused rather than stretched into more of the same.
MAX_ROUNDS = 3
# its words, best first: `--require CONDITIONAL` passes PASS too; its score makes `--fail-under` apply
VERDICT = VerdictSpec(
    words={"PASS": "good", "CONDITIONAL": "warn", "FAIL": "bad"}, require=("PASS", "CONDITIONAL"), scored=True
)
ROUNDS = "independent analysis, rebuttal, final positions"


class EvaluationRequest(BaseModel):
    """Everything a scored evaluation needs, as plain data (stored whole, so a debate can be resumed)."""

    artifacts: list[Artifact]
    task: str = ""
    criteria: list[Criterion]
    judges: list[JudgeSpec]
    moderator: JudgeSpec | None = None
    consensus: ConsensusSettings = Field(default_factory=ConsensusSettings)
    thresholds: VerdictThresholds = Field(default_factory=VerdictThresholds)
    max_rounds: int = MAX_ROUNDS
    mode: Literal["complete", "quick"] = "complete"
    reports_dir: str | None = None
    solution_name: str = ""
    report_base: str = ""  # "{solution-name}-{YYYY-MM-DD}", fixed when the debate starts
    base_dir: str | None = None  # where relative paths in judge specs (scripts) are resolved
    # `--criteria auto`: a rubric is written before round 1 by `rubric_writer` (rubric_model:, else the
    # moderator, else the first judge), and becomes the criteria (empty until then)
    criteria_auto: bool = False
    rubric_writer: JudgeSpec | None = None
    earlier: Earlier | None = None  # a follow-up: the earlier debate's findings the judges re-check

    @property
    def rounds_allowed(self) -> int:
        return 1 if self.mode == "quick" else self.max_rounds


class JudgeRoundRecord(BaseModel):
    """One judge's round as the per-judge report files need it (emitted by the runner as it happens).
    The seat id and the round are the position's own, so the two can never disagree."""

    number: int
    model: str
    stance: str
    position: ScoredPosition
    previous: ScoredPosition | None = None
    text: str = ""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def judge(self) -> str:
        return self.position.judge

    @computed_field  # type: ignore[prop-decorator]
    @property
    def round(self) -> int:
        return self.position.round

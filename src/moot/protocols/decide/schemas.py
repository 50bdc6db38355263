"""Option choice under adversarial debate (seed 002, `moot decide`): the question, the settings, each judge's
recommendation per round and the result.

The seed's blocks load unchanged: `debate_context:` as `DebateContext`, `debate_config:` as `DebateConfig`.
The JSON form of `DecisionResult` is a contract: its keys follow the seed's `debate_result` shapes
(`consensus`, `recommended_option`, `outcome`, `confidence`, `perspectives`, `change_log`, `distribution`,
`rounds_completed`), and `debate_result` holds the seed's own document for the outcome reached.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field, field_validator, model_validator

from moot.protocol import JudgeSpec, PanelRecorded, ResultEnvelope, SeatStatus, Verdict, VerdictKind, VerdictSpec

DecisionOutcome = Literal["RECOMMENDED", "CONTESTED"]
DecisionConfidence = Literal["HIGH", "MEDIUM", "REQUIRES_INPUT"]  # MEDIUM: a one-family panel agreed

_ID = re.compile(r"^\w[\w.-]*$")


class DecisionOption(BaseModel):
    """One option of the question. `id` is what the user gave ("A", "online-only") and what judges cite."""

    model_config = ConfigDict(extra="forbid")

    id: str
    label: str = ""
    description: str = ""

    @field_validator("id", mode="before")
    @classmethod
    def _clean_id(cls, v: Any) -> Any:
        if isinstance(v, int | float) and not isinstance(v, bool):
            v = str(v)
        if isinstance(v, str):
            v = v.strip()
            if not v:
                raise ValueError("an option id cannot be empty")
            if not _ID.match(v):
                raise ValueError(f"option id {v!r} must be a letter or a name of letters, digits, '.', '_' and '-'")
        return v

    @property
    def text(self) -> str:
        """`label: description`, or whichever of them is given."""
        if self.label and self.description:
            return f"{self.label}: {self.description}"
        return self.label or self.description or self.id


class DebateContext(BaseModel):
    """Seed 002's `debate_context` block: the question, its options and what the judges need to know."""

    model_config = ConfigDict(extra="forbid")

    question_id: str = ""
    question_text: str
    options: list[DecisionOption]
    spec_context: str = ""
    feature_name: str = ""
    feature_dir: str = ""

    @field_validator("question_id", "feature_name", "feature_dir", mode="before")
    @classmethod
    def _text(cls, v: Any) -> Any:
        return "" if v is None else str(v).strip() if isinstance(v, int | float | str) else v

    @field_validator("question_text")
    @classmethod
    def _question(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("the question is empty")
        return v.strip()

    @field_validator("spec_context", mode="before")
    @classmethod
    def _spec(cls, v: Any) -> Any:
        return "" if v is None else v

    @model_validator(mode="after")
    def _options(self) -> DebateContext:
        if len(self.options) < 2:
            raise ValueError(f"a decision needs at least two options (got {len(self.options)})")
        seen: dict[str, str] = {}
        for o in self.options:
            key = o.id.casefold()
            if key in seen:
                raise ValueError(f"duplicate option id {o.id!r}")
            seen[key] = o.id
        if self.question_id and not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", self.question_id):
            raise ValueError(
                f"question_id {self.question_id!r} may hold only letters, digits, '.', '_' and '-' (it names files)"
            )
        return self

    @property
    def option_ids(self) -> list[str]:
        return [o.id for o in self.options]


# The most rounds a decision has: independent recommendations, then one adversarial round (the seed's
# max_rounds 2). A third would repeat the adversarial round, which the seed does not define: a split that
# remains after it is CONTESTED, for a person to decide.
MAX_ROUNDS = 2
# the one word a list shows for a decision, by its verdict's kind (`VerdictSpec.outcome_words`)
OUTCOME_WORDS = {"consensus": "RECOMMENDED", "majority": "RECOMMENDED", "contested": "CONTESTED"}
# its words, best first, and its gate: `--require RECOMMENDED` fails a contested decision (`ProtocolSpec.verdict`)
VERDICT = VerdictSpec(
    words={"RECOMMENDED": "good", "CONTESTED": "warn"},
    require=("RECOMMENDED",),
    require_fails="the decision is contested",
    outcome_words=OUTCOME_WORDS,
)
ROUNDS = "independent recommendations, then one adversarial round"


class DecideSettings(BaseModel):
    """decide's keys of a judges file (the spec's `settings`): seed 002's `debate_config` block, kept as
    written here and read as a `DebateConfig` where the debate's settings are settled, so that a bad value
    is named with where it came from (the file, the API's `config`)."""

    model_config = ConfigDict(extra="forbid")

    debate_config: dict[str, Any] | None = None


class DebateConfig(BaseModel):
    """Seed 002's `debate_config` block."""

    model_config = ConfigDict(extra="forbid")

    max_rounds: int = MAX_ROUNDS
    consensus_threshold: float = 0.67
    timeout_per_judge: float = 120.0
    require_stance_maintenance: bool = True
    require_change_documentation: bool = True
    # end after this round whatever the tally, without telling the judges: their prompts still say "of at
    # most max_rounds" (moot bench's round-1-only samples send the very round-1 prompt of the debate)
    stop_after_round: int | None = None
    # each judge reads the options in an order drawn for it (recorded in the result's `option_orders`), so
    # that no option is always first; `false` shows every judge the options as given (as `moot bench`
    # does, which measures position bias by asking in both orders itself)
    shuffled_options: bool = True

    @field_validator("max_rounds", "stop_after_round")
    @classmethod
    def _rounds(cls, v: int | None) -> int | None:
        if v is not None and v < 1:
            raise ValueError(f"must be at least 1 (got {v})")
        return v

    @property
    def rounds_run(self) -> int:
        """The most rounds the debate runs: `max_rounds`, or fewer with `stop_after_round`."""
        return min(self.max_rounds, self.stop_after_round or self.max_rounds)

    @field_validator("consensus_threshold")
    @classmethod
    def _threshold(cls, v: float) -> float:
        if not 0 < v <= 1:
            raise ValueError(f"must be in (0, 1] (got {v:g})")
        return v

    @field_validator("timeout_per_judge")
    @classmethod
    def _timeout(cls, v: float) -> float:
        if v <= 0:
            raise ValueError("must be a positive number of seconds")
        return v


class DecisionRequest(BaseModel):
    """Everything a decision debate needs, as stored (so that `moot resume` can rebuild it)."""

    context: DebateContext
    config: DebateConfig = Field(default_factory=DebateConfig)
    judges: list[JudgeSpec]
    seat_ids: list[str] = Field(default_factory=list)
    files_dir: str | None = None  # {feature_dir}/sadd, or None to write no files
    base_dir: str | None = None


class CounterArgument(BaseModel):
    """A round-2 counter-argument aimed at another judge's position."""

    judge: str
    argument: str


class NamedRisk(BaseModel):
    """A risk a judge named for an option, its quote, and whether moot found the quote in what was shown."""

    option: str = ""
    risk: str
    quote: str = ""
    grounded: bool
    ungrounded_reason: str | None = None


class StanceReply(BaseModel):
    """One judge's validated reply in one round."""

    judge: str
    round: int
    recommendation: str
    confidence: str = ""
    rationale: str = ""
    perspective: str = ""  # one line: why this option, from the judge's stance
    assessments: dict[str, str] = Field(default_factory=dict)
    challenges: list[CounterArgument] = Field(default_factory=list)
    changed_from: str | None = None
    change_reason: str = ""
    risks: list[NamedRisk] = Field(default_factory=list)


class ChangeLogEntry(BaseModel):
    """A judge that changed its recommendation, and what convinced it (seed 002's `change_log`)."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    judge: str
    round: int
    from_: str = Field(alias="from")
    to: str
    reason: str


class DecideRoundRecord(BaseModel):
    """One judge's round as its file for people needs it (emitted by the runner as it happens).

    The protocol builds it from what it counted, so that the file writer needs neither the protocol nor
    the reply parser.
    """

    judge: str
    title: str  # the stance's title: "Risk", "Value", "Effort"
    model: str  # the model that answered (or the seat's label)
    round: int
    question: str
    reply: StanceReply | None = None  # None: no usable recommendation
    text: str = ""  # the reply exactly as given
    note: str = ""


class DecisionJudge(SeatStatus):
    """A seat of the panel and what became of it: the envelope's fields (`status` ok, dropped, or unparsed
    when its last reply gave no usable recommendation; `reason` why), then the seat's recommendations."""

    judge: str  # the seat id: the stance ("risk", "value", "effort")
    answered_by: str = ""
    dropped_in_round: int | None = None
    recommendations: dict[str, str | None] = Field(default_factory=dict)  # "round_1" -> option id or None


class RoundTally(BaseModel):
    """What one round came to."""

    recommendations: dict[str, str | None]  # judge -> option id (None: no usable recommendation)
    distribution: dict[str, list[str]]
    consensus: bool
    option: str | None = None
    share: float = 0.0
    answered: int = 0


class DecisionResult(ResultEnvelope[Literal["decide"], DecisionJudge], PanelRecorded):
    """A decision: the envelope's fields (`ResultEnvelope`), then the seed's."""

    question_id: str
    question: str
    options: list[DecisionOption]
    consensus: bool
    outcome: DecisionOutcome
    recommended_option: str | None = None
    confidence: DecisionConfidence
    perspectives: dict[str, str] = Field(default_factory=dict)
    change_log: list[ChangeLogEntry] = Field(default_factory=list)
    distribution: dict[str, list[str]] = Field(default_factory=dict)
    no_recommendation: list[str] = Field(default_factory=list)
    consensus_reached_at: int | None = None
    consensus_threshold: float
    message: str = ""
    user_prompt: str | None = None
    user_choice: str | None = None  # the option a person chose for a contested result
    decided_by: Literal["judges", "user"] | None = None
    rounds: dict[str, RoundTally] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)
    option_orders: dict[str, list[str]] = Field(default_factory=dict)  # seat -> the option ids as it read them
    # each judge's risks in its latest reply, grounded (its quote found in the question, options or context) or not
    risks: list[dict[str, object]] = Field(default_factory=list)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verdict(self) -> Verdict:
        """The envelope's verdict: the option recommended (or chosen by a person), and how it was reached.
        `majority` when the threshold was met without every answering judge agreeing."""
        last = self.rounds.get(f"round_{self.rounds_completed}")
        kind: VerdictKind = "contested"
        if self.consensus:
            kind = "majority" if last is not None and last.share < 1.0 else "consensus"
        return Verdict(
            kind=kind,
            answer=self.decision,
            confidence=self.confidence,
            needs_human=not self.consensus and not self.user_choice,
        )

    @computed_field  # type: ignore[prop-decorator]
    @property
    def decision(self) -> str | None:
        """The option to proceed with: the judges' recommendation, or the person's choice."""
        return self.recommended_option if self.consensus else self.user_choice

    @computed_field  # type: ignore[prop-decorator]
    @property
    def debate_result(self) -> dict[str, Any]:
        """The seed's own document: its consensus shape or its contested shape, plus what was spent."""
        spent = {
            "calls": self.spend.calls,
            "input_tokens": self.spend.input_tokens,
            "output_tokens": self.spend.output_tokens,
            "cost_usd": self.spend.cost_usd,
            "seconds": self.spend.wall_seconds,
        }
        if self.consensus:
            return {
                "question_id": self.question_id,
                "consensus": True,
                "recommended_option": self.recommended_option,
                "outcome": self.outcome,
                "confidence": self.confidence,
                "perspectives": dict(self.perspectives),
                "change_log": [e.model_dump(mode="json") for e in self.change_log],
                "rounds_completed": self.rounds_completed,
                "spend": spent,
            }
        result: dict[str, Any] = {
            "question_id": self.question_id,
            "consensus": False,
            "outcome": self.outcome,
            "confidence": self.confidence,
            "distribution": {k: list(v) for k, v in self.distribution.items()},
            "perspectives": {f"{judge}_favors": text for judge, text in self.perspectives.items()},
            "change_log": [e.model_dump(mode="json") for e in self.change_log],
            "rounds_completed": self.rounds_completed,
            "message": self.message,
            "user_prompt": self.user_prompt,
            "spend": spent,
        }
        if self.user_choice:
            result["user_choice"] = self.user_choice
        return result


# The files' names, shared by the prompts (which point each judge at the others' files) and the writer.


def round_file_name(question_id: str, judge: str, round_no: int) -> str:
    suffix = "" if round_no == 1 else f"-r{round_no}"
    return f"debate-{question_id}-{judge}{suffix}.md"


def record_file_name(question_id: str) -> str:
    return f"debate-{question_id}-decision.md"


def round_file_path(files_dir: str | Path, question_id: str, judge: str, round_no: int) -> Path:
    return Path(files_dir) / round_file_name(question_id, judge, round_no)


def record_file_path(files_dir: str | Path, question_id: str) -> Path:
    return Path(files_dir) / record_file_name(question_id)

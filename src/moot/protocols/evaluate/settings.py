"""evaluate's own settings: the consensus rules and verdict thresholds a debate is judged by, and its block
of the judges file (`consensus:`, `verdict:`, `moderator:`, `rubric_model:`), validated here rather than by
the kernel, which keeps the block raw (`moot.panel_file`).

The shapes follow seed 000 so that its YAML blocks load unchanged. Unknown keys are rejected so that a typo
is an error rather than a silently ignored setting.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from moot.engine.aggregate import ScoreAggregate
from moot.panel_file import JudgeEntry
from moot.protocol import PanelFile


class ConsensusSettings(BaseModel):
    """Seed 000's consensus block, plus seed 003's explicit-acceptance rule as a setting, and how the
    judges' scores become the panel's (`aggregate`, issue 30: the seeds' mean unless a robust one is asked)."""

    model_config = ConfigDict(extra="forbid")

    overall_score_range: float = 0.5
    dimension_score_range: float = 1.0
    critical_finding_agreement: bool = True
    require_explicit_acceptance: bool = False  # seed 003: "all judges explicitly state they accept"
    aggregate: ScoreAggregate = "mean"
    # the rules that keep a debate honest, each on unless turned off (to compare with and without, as the
    # bench does): only a CRITICAL finding whose quote is found in the artifact blocks (`grounding`); each
    # judge reads the others' reports under a letter, never a model (`anonymous_reports`), in an order drawn
    # for it and the round (`shuffled_reports`); a changed score must name what moved it, or it is listed
    # in the result's `unsupported_changes` (`changes_need_support`)
    grounding: bool = True
    anonymous_reports: bool = True
    shuffled_reports: bool = True
    changes_need_support: bool = True

    @field_validator("overall_score_range", "dimension_score_range")
    @classmethod
    def _non_negative(cls, v: float) -> float:
        if v < 0:
            raise ValueError("a score range cannot be negative")
        return v


class VerdictThresholds(BaseModel):
    model_config = ConfigDict(extra="forbid")

    pass_at: float = 4.0
    conditional_at: float = 3.0

    @model_validator(mode="after")
    def _ordered(self) -> VerdictThresholds:
        if self.conditional_at > self.pass_at:
            raise ValueError("verdict thresholds: conditional_at must not exceed pass_at")
        return self


class EvaluateSettings(BaseModel):
    """evaluate's keys of a judges file (the spec's `settings`)."""

    model_config = ConfigDict(extra="forbid")

    consensus: ConsensusSettings | None = None
    verdict: VerdictThresholds | None = None
    moderator: JudgeEntry | None = None
    rubric_model: JudgeEntry | None = None  # `--criteria auto`: who writes the rubric (default: the moderator)


def evaluate_settings(panel: PanelFile | None) -> EvaluateSettings:
    """The judges file's evaluate block, validated (an empty one with no file)."""
    return panel.settings(EvaluateSettings) if panel is not None else EvaluateSettings()

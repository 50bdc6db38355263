"""Every reply of the scored evaluation, each declared once (issue 32): a judge's round 1, rebuttal and final
positions, and the moderator's synthesis.

From these models come the JSON schema sent to judges that decode under one (`evaluate_reply_schema`,
`moderator_reply_schema`), the template the prompt shows (`*_example`, rendered into the round's template)
and the keys the parser reads (a field's name and its legacy aliases, `positions.reading_keys`). What depends on the
debate is a specialization of the declared model, never a second declaration: the request's criteria are
the fields of `dimension_scores`, the open CRITICAL findings those of `critical_responses` (withdraw allowed
for the judge's own), a follow-up's earlier items those of `earlier_findings`, the moderator's judges those
of a divergent finding's `positions`; `critical_responses` and `accepts_consensus` are asked only when the
debate needs them.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, TypeVar

from moot.protocol import (
    Flag,
    LongText,
    ReplyModel,
    Score,
    Text,
    items,
    one_of,
    reply_example,
    reply_field,
    reply_schema,
    specialize,
    word,
)
from moot.protocols.evaluate.schemas import PRIORITY, RESPONSES
from moot.schemas.reply_bounds import Schema
from moot.schemas.words import CONFIDENCE

# words the schema and the template ask for, which the parser still takes in any case (`word`)
ConfidenceWord = Annotated[Text, word(*CONFIDENCE.words)]
Severity = Annotated[Text, word(*PRIORITY.words)]
FixPriority = Annotated[Text, word("MUST", "SHOULD", "COULD")]
FINDING_RESPONSES = tuple(w for w in RESPONSES.words if w != "withdraw")  # a finding another judge raised
EARLIER_ANSWERS = ("resolved", "unresolved")

# where a finding or claim points in the artifact: one short text ("src/app.py:12"), read into `file` and `line`
# (one field, not two: the reply must still fit the smallest output bound)
_LOCATION = "path:line as shown (a diff's new-file line), or empty"
# what moot checks a finding against (`moot.grounding`): only a finding whose quote is found can block
_QUOTE = "the exact text of the artifact this rests on, copied verbatim (checked; a finding without one cannot block)"

# the parser's roles: which field of each round holds the overall score and which the judge's statement
OVERALL = "overall score"
STATEMENT = "statement"


def _text(example: str, *, aliases: Sequence[str] = ()) -> Any:
    return reply_field(example=example, aliases=aliases, default="")


# ------------------------------------------------------------------ the entries of the judges' lists


class ClaimEntry(ReplyModel):
    claim: Text = _text("{specific claim}")
    evidence: Text = _text("{supporting reference from the artifacts}")
    confidence: ConfidenceWord = reply_field(default="")
    quote: Text = reply_field(_QUOTE, example="{exact text from the artifact}", default="")
    location: Text = reply_field(_LOCATION, default="")


class RaisedEntry(ReplyModel):
    finding: Text = _text("{if any CRITICAL issue}", aliases=("issue", "description"))
    severity: Severity = reply_field(example="CRITICAL", default="CRITICAL")
    evidence: Text = _text("{reference}")
    quote: Text = reply_field(_QUOTE, example="{exact text from the artifact}", default="")
    location: Text = reply_field(_LOCATION, default="")


class CheckEntry(ReplyModel):
    question: Text = _text("{verification question 1 of 5}")
    answer: Text = _text("{what re-examination showed}")


class AgreementEntry(ReplyModel):
    with_judge: Text = _text("{judge letter}")
    on_point: Text = _text("{what you agree with}", aliases=("point", "issue"))
    strengthening_evidence: Text = _text("{additional support}")


class DisagreementEntry(ReplyModel):
    with_judge: Text = _text("{judge letter}")
    on_point: Text = _text("{what you disagree with}", aliases=("point", "issue"))
    my_counterargument: Text = _text("{rebuttal}")
    my_evidence: Text = _text("{supporting reference}")
    their_evidence_weakness: Text = _text("{why their evidence is insufficient}")


class DisputeEntry(ReplyModel):
    topic: Text = _text("{what remains disputed}", aliases=("issue",))
    my_view: Text = _text("{my position}", aliases=("my_final_view",))
    opposing_view: Text = _text("{their position}")


class MaintainedEntry(ReplyModel):
    point: Text = _text("{argument I maintain}")
    reason: Text = _text("{why I'm confident}")
    evidence: Text = _text("{supporting reference}")


class ConcessionEntry(ReplyModel):
    point: Text = _text("{what I now accept}")
    convinced_by: Text = _text("{which judge/argument}")


class UnresolvedEntry(ReplyModel):
    issue: Text = _text("{remaining dispute}", aliases=("topic",))
    my_final_view: Text = _text("{my position}", aliases=("my_view",))
    opposing_view: Text = _text("{their position}")
    why_unresolved: Text = _text("{fundamental difference}")


class CriterionScores(ReplyModel):
    """One score per criterion: its fields are the request's criterion keys (`criterion_scores`)."""


class FindingAnswers(ReplyModel):
    """The answer to each open CRITICAL finding: its fields are the findings' ids (`finding_answers`)."""


class EarlierAnswers(ReplyModel):
    """A follow-up's answer to each earlier item: its fields are the items' ids (`earlier_answers`)."""


_DIMENSIONS = ("revised_dimension_scores", "criteria_scores", "criterion_scores", "revised_scores", "scores")
_RESPONSES = ("critical_finding_responses",)
_ACCEPTS = ("accept_consensus", "agreement_reached", "consensus_accepted")
_SCORES_HELP = "one score from 1 to 5 per criterion"
_RAISED_HELP = "only CRITICAL findings block acceptance; leave the list empty when there is none"
_RESPONSES_HELP = "your answer to every open CRITICAL finding, by its id"
_ACCEPTS_HELP = "whether you accept the panel's consensus as it now stands"


# ------------------------------------------------------------------ a judge's three rounds


class ScoredAnalysis(ReplyModel):
    """Round 1, independent analysis (seed 000's template, seed 003's per-criterion scores)."""

    overall_score: Annotated[Score | None, OVERALL] = reply_field(
        "the weighted score of your criterion scores, 1 to 5",
        example="X.X",
        comment="1-5",
        aliases=("revised_score", "new_weighted_score", "score"),
        default=None,
    )
    dimension_scores: CriterionScores | None = reply_field(_SCORES_HELP, aliases=_DIMENSIONS, default=None)
    position_statement: Annotated[LongText, STATEMENT] = reply_field(
        "your assessment: strengths and concerns with evidence, verdict",
        example="{strengths and concerns, each with its evidence; your verdict from your stance}",
        block=True,
        aliases=("statement", "assessment"),
        default="",
    )
    key_claims: list[ClaimEntry] = reply_field(default_factory=list)
    critical_findings: list[RaisedEntry] = reply_field(_RAISED_HELP, default_factory=list)
    verification: Annotated[list[CheckEntry], items(5)] = reply_field(
        "five verification questions", aliases=("verification_questions",), default_factory=list
    )
    # a follow-up's: whether the new version resolved each earlier finding (asked only in a follow-up)
    earlier_findings: EarlierAnswers | None = reply_field("each earlier finding", default=None)


class ScoredRebuttal(ReplyModel):
    """Round 2 (and any round before the last of three): the rebuttal."""

    score_changed: bool | None = reply_field(default=None)
    new_score: Annotated[Score | None, OVERALL] = reply_field(
        "your overall score now, 1 to 5", example="X.X", default=None
    )
    change_reason: LongText = reply_field(
        "why the score changed, naming what moved it (a finding id such as C1, or Judge B), or why it is maintained",
        example="{what moved your score (a finding id such as C1, or Judge B), or why you hold it}",
        block=True,
        default="",
    )
    dimension_scores: CriterionScores | None = reply_field(_SCORES_HELP, aliases=_DIMENSIONS, default=None)
    agreements: Annotated[list[AgreementEntry], items(2)] = reply_field(default_factory=list)
    disagreements: Annotated[list[DisagreementEntry], items(2)] = reply_field(default_factory=list)
    critical_responses: FindingAnswers | None = reply_field(_RESPONSES_HELP, aliases=_RESPONSES, default=None)
    critical_findings: list[RaisedEntry] = reply_field(
        _RAISED_HELP,
        inline_empty=True,
        comment="any NEW critical finding, same shape as in round 1",
        default_factory=list,
    )
    accepts_consensus: bool | None = reply_field(_ACCEPTS_HELP, aliases=_ACCEPTS, default=None)
    position_revision: Annotated[LongText, STATEMENT] = reply_field(
        "points you accept, points you reject, your revised assessment",
        example="{points you accept (from whom, why), points you reject (why), your revised assessment}",
        block=True,
        default="",
    )
    unresolved_disputes: Annotated[list[DisputeEntry], items(2)] = reply_field(default_factory=list)


class ScoredFinal(ReplyModel):
    """The last round of three: final positions."""

    final_score: Annotated[Score | None, OVERALL] = reply_field(
        "your final overall score, 1 to 5", example="X.X", default=None
    )
    dimension_scores: CriterionScores | None = reply_field(_SCORES_HELP, aliases=_DIMENSIONS, default=None)
    final_position: Annotated[LongText, STATEMENT] = reply_field(
        "your comprehensive final assessment",
        example="{your final assessment}",
        block=True,
        default="",
    )
    key_points_maintained: list[MaintainedEntry] = reply_field(default_factory=list)
    concessions_made: Annotated[list[ConcessionEntry], items(2)] = reply_field(default_factory=list)
    critical_responses: FindingAnswers | None = reply_field(_RESPONSES_HELP, aliases=_RESPONSES, default=None)
    accepts_consensus: bool | None = reply_field(_ACCEPTS_HELP, aliases=_ACCEPTS, default=None)
    unresolved_disagreements: Annotated[list[UnresolvedEntry], items(2)] = reply_field(default_factory=list)


# the declared reply of each phase: the schema, the example and the keys the parser reads all come from here
PHASES: dict[str, type[ReplyModel]] = {"round_1": ScoredAnalysis, "rebuttal": ScoredRebuttal, "final": ScoredFinal}


class DivergentEntry(ReplyModel):
    finding: Text = _text("{what judges disagree on}")
    positions: Text = reply_field("each judge's view", default="")  # by judge: `judges_views`
    user_decision_needed: Flag = reply_field(default=None)


class ConvergentEntry(ReplyModel):
    finding: Text = _text("{what all judges agree on}")
    priority: Severity = reply_field(default="")
    action_required: Flag = reply_field(default=None)


class RecommendationEntry(ReplyModel):
    priority: FixPriority = reply_field(default="")
    action: Text = _text("{specific action}")
    rationale: Text = _text("{from the debate}")


class CritiqueEntry(ReplyModel):
    questions_passed: Text = reply_field('how many of the five questions passed, as "X/5"', example="X/5", default="")
    synthesis_quality: ConfidenceWord = reply_field(default="")
    potential_bias: Text = _text("{any observed moderator bias}")


class SynthesisReply(ReplyModel):
    """The moderator's synthesis (seed 001's debate-judge); its numbers are never taken, only its prose."""

    majority_opinion: LongText = reply_field(
        "summary of the winning position, or of the consensus", block=True, default=""
    )
    minority_opinion: LongText = reply_field("summary of the dissenting view; empty if none", block=True, default="")
    convergent_findings: list[ConvergentEntry] = reply_field(default_factory=list)
    divergent_findings: list[DivergentEntry] = reply_field(default_factory=list)
    recommendations: list[RecommendationEntry] = reply_field(default_factory=list)
    self_critique: CritiqueEntry | None = reply_field(default=None)


class JudgeViews(ReplyModel):
    """Each judge's view of a divergent finding: its fields are the judges' ids (`judges_views`)."""


# ------------------------------------------------------------------ the shapes of one debate

M = TypeVar("M", bound=ReplyModel)


def _keyed(base: type[M], keys: Sequence[str], annotation: Any, **field: Any) -> type[M]:
    """`base` with one field per run-time key (criterion keys, finding ids, judges' ids), in order."""
    return specialize(base, base.__name__, **{k: (annotation, reply_field(default=None, **field)) for k in keys})


def criterion_scores(keys: Sequence[str]) -> type[CriterionScores]:
    # each score's scale said once, in the object's description; a field's own says only "1 to 5"
    return _keyed(CriterionScores, keys, Score | None, description="1 to 5", example="X")


def finding_answers(open_findings: Sequence[tuple[str, bool]]) -> type[FindingAnswers]:
    """(finding id, raised by this judge) -> accept | reject (| withdraw for the judge's own)."""
    fields = {
        fid: (one_of(RESPONSES.words if own else FINDING_RESPONSES), reply_field(default=None))
        for fid, own in open_findings
    }
    return specialize(FindingAnswers, "FindingAnswers", **fields)


def earlier_answers(ids: Sequence[str]) -> type[EarlierAnswers]:
    return _keyed(EarlierAnswers, ids, one_of(EARLIER_ANSWERS))


def judges_views(judge_ids: Sequence[str]) -> type[JudgeViews]:
    return _keyed(JudgeViews, judge_ids, Text, example="{view}")


@functools.cache
def _entry(model: type[ReplyModel], left_out: tuple[str, ...]) -> type[ReplyModel]:
    """An entry of a list without some of its fields, built once (a model is costly to build)."""
    return specialize(model, model.__name__, without=left_out)


def phase_model(
    phase: str,
    criteria_keys: Sequence[str],
    *,
    open_findings: Sequence[tuple[str, bool]] = (),
    require_acceptance: bool = False,
    earlier_ids: Sequence[str] = (),
) -> type[ReplyModel]:
    """The declared reply of `phase` ("round_1", "rebuttal" or "final") for one judge of one debate.

    `open_findings` are the open CRITICAL findings the template lists, each with whether this judge raised
    it (only then may it withdraw it); `earlier_ids` a follow-up's earlier items (round 1 only).
    """
    if phase not in PHASES:
        raise ValueError(f"unknown evaluation phase {phase!r} (round_1, rebuttal, final)")
    model = PHASES[phase]
    fields: dict[str, Any] = {"dimension_scores": criterion_scores(criteria_keys)}
    if phase != "final":  # the list is of CRITICAL findings, and its quote is its evidence in a rebuttal: the
        # schema asks neither (a reply must still fit the smallest output bound); the parser reads both if given
        left_out = ("severity",) if phase == "round_1" else ("severity", "evidence")
        fields["critical_findings"] = list[_entry(RaisedEntry, left_out)]  # type: ignore[misc]
    if phase == "round_1":
        fields["key_claims"] = list[_entry(ClaimEntry, ("evidence",))]  # type: ignore[misc]
        if earlier_ids:  # a follow-up: whether the new version resolved each earlier finding
            fields["earlier_findings"] = earlier_answers(earlier_ids)
        return specialize(model, model.__name__, without=() if earlier_ids else ("earlier_findings",), **fields)
    without = [] if open_findings else ["critical_responses"]  # an empty object would be a reply with nothing in it
    if open_findings:
        fields["critical_responses"] = finding_answers(open_findings)
    if not require_acceptance:  # asked only when the panel's consensus needs every judge's explicit yes
        without.append("accepts_consensus")
    return specialize(model, model.__name__, without=without, **fields)


def evaluate_reply_schema(
    criteria_keys: Sequence[str],
    *,
    phase: str,
    open_findings: Sequence[tuple[str, bool]] = (),
    require_acceptance: bool = False,
    earlier_ids: Sequence[str] = (),
) -> Schema:
    """A judge's reply in the scored evaluation, as the JSON schema sent (see `phase_model`)."""
    model = phase_model(
        phase,
        criteria_keys,
        open_findings=open_findings,
        require_acceptance=require_acceptance,
        earlier_ids=earlier_ids,
    )
    return reply_schema(model)


def phase_example(model: type[ReplyModel], values: Mapping[str, Any]) -> str:
    """The template a round's prompt shows, from the model of that round (a follow-up's `earlier_findings`
    is asked in the prompt's words, after the template)."""
    if "earlier_findings" in set(model.model_fields) - model.omitted_fields:
        model = specialize(model, model.__name__, without=("earlier_findings",))
    return reply_example(model, values)


def moderator_model(judge_ids: Sequence[str]) -> type[SynthesisReply]:
    """The moderator's synthesis; `judge_ids` are the judges whose views a divergent finding names."""
    if not judge_ids:
        return SynthesisReply
    entry = specialize(DivergentEntry, "DivergentEntry", positions=judges_views(judge_ids))
    return specialize(SynthesisReply, "SynthesisReply", divergent_findings=list[entry])  # type: ignore[valid-type]


def moderator_reply_schema(judge_ids: Sequence[str]) -> Schema:
    return reply_schema(moderator_model(judge_ids))


def moderator_example() -> str:
    """The template the moderator's prompt shows (one judge named, as an illustration)."""
    return reply_example(moderator_model(["judge-1"]))

"""`moot bench` (issue 11): the gold items a suite is made of, and the figures a bench run reports.

Gold items come in two shapes, one per protocol that judges them:
- `PairwiseItem` `{"id", "question", "response_A", "response_B", "label": "A>B"|"B>A"}`, judged by `decide`;
- `ScoredItem` `{"id", "task", "artifact", "gold": "pass"|"fail"}`, judged by `evaluate`.
Either may carry a `source` (JudgeBench's mmlu, livebench, livecodebench) for the per-source breakdown.

The JSON form of `BenchResult` is a contract: `suite`, `items`, `swap_consistency`, `per_item` (id, gold,
each strategy's answer), `verdict`, and `strategies.<name>` with `accuracy`, `ci95`, `kappa`,
`calls_per_item`, `tokens_per_item`, `cost_per_item`; `debate` adds `round1_share`, `helpful_flips`,
`harmful_flips`, `collapse` and `mcnemar`. What a user needs beyond that is added, never renamed.

Issue 21 added, as contracts: every strategy's `ties`; `accuracy_given_order` (for pairs judged in both
orders `accuracy` is JudgeBench's: right in both orders, an inconsistent pair wrong); `position` (the
share of first-shown picks with its interval, and accuracy by where the right response was shown);
`calibration` (`HIGH`, `MEDIUM`, `LOW` -> `{n, accuracy, ci95}`) with `ece`; `debate`'s `talked_out`,
`not_rescued` (their sum is `collapse`, which keeps its meaning), `aggregator_changes` and
`round1_vs_final`; and the result's `differences` (`"debate-vote"`, `"debate-vote@equal"`,
`"vote-single"`, `"vote@equal-vote"`, each `{estimate, ci95, p_value, test}`) and `margin`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, model_validator

PairLabel = Literal["A>B", "B>A"]
ScoredGold = Literal["pass", "fail"]
SuiteKind = Literal["pairwise", "scored", "choice"]
STRATEGIES = ("single", "vote", "vote@equal", "debate")  # what a bench runs unless told otherwise
KNOWN_STRATEGIES = (*STRATEGIES, "select")  # `select`: best-of-N, one judge picks among round 1's answers


def _id_text(v: Any) -> Any:
    """Gold files written by hand often number their items: 7 is the id "7"."""
    if isinstance(v, int) and not isinstance(v, bool):
        v = str(v)
    if isinstance(v, str):
        v = v.strip()
        if not v:
            raise ValueError("the id cannot be empty")
    return v


ItemId = Annotated[str, BeforeValidator(_id_text)]


class PairwiseItem(BaseModel):
    """Two responses to one question; `label` says which one is right."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: ItemId
    question: str = Field(min_length=1)
    response_A: str
    response_B: str
    label: PairLabel
    source: str | None = None

    @model_validator(mode="after")
    def _two_responses(self) -> PairwiseItem:
        """Identical responses leave nothing to judge: any answer is both right and wrong."""
        if self.response_A == self.response_B:
            raise ValueError("response_A and response_B are identical: there is nothing to judge between them")
        return self

    @property
    def gold(self) -> str:
        return self.label


class ScoredItem(BaseModel):
    """One artifact for one task; `gold` says whether it should pass."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: ItemId
    task: str = Field(min_length=1)
    artifact: str = Field(min_length=1)
    gold: ScoredGold
    source: str | None = None


class ChoiceItem(BaseModel):
    """A multiple-choice question: `options` maps each option id to its text (two or more, in the order
    they are shown); `answer` is the right option's id. Judged by `decide` over those options."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: ItemId
    question: str = Field(min_length=1)
    options: dict[Annotated[str, Field(min_length=1, max_length=16, pattern=r"^[A-Za-z0-9_-]+$")], str]
    answer: str
    source: str | None = None

    @model_validator(mode="after")
    def _answerable(self) -> ChoiceItem:
        """The answer must be one of the options, and two options with one text leave nothing to choose."""
        if len(self.options) < 2:
            raise ValueError("options: a multiple-choice item needs at least two options")
        if self.answer not in self.options:
            raise ValueError(f"answer {self.answer!r} is not one of the options ({', '.join(self.options)})")
        if len(set(self.options.values())) < len(self.options):
            raise ValueError("options: two options have the same text: there is nothing to choose between them")
        return self

    @property
    def gold(self) -> str:
        return self.answer


GoldItem = PairwiseItem | ScoredItem | ChoiceItem


class _Figures(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CalibrationBin(_Figures):
    """The answers stated at one confidence level: how many, and the share of them that were right."""

    n: int
    accuracy: float | None  # None when no answer was stated at this level
    ci95: tuple[float, float] | None


class PositionFigures(_Figures):
    """Position bias with its direction, over every judgment in both orders.

    `first_share`: the share of answers that picked the response shown first (0.5 without bias), with
    its Wilson interval; `accuracy_right_first` / `accuracy_right_second`: accuracy on the judgments
    where the right response was shown first / second.
    """

    judgments: int
    first_share: float | None
    first_ci95: tuple[float, float] | None
    accuracy_right_first: float | None
    accuracy_right_second: float | None


class _Extras(_Figures):
    """What issue 21 added to every strategy and judge (see the module's note)."""

    ties: int = 0  # items whose answer broke a tie (by the item's seeded draw)
    accuracy_given_order: float | None = None  # pairs judged in both orders: the given order alone
    position: PositionFigures | None = None
    calibration: dict[str, CalibrationBin] | None = None  # HIGH / MEDIUM / LOW; None: no confidence stated
    ece: float | None = None  # expected calibration error, HIGH = 0.9, MEDIUM = 0.7, LOW = 0.5


class JudgeFigures(_Extras):
    """One judge alone (strategy `single`). `model` is the seat's model (or label); `swap_consistency`
    its own position consistency, None when the pairs were not judged in both orders."""

    accuracy: float
    ci95: tuple[float, float]
    kappa: float | None
    model: str = ""
    swap_consistency: float | None = None


class StrategyFigures(_Extras):
    """The figures every strategy has. `kappa` is None when it is undefined (gold and answers each constant);
    `ci95` is Wilson's score interval (the mean judge's, a bootstrap: its outcomes are not 0/1)."""

    accuracy: float
    ci95: tuple[float, float]
    kappa: float | None
    calls_per_item: float
    tokens_per_item: float
    cost_per_item: float | None  # None when a model's price is unknown
    swap_consistency: float | None = None  # this strategy's position consistency (pairs judged both ways)


class SingleFigures(StrategyFigures):
    """Each judge alone. `accuracy`, `ci95` and `kappa` are the mean judge's; `best` names the best judge."""

    judges: dict[str, JudgeFigures]
    best: str
    best_accuracy: float
    mean_accuracy: float
    chosen: str = ""  # the judge the verdict keeps: the best on a seeded half of the items
    chosen_on: int = 0  # items it was chosen on
    held_out: int = 0  # the other items, on which the verdict compares it
    chosen_accuracy: float | None = None  # its accuracy on those held-out items


class VoteAtEqualFigures(StrategyFigures):
    """A majority over `samples` independent answers per item: as many calls as the debate spent on average."""

    samples: int


class McNemarFigures(_Figures):
    """The paired test of debate against `versus` on the same items.

    `debate_only`: items the debate got right and `versus` wrong; `versus_only`: the reverse. `test` is
    "exact binomial" for few discordant items, "chi-square (continuity corrected)" otherwise.
    """

    versus: str
    debate_only: int
    versus_only: int
    p_value: float
    test: str


class DebateFigures(StrategyFigures):
    """The full protocol, and what its rounds after the first changed."""

    round1_share: float
    helpful_flips: int
    harmful_flips: int
    collapse: int  # talked_out + not_rescued
    mcnemar: McNemarFigures | None
    talked_out: int = 0  # a judge right in round 1 switched to a wrong answer, and the verdict is wrong
    not_rescued: int = 0  # every judge right in round 1 kept its answer and was outvoted
    aggregator_changes: int = 0  # the verdict moved while no judge's answer did (never counted as a flip)
    round1_vs_final: dict[str, int] = Field(default_factory=dict)  # right_to_right, right_to_wrong, ...
    threshold: float | None = None  # the consensus threshold used for pairwise items (unanimity by default)
    note: str = ""


AnyFigures = DebateFigures | SingleFigures | VoteAtEqualFigures | StrategyFigures


class PerItem(_Figures):
    """One gold item and what each strategy answered.

    `answers` maps a strategy to its answer ("A>B", "pass", ...; None when it reached none); for `single`
    it is the best judge's. `judges` holds each judge's own answer alone. With `--swap`, `swapped` holds
    the answers given with the two responses in the other order, put back in the item's own labels.
    """

    id: str
    gold: str
    source: str | None = None
    answers: dict[str, str | None]
    judges: dict[str, str | None] = Field(default_factory=dict)
    swapped: dict[str, str | None] | None = None
    debate_ids: dict[str, str] = Field(default_factory=dict)


class SourceFigures(_Figures):
    """Accuracy per strategy on the items of one source."""

    items: int
    accuracy: dict[str, float]


class DifferenceFigures(_Figures):
    """first - second on the same items (a share; +0.05 is five points in the first's favour)."""

    estimate: float
    ci95: tuple[float, float]
    p_value: float
    test: str
    n: int  # the items compared (`vote-single`: the half the single judge was not chosen on)


DIFFERENCES = (("debate", "vote"), ("debate", "vote@equal"), ("vote", "single"), ("vote@equal", "vote"))


class EffectiveJudges(_Figures):
    """How many independent judges the panel is worth (`moot.bench.independence`): Kish's effective number
    from the mean pairwise correlation of the judges' correctness, with its bootstrap interval. `estimate`
    is None when no pair of judges varies (a judge right on every item)."""

    judges: int
    estimate: float | None
    ci95: tuple[float, float] | None
    correlation: float | None
    method: str


class AggregateFigures(_Figures):
    """One score aggregate on a scored suite (`moot.bench.aggregates`): the accuracy of reading the mean,
    median or trimmed mean of every judge's round-1 and final scores as pass at `pass_at`."""

    pass_at: float
    round1_accuracy: float
    round1_ci95: tuple[float, float]
    final_accuracy: float
    final_ci95: tuple[float, float]


class BenchResult(_Figures):
    """A bench run over one suite with one panel."""

    suite: str
    kind: SuiteKind
    items: int
    seed: int
    swap_consistency: float | None  # None when the pairs were not judged in both orders
    verdict: str
    strategies: dict[str, AnyFigures]
    per_item: list[PerItem]
    by_source: dict[str, SourceFigures] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    differences: dict[str, DifferenceFigures] = Field(default_factory=dict)  # "debate-vote", ...
    margin: float = 0.03  # the equivalence margin the verdict's TOST used (a share)
    both_orders: bool = False  # accuracy is JudgeBench's: right in both orders
    effective_judges: EffectiveJudges | None = None  # the panel's worth in independent judges (issue 30)
    aggregates: dict[str, AggregateFigures] = Field(default_factory=dict)  # scored suites: mean, median, trimmed_mean


# the names the docs send users to (tests/test_public_surface.py pins them)
__all__ = ["BenchResult", "ChoiceItem", "PairwiseItem", "ScoredItem"]

"""`moot bench` (issue 11): the gold items a suite is made of, and the figures a bench run reports.

Gold items come in two shapes, one per protocol that judges them:
- `PairwiseItem` `{"id", "question", "response_A", "response_B", "label": "A>B"|"B>A"}`, judged by `decide`;
- `ScoredItem` `{"id", "task", "artifact", "gold": "pass"|"fail"}`, judged by `evaluate`.
Either may carry a `source` (JudgeBench's mmlu, livebench, livecodebench) for the per-source breakdown.

The JSON form of `BenchResult` is a contract: `suite`, `items`, `swap_consistency`, `per_item` (id, gold,
each strategy's answer), `verdict`, and `strategies.<name>` with `accuracy`, `ci95`, `kappa`,
`calls_per_item`, `tokens_per_item`, `cost_per_item`; `debate` adds `round1_share`, `helpful_flips`,
`harmful_flips`, `collapse` and `mcnemar`. What a user needs beyond that is added, never renamed.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

PairLabel = Literal["A>B", "B>A"]
ScoredGold = Literal["pass", "fail"]
SuiteKind = Literal["pairwise", "scored"]
STRATEGIES = ("single", "vote", "vote@equal", "debate")


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


GoldItem = PairwiseItem | ScoredItem


class _Figures(BaseModel):
    model_config = ConfigDict(extra="forbid")


class JudgeFigures(_Figures):
    """One judge alone (strategy `single`). `model` is the seat's model (or label); `swap_consistency`
    its own position consistency, None when the pairs were not judged in both orders."""

    accuracy: float
    ci95: tuple[float, float]
    kappa: float | None
    model: str = ""
    swap_consistency: float | None = None


class StrategyFigures(_Figures):
    """The figures every strategy has. `kappa` is None when it is undefined (gold and answers each constant)."""

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
    collapse: int
    mcnemar: McNemarFigures | None
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

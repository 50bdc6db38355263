"""A bench run's result from what its strategies answered (`moot.bench.answers`): accuracy with its 95%
interval, κ, spend per item, position consistency, what the debate's later rounds changed, the paired
test of debate against vote, and the verdict. Pure functions on plain data.

`single` is reported for each judge, for the best one and for the mean judge. Its headline figures are
the mean judge's: the best judge is picked on these very items, which flatters it. The verdict compares
the best judge, since that is the one a user would keep.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from moot.bench.answers import Column, ItemRuns, Spend, judge_columns, judge_models, reader, strategy_columns
from moot.bench.metrics import (
    Contender,
    accuracy,
    bootstrap_ci,
    cohen_kappa,
    correctness,
    flips,
    mcnemar,
    record_from_effect,
    swap_consistency,
    unswap,
    verdict,
)
from moot.schemas.bench import (
    AnyFigures,
    BenchResult,
    DebateFigures,
    JudgeFigures,
    McNemarFigures,
    PerItem,
    SingleFigures,
    SourceFigures,
    StrategyFigures,
    SuiteKind,
    VoteAtEqualFigures,
)


@dataclass(frozen=True)
class Setting:
    """What the figures need to know about the run besides its debates."""

    suite: str
    kind: SuiteKind
    seed: int
    strategies: tuple[str, ...]
    samples: int = 0  # k: vote@equal's answers per item
    threshold: float | None = None  # pairwise debates' consensus threshold
    threshold_from_file: bool = False
    round1_only: bool = False  # the debates stopped after round 1 (only single and vote asked)
    notes: tuple[str, ...] = ()


def threshold_note(threshold: float, from_file: bool) -> str:
    if from_file:
        return f"Pairwise debates used the judges file's consensus threshold ({threshold:g})."
    return (
        f"Pairwise debates need unanimity (consensus threshold {threshold:g}): with two options and three judges, "
        "decide's default 2/3 threshold is always met in round 1, so the debate would always equal the vote."
    )


def bench_result(runs: Sequence[ItemRuns], s: Setting) -> BenchResult:
    """The result over `runs` (at least one item, every one with its given-order debate)."""
    if not runs:
        raise ValueError("a bench result needs at least one judged item")
    gold = [r.item.gold for r in runs]
    judges = judge_columns(runs, s.kind)
    columns = strategy_columns(runs, s.kind, s.samples)
    figures: dict[str, AnyFigures] = {}
    for name in s.strategies:
        if name == "single":
            figures[name] = _single(judges, judge_models(runs), gold, s.seed)
        elif name == "debate":
            figures[name] = _debate(columns["debate"], columns["vote"], runs, gold, s)
        elif name == "vote@equal":
            figures[name] = VoteAtEqualFigures(**_common(columns[name], gold, s.seed), samples=s.samples)
        else:
            figures[name] = StrategyFigures(**_common(columns[name], gold, s.seed))
    panel_column = columns["vote" if s.round1_only else "debate"]
    return BenchResult(
        suite=s.suite,
        kind=s.kind,
        items=len(runs),
        seed=s.seed,
        swap_consistency=_consistency(panel_column),
        verdict=verdict(_contenders(s.strategies, figures, judges, columns, gold)),
        strategies=figures,
        per_item=_per_item(runs, s, judges, columns, figures),
        by_source=_by_source(runs, s.strategies, judges, columns),
        notes=_notes(s),
    )


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _spend_figures(spends: Sequence[Spend]) -> dict[str, Any]:
    costs = [sp.cost for sp in spends]
    return {
        "calls_per_item": _mean([sp.calls for sp in spends]),
        "tokens_per_item": _mean([sp.tokens for sp in spends]),
        "cost_per_item": None if any(c is None for c in costs) else _mean([c or 0.0 for c in costs]),
    }


def _consistency(column: Column) -> float | None:
    """Position consistency over the items judged in both orders; None when there are none."""
    if not column.backward:
        return None
    idx = sorted(column.backward)
    return swap_consistency([column.answers[i] for i in idx], [column.backward[i] for i in idx])


def _common(column: Column, gold: Sequence[str], seed: int) -> dict[str, Any]:
    correct = correctness(column.answers, gold)
    return {
        "accuracy": accuracy(correct),
        "ci95": bootstrap_ci(correct, seed=seed),
        "kappa": cohen_kappa(column.answers, gold),
        **_spend_figures(column.spends),
        "swap_consistency": _consistency(column),
    }


def _single(judges: Mapping[str, Column], models: Mapping[str, str], gold: Sequence[str], seed: int) -> SingleFigures:
    per = {
        seat: JudgeFigures(**_without(_common(c, gold, seed), *_SPEND), model=models.get(seat, ""))
        for seat, c in judges.items()
    }
    best = max(per, key=lambda seat: per[seat].accuracy)  # ties: the first seat
    correct = [correctness(c.answers, gold) for c in judges.values()]
    mean_judge = [_mean([float(js[i]) for js in correct]) for i in range(len(gold))]
    kappas = [f.kappa for f in per.values() if f.kappa is not None]
    spends = [_spend_figures(c.spends) for c in judges.values()]
    costs = [sp["cost_per_item"] for sp in spends]
    swaps = [f.swap_consistency for f in per.values()]
    return SingleFigures(
        accuracy=accuracy(mean_judge),
        ci95=bootstrap_ci(mean_judge, seed=seed),
        kappa=_mean(kappas) if kappas else None,
        calls_per_item=_mean([sp["calls_per_item"] for sp in spends]),
        tokens_per_item=_mean([sp["tokens_per_item"] for sp in spends]),
        cost_per_item=None if any(c is None for c in costs) else _mean(costs),
        swap_consistency=None if any(x is None for x in swaps) else _mean([x or 0.0 for x in swaps]),
        judges=per,
        best=best,
        best_accuracy=per[best].accuracy,
        mean_accuracy=accuracy(mean_judge),
    )


_SPEND = ("calls_per_item", "tokens_per_item", "cost_per_item")


def _without(data: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in keys}


def _debate(column: Column, vote: Column, runs: Sequence[ItemRuns], gold: Sequence[str], s: Setting) -> DebateFigures:
    read = reader(s.kind)
    changed = flips([record_from_effect(r.given.effect, r.item.gold, read) for r in runs])
    test = mcnemar(correctness(column.answers, gold), correctness(vote.answers, gold))
    return DebateFigures(
        **_common(column, gold, s.seed),
        round1_share=changed.round1_share,
        helpful_flips=changed.helpful_flips,
        harmful_flips=changed.harmful_flips,
        collapse=changed.collapse,
        mcnemar=McNemarFigures(
            versus="vote",
            debate_only=test.first_only,
            versus_only=test.second_only,
            p_value=test.p_value,
            test=test.test,
        ),
        threshold=s.threshold,
        note=threshold_note(s.threshold, s.threshold_from_file) if s.threshold is not None else "",
    )


def _best_column(figures: Mapping[str, AnyFigures], judges: Mapping[str, Column]) -> Column:
    single = figures["single"]
    assert isinstance(single, SingleFigures)
    return judges[single.best]


def _column(
    name: str, figures: Mapping[str, AnyFigures], judges: Mapping[str, Column], columns: Mapping[str, Column]
) -> Column:
    return _best_column(figures, judges) if name == "single" else columns[name]


def _contenders(
    strategies: Sequence[str],
    figures: Mapping[str, AnyFigures],
    judges: Mapping[str, Column],
    columns: Mapping[str, Column],
    gold: Sequence[str],
) -> list[Contender]:
    out = []
    for name in strategies:
        column = _column(name, figures, judges, columns)
        spend = _spend_figures(column.spends)
        label = _best_judge_label(figures) if name == "single" else name
        out.append(Contender(label, correctness(column.answers, gold), spend["cost_per_item"], spend["calls_per_item"]))
    return out


def _best_judge_label(figures: Mapping[str, AnyFigures]) -> str:
    """`single` in the verdict is the best judge alone, named, so that its figure is not read as the mean's."""
    single = figures["single"]
    assert isinstance(single, SingleFigures)
    model = single.judges[single.best].model
    return f"{single.best} ({model}) alone" if model and model != single.best else f"{single.best} alone"


def _per_item(
    runs: Sequence[ItemRuns],
    s: Setting,
    judges: Mapping[str, Column],
    columns: Mapping[str, Column],
    figures: Mapping[str, AnyFigures],
) -> list[PerItem]:
    chosen = {name: _column(name, figures, judges, columns) for name in s.strategies}
    out = []
    for i, r in enumerate(runs):
        swapped = {name: unswap(c.backward[i]) for name, c in chosen.items() if i in c.backward}
        out.append(
            PerItem(
                id=r.item.id,
                gold=r.item.gold,
                source=r.item.source,
                answers={name: c.answers[i] for name, c in chosen.items()},
                judges={seat: c.answers[i] for seat, c in judges.items()},
                swapped=swapped if r.swapped is not None else None,
                debate_ids=r.debate_ids(),
            )
        )
    return out


def _by_source(
    runs: Sequence[ItemRuns], strategies: Sequence[str], judges: Mapping[str, Column], columns: Mapping[str, Column]
) -> dict[str, SourceFigures]:
    """Accuracy per strategy on each source's items (`single`: the mean judge)."""
    gold = [r.item.gold for r in runs]
    correct = {name: correctness(c.answers, gold) for name, c in columns.items()}
    per_judge = [correctness(c.answers, gold) for c in judges.values()]
    mean_judge = [_mean([float(js[i]) for js in per_judge]) for i in range(len(gold))]
    out: dict[str, SourceFigures] = {}
    for source in sorted({r.item.source for r in runs if r.item.source}):
        idx = [i for i, r in enumerate(runs) if r.item.source == source]
        shares = {
            name: _mean([mean_judge[i] if name == "single" else float(correct[name][i]) for i in idx])
            for name in strategies
        }
        out[source] = SourceFigures(items=len(idx), accuracy=shares)
    return out


def _notes(s: Setting) -> list[str]:
    notes = []
    if s.threshold is not None and "debate" in s.strategies:
        notes.append(threshold_note(s.threshold, s.threshold_from_file))
    if "vote@equal" in s.strategies:
        notes.append(
            f"vote@equal: a majority of {s.samples} independent round-1 answers per item (the debate's mean calls "
            "per item, rounded); a tie counts as no answer."
        )
    if "single" in s.strategies:
        notes.append("single: the headline figures are the mean judge's; the best judge is picked on these same items.")
    return [*notes, *s.notes]

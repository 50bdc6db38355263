"""A bench run's result from what its strategies answered (`moot.bench.answers`): accuracy with its 95%
interval, κ, spend per item, ties, position consistency and bias, calibration, what the debate's later
rounds changed, the paired differences between strategies, and the verdict. Pure functions on plain data.

For pairs judged in both orders, `accuracy` is JudgeBench's (right in both orders; `moot.bench.orders`)
and every comparison uses it. `ci95` is Wilson's interval for 0/1 outcomes; the mean judge (a share per
item) keeps the percentile bootstrap.

`single` is reported for each judge, for the best one and for the mean judge. Its headline figures are
the mean judge's. The judge the verdict keeps is chosen on a seeded half of the items and compared on the
other half (`chosen`, `chosen_on`, `held_out`, `chosen_accuracy`), so that picking it does not flatter it.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from moot.bench.aggregates import PASS_AT, aggregate_figures
from moot.bench.answers import BenchSpend, Column, ItemRuns, judge_columns, judge_models, reader, strategy_columns
from moot.bench.calibration import better_calibrated, calibration
from moot.bench.independence import effective_judges
from moot.bench.metrics import (
    BenchDebate,
    accuracy,
    bootstrap_ci,
    cohen_kappa,
    correctness,
    flips,
    mcnemar,
    swap_consistency,
    unswap,
)
from moot.bench.orders import both_orders, first_shown, position_of
from moot.bench.stats import wilson
from moot.bench.verdict import MARGIN, Contender, differences, verdict
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
    margin: float = MARGIN  # the verdict's equivalence margin (a share)
    judges: int = 3  # the panel's size, as the threshold note states it
    pass_at: float = PASS_AT  # scored suites: the pass mark each score aggregate is read at
    firsts: tuple[tuple[str, str], ...] = ()  # multiple-choice items: the option shown first, each order


def threshold_note(threshold: float, from_file: bool, judges: int = 3, choice: bool = False) -> str:
    """Which consensus threshold pairwise (or multiple-choice) debates used, and why, for a panel of `judges`."""
    kind, options = ("Multiple-choice", "several options") if choice else ("Pairwise", "two options")
    if from_file:
        return f"{kind} debates used the judges file's consensus threshold ({threshold:g})."
    need = -(-2 * judges // 3)  # the fewest judges that make 2/3 of the panel
    met = (
        "is always met in round 1, so the debate would always equal the vote"
        if judges >= 1 and -(-judges // 2) >= need and not choice
        else f"is met in round 1 whenever {need} of the {judges} judges agree, so the debate would mostly equal "
        "the vote"
    )
    return (
        f"{kind} debates need unanimity (consensus threshold {threshold:g}): with {options} and {judges} "
        f"judge{'s' if judges != 1 else ''}, decide's default 2/3 threshold {met}."
    )


def bench_result(runs: Sequence[ItemRuns], s: Setting) -> BenchResult:
    """The result over `runs` (at least one item, every one with its given-order debate)."""
    if not runs:
        raise ValueError("a bench result needs at least one judged item")
    gold = [r.item.gold for r in runs]
    s = replace(s, firsts=tuple(first_shown(r.item) for r in runs))
    judges = judge_columns(runs, s.kind)
    columns = strategy_columns(runs, s.kind, s.samples, s.seed)
    figures: dict[str, AnyFigures] = {}
    for name in s.strategies:
        if name == "single":
            figures[name] = _single(judges, judge_models(runs), gold, s)
        elif name == "debate":
            figures[name] = _debate(columns["debate"], columns["vote"], runs, gold, s)
        elif name == "vote@equal":
            figures[name] = VoteAtEqualFigures(**_common(columns[name], gold, s), samples=s.samples)
        else:
            figures[name] = StrategyFigures(**_common(columns[name], gold, s))
    panel_column = columns["vote" if s.round1_only else "debate"]
    contenders = _contenders(s.strategies, figures, judges, columns, gold, s.seed)
    return BenchResult(
        suite=s.suite,
        kind=s.kind,
        items=len(runs),
        seed=s.seed,
        swap_consistency=_consistency(panel_column),
        verdict=_verdict(contenders, figures, s),
        strategies=figures,
        per_item=_per_item(runs, s, judges, columns, figures),
        by_source=_by_source(runs, s.strategies, judges, columns),
        notes=_notes(s),
        differences=differences(contenders),
        margin=s.margin,
        both_orders=any(c.backward for c in columns.values()),
        effective_judges=effective_judges(judges, gold, s.seed),
        aggregates=aggregate_figures(runs, s.pass_at) if s.kind == "scored" else {},
    )


def _verdict(contenders: Mapping[str, Contender], figures: Mapping[str, AnyFigures], s: Setting) -> str:
    sentence = verdict(list(contenders.values()), margin=s.margin)
    vote, debate = figures.get("vote"), figures.get("debate")
    if vote is not None and debate is not None:
        calibrated = better_calibrated(vote.ece, debate.ece)
        if calibrated:
            sentence += " " + calibrated
    return sentence


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _spend_figures(spends: Sequence[BenchSpend]) -> dict[str, Any]:
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


def headline(column: Column, gold: Sequence[str]) -> list[bool]:
    """What the accuracy counts: JudgeBench's both-order correctness for pairs judged both ways."""
    return both_orders(column, gold) if column.backward else correctness(column.answers, gold)


def _common(column: Column, gold: Sequence[str], s: Setting) -> dict[str, Any]:
    correct = headline(column, gold)
    given = correctness(column.answers, gold)
    bins, ece = calibration(column.confidence, given) if column.confidence else (None, None)
    return {
        "accuracy": accuracy(correct),
        "ci95": wilson(sum(correct), len(correct)),
        "kappa": cohen_kappa(column.answers, gold),
        **_spend_figures(column.spends),
        "swap_consistency": _consistency(column),
        "ties": len(column.tied),
        "accuracy_given_order": accuracy(given) if column.backward else None,
        "position": position_of(column, gold, s.kind, s.firsts),
        "calibration": bins,
        "ece": ece,
    }


def held_out(n: int, seed: int) -> tuple[list[int], list[int]]:
    """A seeded split of the items: the half the single judge is chosen on, and the half it is compared on."""
    idx = list(range(n))
    random.Random(f"{seed}:held-out").shuffle(idx)
    return sorted(idx[: n // 2]), sorted(idx[n // 2 :])


def _chosen(judges: Mapping[str, Column], gold: Sequence[str], seed: int) -> tuple[str, list[int], list[int]]:
    """The judge with the best accuracy on the choosing half (ties: the first seat), and the two halves."""
    choose, keep = held_out(len(gold), seed)
    right = {seat: headline(c, gold) for seat, c in judges.items()}
    seat = max(right, key=lambda k: sum(right[k][i] for i in choose))
    return seat, choose, keep


def _single(judges: Mapping[str, Column], models: Mapping[str, str], gold: Sequence[str], s: Setting) -> SingleFigures:
    per = {
        seat: JudgeFigures(**_without(_common(c, gold, s), *_SPEND), model=models.get(seat, ""))
        for seat, c in judges.items()
    }
    best = max(per, key=lambda seat: per[seat].accuracy)  # ties: the first seat
    correct = [headline(c, gold) for c in judges.values()]
    mean_judge = [_mean([float(js[i]) for js in correct]) for i in range(len(gold))]
    kappas = [f.kappa for f in per.values() if f.kappa is not None]
    spends = [_spend_figures(c.spends) for c in judges.values()]
    costs = [sp["cost_per_item"] for sp in spends]
    swaps = [f.swap_consistency for f in per.values()]
    chosen, choose, keep = _chosen(judges, gold, s.seed)
    kept = headline(judges[chosen], gold)
    return SingleFigures(
        accuracy=accuracy(mean_judge),
        ci95=bootstrap_ci(mean_judge, seed=s.seed),
        kappa=_mean(kappas) if kappas else None,
        calls_per_item=_mean([sp["calls_per_item"] for sp in spends]),
        tokens_per_item=_mean([sp["tokens_per_item"] for sp in spends]),
        cost_per_item=None if any(c is None for c in costs) else _mean(costs),
        swap_consistency=None if any(x is None for x in swaps) else _mean([x or 0.0 for x in swaps]),
        judges=per,
        best=best,
        best_accuracy=per[best].accuracy,
        mean_accuracy=accuracy(mean_judge),
        accuracy_given_order=_mean([f.accuracy_given_order for f in per.values() if f.accuracy_given_order is not None])
        if all(f.accuracy_given_order is not None for f in per.values())
        else None,
        chosen=chosen,
        chosen_on=len(choose),
        held_out=len(keep),
        chosen_accuracy=_mean([float(kept[i]) for i in keep]) if keep else None,
    )


_SPEND = ("calls_per_item", "tokens_per_item", "cost_per_item")


def _without(data: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in keys}


def _records(runs: Sequence[ItemRuns], s: Setting, vote: Column, debate: Column) -> list[BenchDebate]:
    """Each debate's record with its verdicts as the strategies read them (ties broken by the item's draw)."""
    read = reader(s.kind)
    out = []
    for i, r in enumerate(runs):
        judges = r.given.effect.get("judges", [])
        out.append(
            BenchDebate(
                r.item.gold,
                {str(j["judge"]): read(j.get("round1")) for j in judges},
                vote.answers[i],
                debate.answers[i],
                int(r.given.effect.get("rounds", 1)),
                {str(j["judge"]): read(j.get("final")) for j in judges},
            )
        )
    return out


def _debate(column: Column, vote: Column, runs: Sequence[ItemRuns], gold: Sequence[str], s: Setting) -> DebateFigures:
    changed = flips(_records(runs, s, vote, column))
    test = mcnemar(correctness(column.answers, gold), correctness(vote.answers, gold))
    counts = {k: v for k, v in asdict(changed).items() if k not in ("items", "table")}  # every flip count, whole
    return DebateFigures(
        **_common(column, gold, s),
        **counts,
        round1_vs_final=dict(changed.table),
        mcnemar=McNemarFigures(
            versus="vote",
            debate_only=test.first_only,
            versus_only=test.second_only,
            p_value=test.p_value,
            test=test.test,
        ),
        threshold=s.threshold,
        note=threshold_note(s.threshold, s.threshold_from_file, s.judges, s.kind == "choice")
        if s.threshold is not None
        else "",
    )


def _chosen_column(figures: Mapping[str, AnyFigures], judges: Mapping[str, Column]) -> Column:
    single = figures["single"]
    assert isinstance(single, SingleFigures)
    return judges[single.chosen]


def _column(
    name: str, figures: Mapping[str, AnyFigures], judges: Mapping[str, Column], columns: Mapping[str, Column]
) -> Column:
    return _chosen_column(figures, judges) if name == "single" else columns[name]


def _contenders(
    strategies: Sequence[str],
    figures: Mapping[str, AnyFigures],
    judges: Mapping[str, Column],
    columns: Mapping[str, Column],
    gold: Sequence[str],
    seed: int,
) -> dict[str, Contender]:
    """Each strategy as the verdict compares it; `single` is the chosen judge on its held-out half only."""
    out = {}
    for name in strategies:
        column = _column(name, figures, judges, columns)
        spend = _spend_figures(column.spends)
        correct: list[bool | None] = list(headline(column, gold))
        label = name
        if name == "single":
            single = figures["single"]
            assert isinstance(single, SingleFigures)
            choose, _ = held_out(len(gold), seed)
            for i in choose:
                correct[i] = None
            label = _chosen_label(single)
        out[name] = Contender(label, correct, spend["cost_per_item"], spend["calls_per_item"])
    return out


def _chosen_label(single: SingleFigures) -> str:
    """`single` in the verdict is the chosen judge alone, named, so that its figure is not read as the mean's."""
    model = single.judges[single.chosen].model
    name = f"{single.chosen} ({model})" if model and model != single.chosen else single.chosen
    return f"{name} alone (chosen on {single.chosen_on} items, compared on the other {single.held_out})"


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
    correct = {name: headline(c, gold) for name, c in columns.items()}
    per_judge = [headline(c, gold) for c in judges.values()]
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
        notes.append(threshold_note(s.threshold, s.threshold_from_file, s.judges, s.kind == "choice"))
    if "vote@equal" in s.strategies:
        notes.append(
            f"vote@equal: a majority of {s.samples} independent round-1 answers per item (the nearest odd number "
            "at or above the debate's mean calls per item)."
        )
    notes.append(
        "A tie is broken by a draw seeded by the item and --seed, the same in both orders; `ties` counts them."
    )
    if "single" in s.strategies:
        notes.append(
            "single: the headline figures are the mean judge's; the verdict keeps the judge that did best on a "
            "seeded half of the items and compares it on the other half."
        )
    return [*notes, *s.notes]

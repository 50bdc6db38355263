"""The paired differences between strategies and the verdict sentence: what the data can say, and no more.

Every strategy answers the same items, so two are compared item by item: the difference of their
accuracies with Tango's score interval and the mid-p McNemar test (`moot.bench.stats`). The verdict tests
the most accurate strategy against each other one and says, for each, one of three things:

- it is **equivalent** within the margin (±3 points by default, `--margin`): the two one-sided tests (TOST)
  pass, that is, the 90% interval of the difference lies inside the margin (a gap can be both significant
  and inside the margin; the sentence then says so). Only then may a cheaper strategy be recommended as
  "costs least at no loss";
- it is **worse** (mid-p < 0.05), with the difference and its interval;
- otherwise the comparison is **inconclusive at n = N**, and the sentence says how large a difference
  could have gone unseen (the minimum detectable difference at 80% power). Absence of evidence is never
  read as equivalence.

The single judge the verdict keeps is chosen on a seeded half of the items and compared on the other
half only (`Contender.correct` is None on the items it was chosen on): choosing it on the items it is
scored on would flatter it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from moot.bench.stats import Difference, detectable, equivalent, paired_difference
from moot.schemas.bench import DIFFERENCES, DifferenceFigures

MARGIN = 0.03
ALPHA = 0.05


@dataclass(frozen=True)
class Contender:
    """One strategy's correctness per item (None: not compared there) and, when known, its cost per item
    (USD, else calls)."""

    name: str
    correct: Sequence[bool | None]
    cost_per_item: float | None = None
    calls_per_item: float | None = None

    @property
    def accuracy(self) -> float:
        scored = [c for c in self.correct if c is not None]
        return sum(scored) / len(scored) if scored else 0.0


def paired(first: Contender, second: Contender) -> tuple[list[bool], list[bool]]:
    """The two correctness columns on the items both are compared on."""
    both = [(x, y) for x, y in zip(first.correct, second.correct, strict=True) if x is not None and y is not None]
    return [x for x, _ in both], [y for _, y in both]


def difference(first: Contender, second: Contender) -> Difference | None:
    a, b = paired(first, second)
    return paired_difference(a, b) if a else None


def differences(by_name: Mapping[str, Contender]) -> dict[str, DifferenceFigures]:
    """The contract's `"debate-vote"`, `"debate-vote@equal"`, `"vote-single"`, `"vote@equal-vote"`, for the
    strategies that ran."""
    out: dict[str, DifferenceFigures] = {}
    for first, second in DIFFERENCES:
        if first in by_name and second in by_name:
            d = difference(by_name[first], by_name[second])
            if d is not None:
                out[f"{first}-{second}"] = DifferenceFigures(
                    estimate=d.estimate, ci95=d.ci95, p_value=d.p_value, test=d.test, n=d.n
                )
    return out


def points(share: float) -> str:
    return f"{share * 100:+.1f}"


def _interval(ci: tuple[float, float]) -> str:
    return f"{ci[0] * 100:+.1f} to {ci[1] * 100:+.1f} points"


@dataclass(frozen=True)
class Comparison:
    other: Contender
    diff: Difference
    outcome: str  # "worse" | "equivalent" | "inconclusive"
    ci90: tuple[float, float]


def compare(best: Contender, other: Contender, margin: float, alpha: float) -> Comparison | None:
    a, b = paired(best, other)
    if not a:
        return None
    d = paired_difference(a, b)
    same, ci90 = equivalent(a, b, margin)
    outcome = "equivalent" if same else "worse" if d.p_value < alpha else "inconclusive"
    return Comparison(other, d, outcome, ci90)


def verdict(contenders: Sequence[Contender], *, margin: float = MARGIN, alpha: float = ALPHA) -> str:
    """Which strategy wins for this panel, which are equivalent to it (TOST), and which comparisons are
    inconclusive, with the smallest difference they could have detected."""
    if not contenders:
        raise ValueError("a verdict needs at least one strategy")
    ranked = sorted(enumerate(contenders), key=lambda ic: (-ic[1].accuracy, _price(ic[1]), ic[0]))
    best, rest = ranked[0][1], [c for _, c in ranked[1:]]
    if not rest:
        return f"Only {best.name} ran ({_pct(best)} right), so there is nothing to compare it with."
    found = [c for c in (compare(best, o, margin, alpha) for o in rest) if c is not None]
    if found and all(c.outcome == "worse" for c in found):
        runner = found[0]
        return (
            f"{best.name} wins for this panel: {_pct(best)} right against {_pct(runner.other)} for "
            f"{runner.other.name}, the next best ({_said(runner.diff)})."
        )
    parts = [f"{best.name} is the most accurate ({_pct(best)})."]
    for c in found:
        parts.append(_sentence(best, c, margin))
    same = [c.other for c in found if c.outcome == "equivalent"]
    cheapest = _cheapest([best, *same]) if same else None
    if cheapest is not None:
        parts.append(f"{cheapest.name} costs least at no loss (within ±{margin * 100:g} points, TOST).")
    return " ".join(parts)


def _said(d: Difference) -> str:
    return f"difference {points(d.estimate)} points, 95% CI {_interval(d.ci95)}, mid-p McNemar p = {d.p_value:.2g}"


def _on_compared(c: Comparison) -> str:
    """The other strategy's accuracy, on the compared items when they are fewer than its own (the single
    judge's held-out half), so that the difference quoted reads against the figures beside it."""
    t = c.diff.table
    if t.n == sum(1 for x in c.other.correct if x is not None):
        return _pct(c.other)
    return f"{(t.both + t.second_only) / t.n:.1%} on the {t.n} items compared"


def _sentence(best: Contender, c: Comparison, margin: float) -> str:
    name = f"{c.other.name} ({_on_compared(c)})"
    if c.outcome == "worse":
        return f"It beats {name}: {_said(c.diff)}."
    if c.outcome == "equivalent":
        sentence = (
            f"{name} is equivalent to it within ±{margin * 100:g} points (TOST: the 90% interval of the "
            f"difference, {_interval(c.ci90)}, lies inside the margin)"
        )
        if c.diff.p_value < ALPHA:
            sentence += f"; the gap, {points(c.diff.estimate)} points, is real but smaller than the margin"
        return sentence + "."
    gap = detectable(c.diff.table)
    return (
        f"{name} against it: inconclusive at n = {c.diff.n}: a difference smaller than ±{gap * 100:.1f} points "
        f"could not be detected ({_said(c.diff)})."
    )


def _price(c: Contender) -> tuple[float, float]:
    cost, calls = c.cost_per_item, c.calls_per_item
    return (math.inf if cost is None else cost, math.inf if calls is None else calls)


def _cheapest(group: Sequence[Contender]) -> Contender | None:
    """The one strictly cheapest in USD, else in calls, when every member's price is known."""
    for prices in ([c.cost_per_item for c in group], [c.calls_per_item for c in group]):
        known = [p for p in prices if p is not None]
        if len(known) == len(group) and known.count(min(known)) == 1:
            return group[known.index(min(known))]
    return None


def _pct(c: Contender) -> str:
    return f"{c.accuracy:.1%}"

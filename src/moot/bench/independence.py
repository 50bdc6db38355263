"""How many independent judges a panel is worth: Kish's effective number, from how alike the judges err.

Judges that err on the same items add little to one another. With n judges whose correctness on the items
has a mean pairwise correlation rho (the phi coefficient of each pair's right/wrong answers), a vote of them
carries as much information as n_eff = n / (1 + (n - 1) * rho) independent judges (Kish's design effect,
the intra-class correlation read as rho). rho is clipped to [0, 1]: judges erring on opposite items are
not counted as more than n. A pair whose correctness does not vary (a judge right on every item) tells
nothing about correlation and is left out; with no pair left the figure is not reported.

The interval is the percentile bootstrap over items (seeded, so the same run reports the same interval).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from itertools import combinations

from moot.bench.answers import Column
from moot.bench.metrics import correctness
from moot.schemas.bench import EffectiveJudges

RESAMPLES = 1000
METHOD = "Kish: n / (1 + (n - 1) * mean pairwise phi of the judges' correctness); 95% percentile bootstrap over items"


def phi(a: Sequence[bool], b: Sequence[bool]) -> float | None:
    """The correlation of two 0/1 sequences; None when either is constant."""
    n = len(a)
    pa, pb = sum(a) / n, sum(b) / n
    if pa in (0.0, 1.0) or pb in (0.0, 1.0):
        return None
    both = sum(1 for x, y in zip(a, b, strict=True) if x and y) / n
    return (both - pa * pb) / math.sqrt(pa * (1 - pa) * pb * (1 - pb))


def mean_correlation(right: Sequence[Sequence[bool]]) -> float | None:
    """The mean pairwise phi over the pairs of judges where it is defined, clipped to [0, 1]."""
    values = [r for a, b in combinations(right, 2) if (r := phi(a, b)) is not None]
    if not values:
        return None
    return min(1.0, max(0.0, sum(values) / len(values)))


def kish(n: int, rho: float) -> float:
    return n / (1 + (n - 1) * rho)


def effective_judges(judges: Mapping[str, Column], gold: Sequence[str], seed: int = 0) -> EffectiveJudges | None:
    """The panel's effective number of independent judges, with its 95% interval (None under two judges)."""
    right = [correctness(c.answers, gold) for c in judges.values()]
    n = len(right)
    if n < 2 or not gold:
        return None
    rho = mean_correlation(right)
    if rho is None:
        return EffectiveJudges(judges=n, estimate=None, ci95=None, correlation=None, method=METHOD)
    rng = random.Random(seed)
    draws: list[float] = []
    for _ in range(RESAMPLES):
        picks = [rng.randrange(len(gold)) for _ in gold]
        r = mean_correlation([[judge[i] for i in picks] for judge in right])
        if r is not None:
            draws.append(kish(n, r))
    draws.sort()
    ci = (draws[round(0.025 * (len(draws) - 1))], draws[round(0.975 * (len(draws) - 1))]) if draws else None
    return EffectiveJudges(judges=n, estimate=kish(n, rho), ci95=ci, correlation=rho, method=METHOD)

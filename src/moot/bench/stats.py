"""Interval estimates and paired tests for 0/1 outcomes, as a reviewer would ask for them. Pure functions.

- `wilson`: the score interval of one proportion. The percentile bootstrap collapses to a point at 60/60
  right ([1.00, 1.00]) and covers far less than 95% near 0 or 1; Wilson's interval does not (60/60 right
  gives [0.940, 1.000]).
- `paired_difference`: the difference of two strategies' accuracies on the same items, with Tango's score
  interval for paired proportions (Tango 1998; recommended by Fagerland, Lydersen and Laake 2014) and the
  mid-p McNemar test (Fagerland, Lydersen and Laake 2013), which holds its level better than the exact
  test and the continuity-corrected chi-square.
- `equivalent`: the two one-sided tests (TOST) in interval form: two strategies are equivalent within a
  margin when the 90% interval of their paired difference lies inside it (both one-sided 5% tests pass).
- `detectable`: the minimum detectable difference of a paired comparison of n items, so that "no
  difference found" can say how large a difference could have gone unseen.
- `calibration_error`: the expected calibration error of confidence labels read as stated probabilities.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

Z95 = NormalDist().inv_cdf(0.975)  # 1.959964...
POWER_Z = NormalDist().inv_cdf(0.80)  # the minimum detectable difference is for 80% power


def z_for(level: float) -> float:
    """The two-sided normal quantile for a confidence `level` (0.95 -> 1.96, 0.90 -> 1.645)."""
    return NormalDist().inv_cdf(0.5 + level / 2.0)


def wilson(successes: float, n: int, *, level: float = 0.95) -> tuple[float, float]:
    """Wilson's score interval of a proportion `successes`/`n` (n > 0)."""
    if n <= 0:
        raise ValueError("an interval over no items")
    z = z_for(level)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n))) / denom
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    return (0.0 if successes <= 0 else low, 1.0 if successes >= n else high)


@dataclass(frozen=True)
class Table2x2:
    """Paired outcomes on the same items: `both` right, `first_only`, `second_only`, `neither`."""

    both: int
    first_only: int
    second_only: int
    neither: int

    @property
    def n(self) -> int:
        return self.both + self.first_only + self.second_only + self.neither

    @classmethod
    def of(cls, first: Sequence[bool], second: Sequence[bool]) -> Table2x2:
        if len(first) != len(second):
            raise ValueError(f"paired sequences differ in length ({len(first)} and {len(second)})")
        pairs = list(zip(first, second, strict=True))
        return cls(
            sum(1 for x, y in pairs if x and y),
            sum(1 for x, y in pairs if x and not y),
            sum(1 for x, y in pairs if y and not x),
            sum(1 for x, y in pairs if not x and not y),
        )


def mcnemar_midp(b: int, c: int) -> float:
    """The two-sided mid-p McNemar test of `b` against `c` discordant items: twice the binomial tail
    P(X <= min(b, c)) of B(b + c, 1/2), less the probability of the observed count. 1 with none."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return float(min(1.0, 2.0 * tail - math.comb(n, k) / 2**n))


def _tango_statistic(t: Table2x2, delta: float) -> float:
    """Tango's score statistic for H0: p1 - p2 = `delta`, with the restricted maximum-likelihood estimate of
    the share answered right by the second alone (closed form, Tango 1998)."""
    n, b, c = t.n, t.first_only, t.second_only
    w = -b - c + delta * (2 * n - b + c)
    q = (-w + math.sqrt(max(0.0, w * w + 8 * n * c * delta * (1 - delta)))) / (4 * n)
    variance = n * (2 * q + delta * (1 - delta))
    gap = b - c - n * delta
    if variance <= 0:
        return math.copysign(math.inf, gap) if gap else 0.0
    return gap / math.sqrt(variance)


def tango_paired(t: Table2x2, *, level: float = 0.95) -> tuple[float, float]:
    """Tango's score interval for p1 - p2 on paired items (p1: the first right, p2: the second right): every
    difference the score test at 1 - `level` does not reject. It stays wide when few items are answered
    differently (no item at all: about ±28 points at n = 10), where Wald and Newcombe's intervals collapse."""
    if t.n == 0:
        raise ValueError("an interval over no items")
    z = z_for(level)
    estimate = (t.first_only - t.second_only) / t.n

    def root(lo: float, hi: float, target: float) -> float:
        for _ in range(200):  # the statistic falls as delta rises: bisect to float precision
            mid = (lo + hi) / 2
            if _tango_statistic(t, mid) > target:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    lower = -1.0 if _tango_statistic(t, -1.0) <= z else root(-1.0, estimate, z)
    upper = 1.0 if _tango_statistic(t, 1.0) >= -z else root(estimate, 1.0, -z)
    return (lower, upper)


@dataclass(frozen=True)
class Difference:
    """first - second on the same items: `estimate` (a share), its `ci95`, the mid-p McNemar `p_value`."""

    estimate: float
    ci95: tuple[float, float]
    p_value: float
    n: int
    table: Table2x2
    test: str = "Tango score interval; mid-p McNemar"


def paired_difference(first: Sequence[bool], second: Sequence[bool]) -> Difference:
    """The paired difference of two strategies' correctness on the same items."""
    t = Table2x2.of(first, second)
    if t.n == 0:
        raise ValueError("a difference over no items")
    return Difference(
        (t.first_only - t.second_only) / t.n, tango_paired(t), mcnemar_midp(t.first_only, t.second_only), t.n, t
    )


def equivalent(first: Sequence[bool], second: Sequence[bool], margin: float) -> tuple[bool, tuple[float, float]]:
    """TOST at the 5% level: whether the 90% interval of first - second lies within ±`margin`; and that interval."""
    low, high = tango_paired(Table2x2.of(first, second), level=0.90)
    return (-margin < low and high < margin), (low, high)


def detectable(t: Table2x2) -> float:
    """The smallest difference (a share) a paired comparison of these items would detect with 80% power at
    the 5% level: (z_0.975 + z_0.80) * sqrt(psi / n), psi the share of items answered differently (at least
    one item's worth, so that a run with none still states a bound)."""
    n = t.n
    if n == 0:
        raise ValueError("no items")
    psi = max(t.first_only + t.second_only, 1) / n
    return min(1.0, (Z95 + POWER_Z) * math.sqrt(psi / n))


def calibration_error(bins: Sequence[tuple[int, float, float]]) -> float | None:
    """Expected calibration error over `(n, accuracy, stated probability)` bins: the item-weighted mean of
    |accuracy - stated|. None when no bin has an item."""
    total = sum(n for n, _, _ in bins)
    if total == 0:
        return None
    return sum(n * abs(acc - stated) for n, acc, stated in bins if n) / total

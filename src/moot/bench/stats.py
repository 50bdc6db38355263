"""Interval estimates and paired tests for 0/1 outcomes, as a reviewer would ask for them. Pure functions.

- `wilson`: the score interval of one proportion. The percentile bootstrap collapses to a point at 60/60
  right ([1.00, 1.00]) and covers far less than 95% near 0 or 1; Wilson's interval does not (60/60 right
  gives [0.940, 1.000]).
- `paired_difference`: the difference of two strategies' accuracies on the same items, with Newcombe's
  hybrid score interval for paired proportions (Newcombe 1998, method 10: each margin's Wilson interval,
  combined with the phi correlation of the 2x2 table) and the mid-p McNemar test (Fagerland, Lydersen and
  Laake 2013), which holds its level better than the exact test and the continuity-corrected chi-square.
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
    return (max(0.0, centre - half), min(1.0, centre + half))


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
    return min(1.0, 2.0 * tail - math.comb(n, k) / 2**n)


def newcombe_paired(t: Table2x2, *, level: float = 0.95) -> tuple[float, float]:
    """Newcombe's interval (method 10) for p1 - p2, p1 = (both + first_only)/n, p2 = (both + second_only)/n."""
    n = t.n
    if n == 0:
        raise ValueError("an interval over no items")
    a, b, c, d = t.both, t.first_only, t.second_only, t.neither
    p1, p2 = (a + b) / n, (a + c) / n
    l1, u1 = wilson(a + b, n, level=level)
    l2, u2 = wilson(a + c, n, level=level)
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    phi = (a * d - b * c) / math.sqrt(margins) if margins > 0 else 0.0
    diff = p1 - p2
    lower = math.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    upper = math.sqrt(max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2))
    return (max(-1.0, diff - lower), min(1.0, diff + upper))


@dataclass(frozen=True)
class Difference:
    """first - second on the same items: `estimate` (a share), its `ci95`, the mid-p McNemar `p_value`."""

    estimate: float
    ci95: tuple[float, float]
    p_value: float
    n: int
    table: Table2x2
    test: str = "Newcombe paired score interval; mid-p McNemar"


def paired_difference(first: Sequence[bool], second: Sequence[bool]) -> Difference:
    """The paired difference of two strategies' correctness on the same items."""
    t = Table2x2.of(first, second)
    if t.n == 0:
        raise ValueError("a difference over no items")
    return Difference(
        (t.first_only - t.second_only) / t.n, newcombe_paired(t), mcnemar_midp(t.first_only, t.second_only), t.n, t
    )


def equivalent(first: Sequence[bool], second: Sequence[bool], margin: float) -> tuple[bool, tuple[float, float]]:
    """TOST at the 5% level: whether the 90% interval of first - second lies within ±`margin`; and that interval."""
    low, high = newcombe_paired(Table2x2.of(first, second), level=0.90)
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

"""The bench's statistics (issue 21) against independent computations: Wilson's interval against
statsmodels, the mid-p McNemar test against scipy's binomial, Tango's score interval against a score test
inverted here from scipy's numerical maximum likelihood, the TOST, the minimum detectable difference and
the calibration error by hand; and the verdict, which never calls two strategies equivalent without the
TOST passing."""

from __future__ import annotations

import math
import random

import pytest
from scipy import optimize, stats
from statsmodels.stats.proportion import proportion_confint

from moot.bench.calibration import calibration
from moot.bench.collect import odd_at_least
from moot.bench.metrics import BenchDebate, flips, tie_break
from moot.bench.stats import (
    Table2x2,
    detectable,
    equivalent,
    mcnemar_midp,
    paired_difference,
    tango_paired,
    wilson,
)
from moot.bench.verdict import Contender, verdict

A, B = "A>B", "B>A"


@pytest.mark.parametrize(("x", "n"), [(60, 60), (0, 20), (19, 20), (7, 10), (350, 700), (1, 3)])
def test_wilson_matches_statsmodels(x: int, n: int) -> None:
    assert wilson(x, n) == pytest.approx(proportion_confint(x, n, alpha=0.05, method="wilson"), abs=1e-12)
    assert wilson(x, n, level=0.9) == pytest.approx(proportion_confint(x, n, alpha=0.1, method="wilson"), abs=1e-12)


def test_60_of_60_has_a_lower_end_below_095_and_wilson_covers_95_percent_at_n_20_p_097() -> None:
    low, high = wilson(60, 60)
    assert low <= 0.95 and high == 1.0
    # exact coverage over every outcome of B(20, 0.97), where the percentile bootstrap covered 47%
    coverage = sum(stats.binom.pmf(x, 20, 0.97) for x in range(21) if wilson(x, 20)[0] <= 0.97 <= wilson(x, 20)[1])
    assert coverage >= 0.95


@pytest.mark.parametrize(("b", "c"), [(0, 0), (3, 0), (10, 3), (4, 4), (30, 12), (1, 20)])
def test_mid_p_mcnemar_matches_scipys_binomial(b: int, c: int) -> None:
    n, k = b + c, min(b, c)
    expected = 1.0 if n == 0 else min(1.0, 2 * stats.binom.cdf(k, n, 0.5) - stats.binom.pmf(k, n, 0.5))
    assert mcnemar_midp(b, c) == pytest.approx(expected, abs=1e-12)


def tango_independent(b: int, c: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Tango's interval by brute force: the restricted MLE of (p_b, p_c) under p_b - p_c = delta found
    numerically by scipy, the score statistic from it, and its roots found by scipy's brentq."""
    z = stats.norm.ppf(0.5 + level / 2)

    def score(delta: float) -> float:
        lo, hi = max(0.0, -delta) + 1e-12, (1 - delta) / 2 - 1e-12
        if hi <= lo:
            q = max(0.0, -delta)
        else:

            def nll(q: float) -> float:
                pb, rest = q + delta, 1 - 2 * q - delta
                terms = [(b, pb), (c, q), (n - b - c, rest)]
                return -sum(k * math.log(max(p, 1e-300)) for k, p in terms if k)

            q = optimize.minimize_scalar(nll, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}).x
        var = n * (2 * q + delta * (1 - delta))
        return (b - c - n * delta) / math.sqrt(var) if var > 0 else math.copysign(math.inf, b - c - n * delta)

    est = (b - c) / n
    lower = -1.0 if score(-1 + 1e-9) <= z else optimize.brentq(lambda d: score(d) - z, -1 + 1e-9, est)
    upper = 1.0 if score(1 - 1e-9) >= -z else optimize.brentq(lambda d: score(d) + z, est, 1 - 1e-9)
    return (lower, upper)


@pytest.mark.parametrize(("a", "b", "c", "d"), [(40, 10, 3, 7), (5, 0, 0, 5), (0, 6, 0, 6), (100, 2, 9, 40)])
def test_tango_interval_matches_the_score_test_inverted_independently(a: int, b: int, c: int, d: int) -> None:
    t = Table2x2(a, b, c, d)
    assert tango_paired(t) == pytest.approx(tango_independent(b, c, t.n), abs=1e-5)
    low, high = tango_paired(t)
    assert low <= (b - c) / t.n <= high


def test_tango_stays_wide_when_nothing_differs() -> None:
    # no discordant item in 10: the bound solves n * d / (1 - d) = z^2
    z2 = stats.norm.ppf(0.975) ** 2
    assert tango_paired(Table2x2(5, 0, 0, 5)) == pytest.approx((-z2 / (10 + z2), z2 / (10 + z2)), abs=1e-9)


def test_tost_is_the_90_percent_interval_inside_the_margin() -> None:
    same = [True] * 1500 + [False] * 500
    ok, ci = equivalent(same, same, 0.03)
    assert ok and ci[0] > -0.03 and ci[1] < 0.03
    few = [True] * 40 + [False] * 10
    ok, ci = equivalent(few, few, 0.03)  # identical answers, but 50 items cannot rule out 3 points
    assert not ok and ci[1] > 0.03


def test_minimum_detectable_difference_by_hand() -> None:
    t = Table2x2(30, 6, 4, 10)
    expected = (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) * math.sqrt(10 / 50 / 50)
    assert detectable(t) == pytest.approx(expected)


def test_paired_difference_estimate_and_table() -> None:
    first = [True] * 8 + [False] * 2
    second = [True] * 5 + [False] * 5
    d = paired_difference(first, second)
    assert (d.estimate, d.n, d.table) == (pytest.approx(0.3), 10, Table2x2(5, 3, 0, 2))
    assert d.ci95[0] <= d.estimate <= d.ci95[1]
    assert d.p_value == pytest.approx(mcnemar_midp(3, 0))


def test_calibration_bins_and_ece_by_hand() -> None:
    conf = ["HIGH", "HIGH", "LOW", "LOW", "MEDIUM", None]
    right = [True, True, False, True, True, True]
    bins, ece = calibration(conf, right)
    assert bins is not None
    assert (bins["HIGH"].n, bins["HIGH"].accuracy) == (2, 1.0)
    assert (bins["LOW"].n, bins["LOW"].accuracy, bins["MEDIUM"].n) == (2, 0.5, 1)
    assert bins["HIGH"].ci95 == pytest.approx(proportion_confint(2, 2, method="wilson"))
    assert ece == pytest.approx((2 * 0.1 + 2 * 0.0 + 1 * 0.3) / 5)
    assert calibration([None, None], [True, False]) == (None, None)


def test_odd_k_and_a_tie_break_that_ignores_the_order() -> None:
    assert [odd_at_least(x) for x in (1, 2, 3, 3.01, 3.8, 4, 5, 6.0)] == [1, 3, 3, 5, 5, 5, 5, 7]
    picks = {tie_break([A, B], f"item-{i}", seed=0) for i in range(40)}
    assert picks == {A, B}  # a fair draw, not always one side
    assert all(tie_break([A, B], "q7", 3) == tie_break([B, A], "q7", 3) for _ in range(3))


def test_flips_split_collapse_into_talked_out_and_not_rescued_and_keep_aggregator_changes_apart() -> None:
    def rec(r1: list[str], vote: str, final: str, last: list[str]) -> BenchDebate:
        return BenchDebate(A, dict(zip("xyz", r1, strict=True)), vote, final, 2, dict(zip("xyz", last, strict=True)))

    f = flips(
        [
            rec([A, A, B], A, B, [A, B, B]),  # y talked out: harmful, talked_out
            rec([A, B, B], B, B, [A, B, B]),  # x kept A, outvoted: not_rescued
            rec([A, B, B], B, A, [A, B, B]),  # the verdict moved with nobody moving: no flip
            rec([B, B, B], B, B, [B, B, B]),  # nobody right: nothing to lose
        ]
    )
    assert (f.helpful_flips, f.harmful_flips, f.aggregator_changes) == (0, 1, 1)
    assert (f.talked_out, f.not_rescued, f.collapse) == (1, 1, 2)
    assert dict(f.table) == {"right_to_right": 0, "right_to_wrong": 1, "wrong_to_right": 1, "wrong_to_wrong": 2}


def _contender(name: str, correct: list[bool], cost: float) -> Contender:
    return Contender(name, list(correct), cost_per_item=cost)


def test_verdict_names_a_winner_only_when_the_paired_test_says_so() -> None:
    debate = _contender("debate", [True] * 40, 0.09)
    vote = _contender("vote", [True] * 20 + [False] * 20, 0.03)
    sentence = verdict([vote, debate])
    assert sentence.startswith("debate wins for this panel: 100.0% right against 50.0% for vote, the next best")
    assert f"p = {mcnemar_midp(20, 0):.2g}" in sentence


def test_verdict_is_inconclusive_with_the_detectable_difference_when_the_tost_fails() -> None:
    # three p = 0.7 judges' kind of gap at n = 50: not significant, not equivalent
    vote = _contender("vote", [True] * 35 + [False] * 15, 0.03)
    single = _contender("judge-1 alone", [True] * 32 + [False] * 18, 0.01)
    sentence = verdict([vote, single])
    assert "inconclusive at n = 50" in sentence and "could not be detected" in sentence
    assert "equivalent" not in sentence and "costs least" not in sentence
    gap = detectable(Table2x2(32, 3, 0, 15))
    assert f"±{gap * 100:.1f} points" in sentence


def test_verdict_recommends_the_cheaper_only_when_the_tost_passes() -> None:
    rng = random.Random(5)
    base = [rng.random() < 0.8 for _ in range(3000)]
    close = list(base)
    for i in rng.sample(range(3000), 20):  # 20 items answered differently: well within ±3 points
        close[i] = not close[i]
    sentence = verdict([_contender("debate", base, 0.09), _contender("vote", close, 0.03)])
    assert "equivalent to it within ±3 points (TOST" in sentence
    assert "is real but smaller than the margin" in sentence  # 20 of 20 differences went the debate's way
    assert sentence.endswith("vote costs least at no loss (within ±3 points, TOST).")


@pytest.mark.parametrize("seed", range(30))
def test_the_verdict_never_calls_two_strategies_equivalent_without_the_tost(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.choice([10, 50, 200, 1000])
    base = [rng.random() < 0.75 for _ in range(n)]
    others = []
    for name in ("vote", "vote@equal"):
        flipped = list(base)
        for i in rng.sample(range(n), rng.randint(0, max(1, n // 10))):
            flipped[i] = not flipped[i]
        others.append(_contender(name, flipped, rng.random()))
    contenders = [_contender("debate", base, 1.0), *others]
    sentence = verdict(contenders, margin=0.03)
    best = max(contenders, key=lambda c: (c.accuracy, -(c.cost_per_item or 0)))
    for c in contenders:
        if c is best:
            continue
        said_equivalent = f"{c.name} ({c.accuracy:.1%}) is equivalent" in sentence
        a = [x for x in best.correct if x is not None]
        b = [y for y in c.correct if y is not None]
        t = Table2x2.of(a, b)  # type: ignore[arg-type]
        low, high = tango_independent(t.first_only, t.second_only, t.n, level=0.90)
        assert said_equivalent == (low > -0.03 and high < 0.03)
    if "costs least at no loss" in sentence:
        assert "is equivalent to it" in sentence

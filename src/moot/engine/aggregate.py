"""How a panel's scores become one score: the mean (the seeds' average), the median or a trimmed mean.

One corrupted or stubborn judge moves a mean as far as its score is from the others; the median and the
trimmed mean do not move with it (issue 30 §4). A protocol that scores lets its settings pick one by
these names; the default stays the mean. The trimmed mean drops
a fifth of the scores from each end (at least one from each end when there are three or more), so that for
three judges it is their median and for five it leaves the middle three. Pure functions, shared by the
protocols that score and by `moot bench`, which reports every aggregate side by side.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Literal

__all__ = ["AGGREGATES", "ScoreAggregate", "aggregate", "trimmed_mean"]

ScoreAggregate = Literal["mean", "median", "trimmed_mean"]
AGGREGATES: tuple[ScoreAggregate, ...] = ("mean", "median", "trimmed_mean")
TRIM_SHARE = 0.2  # the share of scores dropped from each end


def trimmed_mean(scores: Sequence[float]) -> float:
    """The mean of the scores left once the highest and lowest fifth are dropped (one of each, at least,
    from three scores on)."""
    if not scores:
        raise ValueError("a trimmed mean of no scores")
    ordered = sorted(scores)
    cut = max(1, int(len(ordered) * TRIM_SHARE)) if len(ordered) >= 3 else 0
    return statistics.fmean(ordered[cut : len(ordered) - cut])


def aggregate(scores: Sequence[float], how: ScoreAggregate = "mean") -> float:
    """The panel's score by `how`, rounded to two decimals as every reported score is."""
    if not scores:
        raise ValueError("an aggregate of no scores")
    if how == "median":
        value = statistics.median(scores)
    elif how == "trimmed_mean":
        value = trimmed_mean(scores)
    else:
        value = statistics.fmean(scores)
    return round(value, 2)

"""The bench's figures, as pure functions on plain data (answers, gold labels, per-item records).

Every strategy answers the same items, so strategies are compared item by item (McNemar's paired test),
not by whether their intervals overlap: two 95% intervals can overlap while a paired test still tells
the strategies apart, because most items are answered alike by both and carry no information.

An answer is a label ("A>B", "B>A", "pass", "fail") or None when the strategy reached none; None is
never right.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

EXACT_BELOW = 25  # discordant pairs under which McNemar's test is the exact binomial one
RESAMPLES = 2000
_SWAP = {"A>B": "B>A", "B>A": "A>B"}


def correctness(answers: Sequence[str | None], gold: Sequence[str]) -> list[bool]:
    """Whether each answer matches its gold label."""
    _same_length(answers, gold)
    return [a is not None and a == g for a, g in zip(answers, gold, strict=True)]


def accuracy(correct: Sequence[float]) -> float:
    """The share of items answered right. An item may count part-right (a mean over judges)."""
    if not correct:
        raise ValueError("accuracy of no items")
    return sum(float(c) for c in correct) / len(correct)


def bootstrap_ci(
    correct: Sequence[float], *, seed: int = 0, resamples: int = RESAMPLES, level: float = 0.95
) -> tuple[float, float]:
    """The percentile bootstrap interval of the accuracy: items resampled with replacement `resamples`
    times from a seeded stream, so the same run reports the same interval."""
    n = len(correct)
    if n == 0:
        raise ValueError("an interval over no items")
    values = [float(c) for c in correct]
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(values, k=n)) / n for _ in range(resamples))
    tail = (1.0 - level) / 2.0
    low = means[round(tail * (resamples - 1))]
    high = means[round((1.0 - tail) * (resamples - 1))]
    return (low, high)


def cohen_kappa(answers: Sequence[str | None], gold: Sequence[str]) -> float | None:
    """Cohen's κ of the answers against gold: agreement beyond what the two marginals give by chance.

    0 for a judge that always gives the same answer, 1 for perfect agreement, negative below chance.
    None when it is undefined: the chance agreement is already 1 (gold and answers one same label).
    """
    _same_length(answers, gold)
    n = len(gold)
    if n == 0:
        raise ValueError("kappa of no items")
    observed = sum(a == g for a, g in zip(answers, gold, strict=True)) / n
    said, truth = Counter(answers), Counter(gold)
    chance = sum(said[label] * truth[label] for label in truth) / (n * n)
    if chance >= 1.0:
        return None
    return (observed - chance) / (1.0 - chance)


@dataclass(frozen=True)
class McNemar:
    """`first_only`: items only the first strategy got right; `second_only`: only the second."""

    first_only: int
    second_only: int
    p_value: float
    test: str


def mcnemar(first: Sequence[bool], second: Sequence[bool]) -> McNemar:
    """McNemar's test of two strategies' correctness on the same items (two-sided).

    Only the discordant items count. Under EXACT_BELOW of them, the exact binomial test (B(n, 1/2));
    otherwise the chi-square statistic with continuity correction, (|b - c| - 1)² / (b + c), one degree
    of freedom. No discordant item at all: p = 1.
    """
    _same_length(first, second)
    b = sum(1 for x, y in zip(first, second, strict=True) if x and not y)
    c = sum(1 for x, y in zip(first, second, strict=True) if y and not x)
    n = b + c
    if n < EXACT_BELOW:
        tail = sum(math.comb(n, k) for k in range(min(b, c) + 1)) / 2**n
        return McNemar(b, c, min(1.0, 2.0 * tail), "exact binomial")
    statistic = (abs(b - c) - 1) ** 2 / n
    return McNemar(b, c, math.erfc(math.sqrt(statistic / 2.0)), "chi-square (continuity corrected)")


def plurality(answers: Sequence[str | None]) -> str | None:
    """The most frequent answer; None when there is none or when the top two tie (no majority to report)."""
    top = Counter(a for a in answers if a is not None).most_common(2)
    if not top or (len(top) == 2 and top[0][1] == top[1][1]):
        return None
    return top[0][0]


def unswap(answer: str | None) -> str | None:
    """A pairwise answer given with the responses in the other order, in the item's own labels."""
    return _SWAP.get(answer, answer) if answer is not None else None


def swap_consistency(forward: Sequence[str | None], backward: Sequence[str | None]) -> float | None:
    """The share of pairs whose winning response is the same in both orders.

    `backward` holds the answers given with the responses swapped, as the judge said them (so "A>B" there
    means the item's B won). A judge that always says "A>B" is never consistent: 0. None for no pairs.
    """
    _same_length(forward, backward)
    if not forward:
        return None
    same = sum(1 for f, b in zip(forward, backward, strict=True) if f is not None and f == unswap(b))
    return same / len(forward)


@dataclass(frozen=True)
class DebateRecord:
    """What one debate did, from its `debate_effect`, with the item's gold label.

    `round1` maps each judge to its round-1 answer; `round1_majority` is the round-1 verdict (None when
    round 1 had none); `final` the debate's verdict; `rounds` how many rounds it ran.
    """

    gold: str
    round1: Mapping[str, str | None]
    round1_majority: str | None
    final: str | None
    rounds: int


def record_from_effect(
    effect: Mapping[str, Any], gold: str, answer: Callable[[str | None], str | None]
) -> DebateRecord:
    """A debate's `debate_effect` (its JSON: `round1_verdict`, `final_verdict`, `judges` with `judge` and
    `round1`, `rounds`) as a record, every answer put in the gold label's terms by `answer` (for example
    option "A" -> "A>B", "PASS" -> "pass", and "tie" or "none" -> None)."""
    round1 = {str(j["judge"]): answer(j.get("round1")) for j in effect.get("judges", [])}
    return DebateRecord(
        gold, round1, answer(effect["round1_verdict"]), answer(effect["final_verdict"]), int(effect["rounds"])
    )


@dataclass(frozen=True)
class Flips:
    """What the rounds after the first changed, over a set of debates."""

    items: int
    round1_share: float
    helpful_flips: int
    harmful_flips: int
    collapse: int


def flips(records: Sequence[DebateRecord]) -> Flips:
    """Count the debates decided in round 1 and what later rounds changed.

    helpful: the round-1 majority was wrong (or absent) and the final verdict is right; harmful: the
    round-1 majority was right and the final verdict is wrong; collapse: at least one judge was right in
    round 1 and the final verdict is wrong (every harmful flip is also a collapse).
    """
    if not records:
        raise ValueError("flips of no debates")
    helpful = harmful = collapse = 0
    for r in records:
        first_right, final_right = r.round1_majority == r.gold, r.final == r.gold
        helpful += not first_right and final_right
        harmful += first_right and not final_right
        collapse += not final_right and any(a == r.gold for a in r.round1.values())
    round1 = sum(1 for r in records if r.rounds <= 1)
    return Flips(len(records), round1 / len(records), helpful, harmful, collapse)


def _same_length(a: Sequence[object], b: Sequence[object]) -> None:
    if len(a) != len(b):
        raise ValueError(f"paired sequences differ in length ({len(a)} and {len(b)})")


@dataclass(frozen=True)
class Contender:
    """One strategy's correctness per item (the same items, in the same order, for every contender) and,
    when known, what it cost per item (USD, else calls)."""

    name: str
    correct: Sequence[bool]
    cost_per_item: float | None = None
    calls_per_item: float | None = None


def verdict(contenders: Sequence[Contender], *, alpha: float = 0.05) -> str:
    """One sentence: which strategy wins for this panel, or which ones are within noise of each other.

    The most accurate strategy (ties: the cheaper, then the one listed first) is tested against each
    other one with McNemar's paired test. It wins when every test gives p < `alpha`. Otherwise the
    strategies it cannot be told apart from are "within noise", and the cheapest of them is named: at
    equal accuracy, the cheaper one is the better buy. Intervals are not compared: see the module's note.
    """
    if not contenders:
        raise ValueError("a verdict needs at least one strategy")
    ranked = sorted(enumerate(contenders), key=lambda ic: (-accuracy(ic[1].correct), _price(ic[1]), ic[0]))
    best, rest = ranked[0][1], [c for _, c in ranked[1:]]
    if not rest:
        return f"Only {best.name} ran ({_pct(best)} right), so there is nothing to compare it with."
    tests = {c.name: mcnemar(best.correct, c.correct) for c in rest}
    close = [c for c in rest if tests[c.name].p_value >= alpha]
    if not close:
        runner = rest[0]
        p = tests[runner.name].p_value
        return (
            f"{best.name} wins for this panel: {_pct(best)} right against {_pct(runner)} for {runner.name}, "
            f"the next best (McNemar p = {p:.2g})."
        )
    group = [best, *close]
    names = ", ".join(f"{c.name} ({_pct(c)})" for c in group[:-1]) + f" and {group[-1].name} ({_pct(group[-1])})"
    p_min = min(tests[c.name].p_value for c in close)
    sentence = f"No strategy wins for this panel: {names} are within noise of each other (McNemar p ≥ {p_min:.2g})"
    cheapest = _cheapest(group)
    if cheapest is not None:
        sentence += f", and {cheapest.name} costs least"
    return sentence + "."


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
    return f"{accuracy(c.correct):.1%}"

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
from dataclasses import dataclass, field
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


def tied(answers: Sequence[str | None]) -> list[str]:
    """The answers given most often (several when they tie; none when nobody answered), sorted."""
    counts = Counter(a for a in answers if a is not None)
    top = max(counts.values(), default=0)
    return sorted(a for a, c in counts.items() if c == top)


def tie_break(labels: Sequence[str], key: str, seed: int) -> str:
    """One of the tied `labels`, drawn from a stream seeded by the item (`key`) and `--seed`, never by the
    order the item was shown in: the same tie gives the same answer in both orders and on every rerun."""
    return random.Random(f"{seed}:{key}").choice(sorted(labels))


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
class BenchDebate:
    """What one debate did, from its `debate_effect`, with the item's gold label.

    `round1` maps each judge to its round-1 answer and `judge_final` to its last one; `round1_majority`
    is the round-1 verdict (None when round 1 had none); `final` the debate's verdict; `rounds` how many
    rounds it ran.
    """

    gold: str
    round1: Mapping[str, str | None]
    round1_majority: str | None
    final: str | None
    rounds: int
    judge_final: Mapping[str, str | None] = field(default_factory=dict)


def record_from_effect(effect: Mapping[str, Any], gold: str, answer: Callable[[str | None], str | None]) -> BenchDebate:
    """A debate's `debate_effect` (its JSON: `round1_verdict`, `final_verdict`, `judges` with `judge`,
    `round1` and `final`, `rounds`) as a record, every answer put in the gold label's terms by `answer` (for
    example option "A" -> "A>B", "PASS" -> "pass", and "tie" or "none" -> None)."""
    judges = effect.get("judges", [])
    return BenchDebate(
        gold,
        {str(j["judge"]): answer(j.get("round1")) for j in judges},
        answer(effect["round1_verdict"]),
        answer(effect["final_verdict"]),
        int(effect["rounds"]),
        {str(j["judge"]): answer(j.get("final")) for j in judges},
    )


@dataclass(frozen=True)
class Flips:
    """What the rounds after the first changed, over a set of debates. `collapse` = `talked_out` +
    `not_rescued`; `table` counts round-1 against final correctness (`right_to_wrong`, ...)."""

    items: int
    round1_share: float
    helpful_flips: int
    harmful_flips: int
    collapse: int
    talked_out: int = 0
    not_rescued: int = 0
    aggregator_changes: int = 0
    table: Mapping[str, int] = field(default_factory=dict)


def _moved(r: BenchDebate) -> bool:
    """Whether any judge's own answer changed between round 1 and its last."""
    return any(r.round1.get(j) != a for j, a in r.judge_final.items() if a is not None and r.round1.get(j))


def flips(records: Sequence[BenchDebate]) -> Flips:
    """Count the debates decided in round 1 and what later rounds changed.

    helpful: the round-1 verdict was wrong (or absent) and the final verdict is right; harmful: the
    round-1 verdict was right and the final verdict is wrong. Either counts only when some judge changed
    its answer: a verdict that moved while every judge kept its answer is an `aggregator_changes` (the
    rule combining the answers differs, not a judge), never a flip. collapse: at least one judge was right
    in round 1 and the final verdict is wrong; `talked_out` when such a judge switched to a wrong answer,
    `not_rescued` when every such judge kept its right answer and was outvoted.
    """
    if not records:
        raise ValueError("flips of no debates")
    helpful = harmful = talked = outvoted = aggregator = 0
    table = dict.fromkeys(("right_to_right", "right_to_wrong", "wrong_to_right", "wrong_to_wrong"), 0)
    for r in records:
        first_right, final_right = r.round1_majority == r.gold, r.final == r.gold
        table[f"{_word(first_right)}_to_{_word(final_right)}"] += 1
        if first_right != final_right and r.judge_final and not _moved(r):
            aggregator += 1
        else:
            helpful += not first_right and final_right
            harmful += first_right and not final_right
        right = [j for j, a in r.round1.items() if a == r.gold]
        if not final_right and right:
            if any(r.judge_final.get(j, r.gold) != r.gold for j in right):
                talked += 1
            else:
                outvoted += 1
    round1 = sum(1 for r in records if r.rounds <= 1)
    return Flips(
        len(records), round1 / len(records), helpful, harmful, talked + outvoted, talked, outvoted, aggregator, table
    )


def _word(right: bool) -> str:
    return "right" if right else "wrong"


def _same_length(a: Sequence[object], b: Sequence[object]) -> None:
    if len(a) != len(b):
        raise ValueError(f"paired sequences differ in length ({len(a)} and {len(b)})")

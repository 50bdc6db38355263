"""Pairs judged in both orders, read as JudgeBench reads them, and position bias with its direction.

JudgeBench (Tan et al. 2024) scores a judge on a pair only when it picks the right response in both
orders: an answer that changes with the order counts wrong. So, with `--swap`, a strategy's `accuracy`
is that figure, and its given-order accuracy moves to `accuracy_given_order`. A judge that always picks
the first response scores 0 under it (it scored the share of pairs whose right answer came first).

Position bias is reported with its direction: the share of every judgment (both orders) that picked the
response shown first, with its Wilson interval (0.5 without bias), and accuracy on the judgments whose
right response was shown first against those where it was shown second.
"""

from __future__ import annotations

from collections.abc import Sequence

from moot.bench.answers import Column
from moot.bench.metrics import unswap
from moot.bench.stats import wilson
from moot.schemas.bench import ChoiceItem, GoldItem, PositionFigures, SuiteKind

FIRST = "A>B"  # an answer, as said, that picked the response shown first


def both_orders(column: Column, gold: Sequence[str]) -> list[bool]:
    """Right in the given order and (for an item judged both ways) in the swapped one too."""
    return [
        column.answers[i] == g and (i not in column.backward or unswap(column.backward[i]) == g)
        for i, g in enumerate(gold)
    ]


def _judgments(column: Column, gold: Sequence[str]) -> list[tuple[str | None, bool, bool]]:
    """(answer as said, right response shown first, answer right) for every judgment in either order."""
    out = [(a, g == FIRST, a == g) for a, g in zip(column.answers, gold, strict=True)]
    for i, said in sorted(column.backward.items()):
        g = gold[i]
        out.append((said, g != FIRST, unswap(said) == g))
    return out


def _choice_judgments(
    column: Column, gold: Sequence[str], firsts: Sequence[tuple[str, str]]
) -> list[tuple[str | None, bool, bool]]:
    """As `_judgments`, for options whose ids stay with their texts: "picked first" is the first-shown id."""
    out = [
        (FIRST if a == firsts[i][0] else a, g == firsts[i][0], a == g)
        for i, (a, g) in enumerate(zip(column.answers, gold, strict=True))
    ]
    for i, said in sorted(column.backward.items()):
        out.append((FIRST if said == firsts[i][1] else said, gold[i] == firsts[i][1], said == gold[i]))
    return out


def _share(values: Sequence[bool]) -> float | None:
    return sum(values) / len(values) if values else None


def position(column: Column, gold: Sequence[str], firsts: Sequence[tuple[str, str]] | None = None) -> PositionFigures:
    """A pairwise strategy's (or judge's) position bias over its judgments in both orders.

    `firsts` (multiple-choice items) gives, per item, the option id shown first in the given order and in
    the swapped one (the options reversed under the same ids, so an answer names one text in both orders)."""
    judged = _judgments(column, gold) if firsts is None else _choice_judgments(column, gold, firsts)
    answered = [said == FIRST for said, _, _ in judged if said is not None]
    first = sum(answered)
    return PositionFigures(
        judgments=len(judged),
        first_share=_share(answered),
        first_ci95=wilson(first, len(answered)) if answered else None,
        accuracy_right_first=_share([right for _, shown_first, right in judged if shown_first]),
        accuracy_right_second=_share([right for _, shown_first, right in judged if not shown_first]),
    )


def first_shown(item: GoldItem) -> tuple[str, str]:
    """A multiple-choice item's option shown first in the given order and in the swapped one (the options
    reversed); ("", "") for other items."""
    if not isinstance(item, ChoiceItem):
        return ("", "")
    ids = list(item.options)
    return (ids[0], ids[-1])


def position_of(
    column: Column, gold: Sequence[str], kind: SuiteKind, firsts: Sequence[tuple[str, str]]
) -> PositionFigures | None:
    """Position figures for items judged over options (pairs, multiple choice); None for scored items."""
    if kind == "pairwise":
        return position(column, gold)
    return position(column, gold, firsts) if kind == "choice" else None

"""What each strategy answered on each item, and what that answer cost, read from the item's debates.

Every strategy reads the same debates (pure functions on plain data; `moot.bench.collect` reads them):
- `single`: each judge's round-1 answer (round 1 is independent: no judge has seen another's), at the
  cost of that judge's round-1 calls (a clarification included);
- `vote`: the round-1 verdict (the majority, or evaluate's mean score), at the cost of round 1;
- `debate`: the final verdict, at the cost of every call;
- `vote@equal`: a majority over the first k round-1 answers of the item's debates (its own debate's, in
  seat order, then those of its extra round-1-only debates), at the cost of those k answers' calls.

Answers are put in gold's terms: option A of the given order is "A>B"; evaluate's PASS is "pass" and
anything else "fail"; a tie or no answer is None, which is never right. The swapped order's answers are
kept as the judges gave them ("A>B" there means the item's B won), as `metrics.swap_consistency` reads them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from moot.bench.metrics import plurality
from moot.schemas.bench import GoldItem, SuiteKind
from moot.schemas.effect import NO_ANSWER, TIE

Reader = Callable[[str | None], str | None]
_OPTION = {"A": "A>B", "B": "B>A"}


def reader(kind: SuiteKind) -> Reader:
    """A debate's words (an option id, a verdict) in the gold label's terms."""
    if kind == "pairwise":
        return lambda word: _OPTION.get(word) if word else None
    return lambda word: None if word in (None, TIE, NO_ANSWER) else ("pass" if word == "PASS" else "fail")


@dataclass(frozen=True)
class Spend:
    """Calls, tokens and USD; `cost` is None when some call's price is unknown."""

    calls: int = 0
    tokens: int = 0
    cost: float | None = 0.0

    def __add__(self, other: Spend) -> Spend:
        cost = None if self.cost is None or other.cost is None else self.cost + other.cost
        return Spend(self.calls + other.calls, self.tokens + other.tokens, cost)


@dataclass(frozen=True)
class CallCost:
    """One stored call, as spend needs it."""

    round: int
    seat: str
    tokens: int
    cost: float | None


@dataclass(frozen=True)
class Debated:
    """One finished debate: its `debate_effect` (JSON) and its calls."""

    debate_id: str
    effect: Mapping[str, Any]
    calls: Sequence[CallCost] = ()

    def round1(self) -> list[tuple[str, str | None]]:
        """Each judge's round-1 answer, in seat order, as the debate worded it."""
        return [(str(j["judge"]), j.get("round1")) for j in self.effect.get("judges", [])]

    def spend(self, *, round1: bool = False, seat: str | None = None) -> Spend:
        total = Spend()
        for c in self.calls:
            if (not round1 or c.round == 1) and (seat is None or c.seat == seat):
                total += Spend(1, c.tokens, c.cost)
        return total


@dataclass(frozen=True)
class ItemRuns:
    """A gold item's debates: the given order, the swapped one (with --swap), the extra samples."""

    item: GoldItem
    given: Debated
    swapped: Debated | None = None
    samples: Sequence[Debated] = ()

    def debate_ids(self) -> dict[str, str]:
        ids = {"given": self.given.debate_id}
        if self.swapped is not None:
            ids["swapped"] = self.swapped.debate_id
        ids.update({f"sample-{n}": d.debate_id for n, d in enumerate(self.samples, 1)})
        return ids


@dataclass
class Column:
    """One strategy (or one judge alone) on every item, in item order. `backward` holds, by item index,
    the answer given with the responses swapped, as said (items judged in both orders only)."""

    answers: list[str | None] = field(default_factory=list)
    spends: list[Spend] = field(default_factory=list)
    backward: dict[int, str | None] = field(default_factory=dict)


def _vote(d: Debated, read: Reader) -> tuple[str | None, Spend]:
    return read(d.effect.get("round1_verdict")), d.spend(round1=True)


def _debate(d: Debated, read: Reader) -> tuple[str | None, Spend]:
    return read(d.effect.get("final_verdict")), d.spend()


def _at_equal_cost(runs: ItemRuns, k: int, read: Reader) -> tuple[str | None, Spend]:
    drawn = [(d, seat, word) for d in (runs.given, *runs.samples) for seat, word in d.round1()][:k]
    spend = sum((d.spend(round1=True, seat=seat) for d, seat, _ in drawn), Spend())
    return plurality([read(word) for _, _, word in drawn]), spend


def strategy_columns(runs: Sequence[ItemRuns], kind: SuiteKind, k: int) -> dict[str, Column]:
    """`vote`, `debate` and `vote@equal` (a majority of `k` samples) on every item."""
    read = reader(kind)
    columns = {"vote": Column(), "debate": Column(), "vote@equal": Column()}
    for i, r in enumerate(runs):
        for name, (answer, spend) in (
            ("vote", _vote(r.given, read)),
            ("debate", _debate(r.given, read)),
            ("vote@equal", _at_equal_cost(r, k, read)),
        ):
            columns[name].answers.append(answer)
            columns[name].spends.append(spend)
        if r.swapped is not None:
            columns["vote"].backward[i] = _vote(r.swapped, read)[0]
            columns["debate"].backward[i] = _debate(r.swapped, read)[0]
    return columns


def judge_columns(runs: Sequence[ItemRuns], kind: SuiteKind) -> dict[str, Column]:
    """Each judge alone (by seat, in seat order): its round-1 answer on every item."""
    read = reader(kind)
    seats = list(dict.fromkeys(seat for r in runs for seat, _ in r.given.round1()))
    columns = {seat: Column() for seat in seats}
    for i, r in enumerate(runs):
        given = dict(r.given.round1())
        swapped = dict(r.swapped.round1()) if r.swapped is not None else None
        for seat, column in columns.items():
            column.answers.append(read(given.get(seat)))
            column.spends.append(r.given.spend(round1=True, seat=seat))
            if swapped is not None:
                column.backward[i] = read(swapped.get(seat))
    return columns


def judge_models(runs: Sequence[ItemRuns]) -> dict[str, str]:
    """Each seat's model (or label), as its debates named it."""
    return {str(j["judge"]): str(j.get("model") or "") for r in runs for j in r.given.effect.get("judges", [])}

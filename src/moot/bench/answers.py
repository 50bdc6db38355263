"""What each strategy answered on each item, and what that answer cost, read from the item's debates.

Every strategy reads the same debates (pure functions on plain data; `moot.bench.collect` reads them):
- `single`: each judge's round-1 answer (round 1 is independent: no judge has seen another's), at the
  cost of that judge's round-1 calls (a clarification included);
- `vote`: the round-1 verdict (the majority, or evaluate's mean score), at the cost of round 1;
- `debate`: the final verdict, at the cost of every call;
- `vote@equal`: a majority over the first k round-1 answers of the item's debates (its own debate's, in
  seat order, then those of its extra round-1-only debates), at the cost of those k answers' calls.

Answers are put in gold's terms: option A of the given order is "A>B"; the scored protocol's best
verdict word (its spec's `verdict`: evaluate's PASS) is "pass" and anything else "fail"; no answer is
None, which is never right. A tie is broken by a draw seeded by the
item's id and `--seed` (`metrics.tie_break`), not by the order it was shown in: the same tie gives the
same answer in both orders, so it is neither a wrong answer nor a position inconsistency; each column
counts the items it broke a tie on. The swapped order's answers are kept as the judges gave them ("A>B"
there means the item's B won), as `metrics.swap_consistency` reads them.

Each answer of `single`, `vote` and `debate` carries a confidence (HIGH, MEDIUM or LOW): a judge's own
as it stated it; a verdict's is the one most often stated by the judges who gave that answer (a tie
between levels: the lower), given-order only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from moot.bench.metrics import tie_break, tied, unswap
from moot.schemas.bench import ChoiceItem, GoldItem, PairwiseItem, SuiteKind
from moot.schemas.effect import NO_ANSWER, TIE

Reader = Callable[[str | None], str | None]
_OPTION = {"A": "A>B", "B": "B>A"}
LEVELS = ("LOW", "MEDIUM", "HIGH")  # a tie between stated levels gives the lower


def reader(kind: SuiteKind) -> Reader:
    """A debate's words (an option id, a verdict) in the gold label's terms."""
    if kind == "pairwise":
        return lambda word: _OPTION.get(word) if word else None
    if kind == "choice":  # an option id is the answer itself, in both orders (the ids stay with their texts)
        return lambda word: None if word in (None, TIE, NO_ANSWER) else word
    passing = _best_word(kind)
    return lambda word: None if word in (None, TIE, NO_ANSWER) else ("pass" if word == passing else "fail")


def _best_word(kind: SuiteKind) -> str:
    """The best verdict word of the protocol that judges `kind` items (its spec's `verdict`, ranked best
    first: evaluate's PASS), which gold calls "pass"."""
    from moot.bench.roles import bench_spec

    return next(iter(bench_spec(kind).verdict.words), "")


@dataclass(frozen=True)
class BenchSpend:
    """Calls, tokens and USD; `cost` is None when some call's price is unknown."""

    calls: int = 0
    tokens: int = 0
    cost: float | None = 0.0

    def __add__(self, other: BenchSpend) -> BenchSpend:
        cost = None if self.cost is None or other.cost is None else self.cost + other.cost
        return BenchSpend(self.calls + other.calls, self.tokens + other.tokens, cost)


@dataclass(frozen=True)
class PricedCall:
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
    calls: Sequence[PricedCall] = ()

    def round1(self) -> list[tuple[str, str | None]]:
        """Each judge's round-1 answer, in seat order, as the debate worded it."""
        return [(str(j["judge"]), j.get("round1")) for j in self.effect.get("judges", [])]

    def stated(self, when: str) -> list[tuple[str | None, str | None]]:
        """Each judge's (answer, confidence) in round 1 (`when` "round1") or at the end ("final")."""
        return [(j.get(when), j.get(f"{when}_confidence")) for j in self.effect.get("judges", [])]

    def spend(self, *, round1: bool = False, seat: str | None = None) -> BenchSpend:
        total = BenchSpend()
        for c in self.calls:
            if (not round1 or c.round == 1) and (seat is None or c.seat == seat):
                total += BenchSpend(1, c.tokens, c.cost)
        return total


@dataclass(frozen=True)
class Selected:
    """`select`'s pick in one order (`moot.bench.best_of`): the option id chosen, as shown in that order
    (None: no usable pick), and what the pick itself spent (0 calls when round 1 gave one answer only)."""

    answer: str | None
    calls: int = 0
    tokens: int = 0
    cost: float | None = 0.0


@dataclass(frozen=True)
class ItemRuns:
    """A gold item's debates: the given order, the swapped one (with --swap), the extra samples, and
    `select`'s picks among their round-1 answers (when that strategy was asked)."""

    item: GoldItem
    given: Debated
    swapped: Debated | None = None
    samples: Sequence[Debated] = ()
    swapped_samples: Sequence[Debated] = ()
    select: Selected | None = None
    swapped_select: Selected | None = None

    def debate_ids(self) -> dict[str, str]:
        ids = {"given": self.given.debate_id}
        if self.swapped is not None:
            ids["swapped"] = self.swapped.debate_id
        ids.update({f"sample-{n}": d.debate_id for n, d in enumerate(self.samples, 1)})
        ids.update({f"swapped-sample-{n}": d.debate_id for n, d in enumerate(self.swapped_samples, 1)})
        return ids


@dataclass
class Column:
    """One strategy (or one judge alone) on every item, in item order. `backward` holds, by item index,
    the answer given with the responses swapped, as said (items judged in both orders only); `tied` the
    indices of the items whose given-order answer broke a tie; `confidence` each given-order answer's."""

    answers: list[str | None] = field(default_factory=list)
    spends: list[BenchSpend] = field(default_factory=list)
    backward: dict[int, str | None] = field(default_factory=dict)
    tied: set[int] = field(default_factory=set)
    confidence: list[str | None] = field(default_factory=list)


@dataclass(frozen=True)
class Draw:
    """How an item's ties are broken: its gold labels, its key, the run's seed, and whether the answers at
    hand were given with the responses swapped (then they are put in the item's terms to draw, and back)."""

    labels: tuple[str, ...]
    key: str
    seed: int
    swapped: bool = False

    def settle(self, candidates: Sequence[str | None]) -> tuple[str | None, bool]:
        """The most common of `candidates` (as said), a tie broken by the item's draw; and whether it was a tie."""
        top = tied(candidates)
        if len(top) <= 1:
            return (top[0] if top else None), False
        ours = sorted(unswap(t) or t for t in top) if self.swapped else top
        pick = tie_break(ours, self.key, self.seed)
        return (unswap(pick) if self.swapped else pick), True

    def word(self, word: str | None, read: Reader) -> tuple[str | None, bool]:
        """A debate's verdict word in gold's terms; its `tie` broken between every label."""
        if word == TIE:
            return self.settle(list(self.labels))
        return read(word), False


def draw_for(runs: ItemRuns, seed: int, *, swapped: bool = False) -> Draw:
    item = runs.item
    labels: tuple[str, ...] = (
        ("A>B", "B>A")
        if isinstance(item, PairwiseItem)
        else tuple(sorted(item.options))
        if isinstance(item, ChoiceItem)
        else ("fail", "pass")
    )
    return Draw(labels, runs.item.id, seed, swapped)


def stated_confidence(stated: Sequence[tuple[str | None, str | None]], answer: str | None, read: Reader) -> str | None:
    """The level stated most often by the judges whose answer is `answer` (a tie: the lower one)."""
    levels = [c for a, c in stated if c in LEVELS and answer is not None and read(a) == answer]
    if not levels:
        return None
    return max(LEVELS, key=lambda lv: (levels.count(lv), -LEVELS.index(lv)))


def _vote(d: Debated, read: Reader, draw: Draw) -> tuple[str | None, bool, BenchSpend]:
    answer, tie = draw.word(d.effect.get("round1_verdict"), read)
    return answer, tie, d.spend(round1=True)


def _debate(d: Debated, read: Reader, draw: Draw) -> tuple[str | None, bool, BenchSpend]:
    answer, tie = draw.word(d.effect.get("final_verdict"), read)
    return answer, tie, d.spend()


def _at_equal_cost(debates: Sequence[Debated], k: int, read: Reader, draw: Draw) -> tuple[str | None, bool, BenchSpend]:
    drawn = [(d, seat, word) for d in debates for seat, word in d.round1()][:k]
    spend = sum((d.spend(round1=True, seat=seat) for d, seat, _ in drawn), BenchSpend())
    answer, tie = draw.settle([read(word) for _, _, word in drawn])
    return answer, tie, spend


def _select(d: Debated, picked: Selected, read: Reader) -> tuple[str | None, bool, BenchSpend]:
    """The pick, at the cost of round 1 (the candidates) and of the pick itself."""
    return read(picked.answer), False, d.spend(round1=True) + BenchSpend(picked.calls, picked.tokens, picked.cost)


def select_column(runs: Sequence[ItemRuns], kind: SuiteKind) -> Column:
    """`select` on every item: the first seat's pick among the panel's round-1 answers."""
    read, column = reader(kind), Column()
    for i, r in enumerate(runs):
        answer, _, spend = _select(r.given, r.select or Selected(None), read)
        column.answers.append(answer)
        column.spends.append(spend)
        column.confidence.append(None)
        if r.swapped is not None:
            column.backward[i] = read((r.swapped_select or Selected(None)).answer)
    return column


def strategy_columns(runs: Sequence[ItemRuns], kind: SuiteKind, k: int, seed: int = 0) -> dict[str, Column]:
    """`vote`, `debate` and `vote@equal` (a majority of `k` samples) on every item; `select` when picked."""
    read = reader(kind)
    columns = {"vote": Column(), "debate": Column(), "vote@equal": Column()}
    for i, r in enumerate(runs):
        draw, back = draw_for(r, seed), draw_for(r, seed, swapped=True)
        for name, (answer, tie, spend) in (
            ("vote", _vote(r.given, read, draw)),
            ("debate", _debate(r.given, read, draw)),
            ("vote@equal", _at_equal_cost([r.given, *r.samples], k, read, draw)),
        ):
            columns[name].answers.append(answer)
            columns[name].spends.append(spend)
            if tie:
                columns[name].tied.add(i)
        columns["vote"].confidence.append(stated_confidence(r.given.stated("round1"), columns["vote"].answers[i], read))
        columns["debate"].confidence.append(
            stated_confidence(r.given.stated("final"), columns["debate"].answers[i], read)
        )
        columns["vote@equal"].confidence.append(None)
        if r.swapped is not None:
            columns["vote"].backward[i] = _vote(r.swapped, read, back)[0]
            columns["debate"].backward[i] = _debate(r.swapped, read, back)[0]
            columns["vote@equal"].backward[i] = _at_equal_cost([r.swapped, *r.swapped_samples], k, read, back)[0]
    if any(r.select is not None for r in runs):
        columns["select"] = select_column(runs, kind)
    return columns


def judge_columns(runs: Sequence[ItemRuns], kind: SuiteKind) -> dict[str, Column]:
    """Each judge alone (by seat, in seat order): its round-1 answer on every item, and the confidence it stated."""
    read = reader(kind)
    seats = list(dict.fromkeys(seat for r in runs for seat, _ in r.given.round1()))
    columns = {seat: Column() for seat in seats}
    for i, r in enumerate(runs):
        given = dict(r.given.round1())
        stated = {str(j["judge"]): j.get("round1_confidence") for j in r.given.effect.get("judges", [])}
        swapped = dict(r.swapped.round1()) if r.swapped is not None else None
        for seat, column in columns.items():
            column.answers.append(read(given.get(seat)))
            column.confidence.append(stated.get(seat) if stated.get(seat) in LEVELS else None)
            column.spends.append(r.given.spend(round1=True, seat=seat))
            if swapped is not None:
                column.backward[i] = read(swapped.get(seat))
    return columns


def judge_models(runs: Sequence[ItemRuns]) -> dict[str, str]:
    """Each seat's model (or label), as its debates named it."""
    return {str(j["judge"]): str(j.get("model") or "") for r in runs for j in r.given.effect.get("judges", [])}

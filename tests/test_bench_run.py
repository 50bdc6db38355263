"""`run_bench` end to end on the local server, with judges of known behaviour (tests/bench_judges.py):
each figure against a value worked out by hand, what a run sends (the server's request count), and
running again (nothing sent twice). The harness gets only the judges file; the gold stays with the test."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import yaml

from moot.bench.runner import BenchRun, run_bench
from moot.bench.suites import load_suite
from moot.errors import UsageError
from moot.schemas.bench import STRATEGIES, DebateFigures, SingleFigures, VoteAtEqualFigures
from moot.store.db import Store
from moot.testing import FakeLLMServer

from .bench_judges import (
    Behaviour,
    always_a,
    always_right,
    always_wrong,
    changes_mind,
    judges_file,
    pairs,
    right_with,
    seeded_right,
    serve,
    write_jsonl,
)

MODELS = ("judge-a", "judge-b", "judge-c")


def bench(
    tmp_path: Path,
    server: FakeLLMServer,
    rows: list[dict[str, Any]],
    behaviours: list[Behaviour],
    *,
    judges: Path | None = None,
    limit: int | None = None,
    **kwargs: Any,
) -> BenchRun:
    """`run_bench` over `rows` with one judge per behaviour, the first on judge-a."""
    models = MODELS[: len(behaviours)]
    serve(server, rows, dict(zip(models, behaviours, strict=True)))
    gold = write_jsonl(tmp_path / "gold.jsonl", rows)
    suite = load_suite(str(gold), limit=limit)
    return asyncio.run(run_bench(suite, judges=judges or judges_file(tmp_path, server, models), **kwargs))


def test_an_always_a_panel_scores_0_under_judgebench_protocol_and_060_in_the_given_order_with_consistency_0(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    rows = pairs(10, lambda i: i < 6)
    run = bench(tmp_path, llm_server, rows, [always_a] * 3)
    r = run.result
    assert r is not None and run.failed == 0
    # JudgeBench's protocol: a pair is right only when it is right in both orders; always-A never is
    assert {name: f.accuracy for name, f in r.strategies.items()} == dict.fromkeys(STRATEGIES, 0.0)
    assert {name: f.accuracy_given_order for name, f in r.strategies.items()} == dict.fromkeys(STRATEGIES, 0.6)
    assert r.both_orders is True
    assert r.swap_consistency == 0.0
    assert all(f.swap_consistency == 0.0 for f in r.strategies.values())
    single = r.strategies["single"]
    assert isinstance(single, SingleFigures)
    biased = [f for n, f in r.strategies.items() if n != "single"] + list(single.judges.values())
    assert all(f.position is not None and f.position.first_share == 1.0 for f in biased)  # the direction
    debate = r.strategies["debate"]
    assert isinstance(debate, DebateFigures) and debate.round1_share == 1.0  # unanimous: over in round 1
    assert debate.kappa == 0.0  # one answer for everything agrees with gold only by chance
    equal = r.strategies["vote@equal"]
    assert isinstance(equal, VoteAtEqualFigures) and equal.samples == 3  # the debate spent 3 calls an item
    assert len(llm_server.requests) == 10 * 2 * 3  # both orders, round 1 only, no extra samples needed
    assert r.per_item[6].answers["debate"] == "A>B" and r.per_item[6].gold == "B>A"
    # A again: the other response (vote@equal too is read in both orders now)
    assert r.per_item[6].swapped == {"single": "B>A", "vote": "B>A", "vote@equal": "B>A", "debate": "B>A"}


def test_two_always_right_judges_and_one_always_wrong_score_1_by_vote(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    rows = pairs(5, lambda i: i % 2 == 0)
    run = bench(tmp_path, llm_server, rows, [always_right, always_right, always_wrong], swap=False)
    r = run.result
    assert r is not None
    vote, debate, single = r.strategies["vote"], r.strategies["debate"], r.strategies["single"]
    assert vote.accuracy == 1.0 and vote.calls_per_item == 3.0
    assert isinstance(single, SingleFigures)
    assert {seat: f.accuracy for seat, f in single.judges.items()} == {
        "correctness": 1.0,
        "correctness-2": 1.0,
        "correctness-3": 0.0,
    }
    assert (single.best, single.best_accuracy, single.mean_accuracy) == ("correctness", 1.0, pytest.approx(2 / 3))
    assert single.accuracy == pytest.approx(2 / 3) and single.calls_per_item == 1.0
    assert [single.judges[s].model for s in single.judges] == list(MODELS)
    # unanimity is never reached: every debate runs round 2, and the majority still wins
    assert isinstance(debate, DebateFigures)
    assert (debate.accuracy, debate.round1_share, debate.calls_per_item) == (1.0, 0.0, 6.0)
    assert (debate.helpful_flips, debate.harmful_flips, debate.collapse) == (0, 0, 0)
    assert debate.threshold == 1.0 and "unanimity" in debate.note
    # vote at equal cost: 6 calls an item, so k = 7 (odd) round-1 answers: two extra round-1 debates per item
    equal = r.strategies["vote@equal"]
    assert isinstance(equal, VoteAtEqualFigures)
    assert (equal.samples, equal.calls_per_item, equal.accuracy, equal.ties) == (7, 7.0, 1.0, 0)
    assert len(llm_server.requests) == 5 * 6 + 5 * 2 * 3
    assert r.swap_consistency is None and r.per_item[0].swapped is None
    assert set(r.per_item[0].debate_ids) == {"given", "sample-1", "sample-2"}


def test_a_round_2_change_to_the_round_1_minoritys_right_answer_counts_one_helpful_flip(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    rows = pairs(3, lambda i: i != 1)
    # item 0: right, wrong, wrong in round 1 (the majority is wrong); the third judge comes round in round 2
    changes = changes_mind("Item 0:")
    wrong_on_0: Behaviour = lambda ask: ask.wrong if "Item 0:" in ask.question else ask.right  # noqa: E731
    run = bench(
        tmp_path, llm_server, rows, [always_right, wrong_on_0, changes], swap=False, strategies=("vote", "debate")
    )
    r = run.result
    assert r is not None
    debate = r.strategies["debate"]
    assert isinstance(debate, DebateFigures)
    assert (debate.helpful_flips, debate.harmful_flips, debate.collapse) == (1, 0, 0)
    assert debate.round1_share == pytest.approx(2 / 3)  # items 1 and 2 were unanimous
    assert (r.strategies["vote"].accuracy, debate.accuracy) == (pytest.approx(2 / 3), 1.0)
    assert debate.mcnemar is not None
    assert (debate.mcnemar.versus, debate.mcnemar.debate_only, debate.mcnemar.versus_only) == ("vote", 1, 0)
    assert r.per_item[0].answers == {"vote": "B>A", "debate": "A>B"}
    # the flip is the one each debate records: the judge that changed, with its reason
    store = Store.open_default()
    stored = store.get_debate(r.per_item[0].debate_ids["given"])
    assert stored is not None and stored.result is not None
    effect = stored.result["debate_effect"]
    assert effect["changed_judges"] == ["correctness-3"]
    assert "convinced" in effect["judges"][2]["reason"]


def test_a_judge_right_with_probability_p_scores_what_its_seeded_stream_drew(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    rows = pairs(40, lambda i: i % 3 != 0)
    p_judge = right_with(0.7, seed=11)
    run = bench(tmp_path, llm_server, rows, [p_judge, always_right, always_wrong], swap=False, strategies=("single",))
    r = run.result
    assert r is not None and list(r.strategies) == ["single"]
    single = r.strategies["single"]
    assert isinstance(single, SingleFigures)
    drawn = sum(seeded_right(str(row["question"]), 0.7, 11) for row in rows) / len(rows)
    judge = single.judges["correctness"]
    assert judge.accuracy == drawn
    assert judge.ci95[0] <= drawn <= judge.ci95[1]
    # only single asked: round 1 alone, one call per judge and item
    assert len(llm_server.requests) == 40 * 3


def test_running_the_same_bench_again_sends_nothing_and_a_larger_limit_pays_only_for_new_items(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    rows = pairs(8, lambda i: i % 2 == 0)
    behaviours = [always_right, always_right, always_wrong]
    first = bench(tmp_path, llm_server, rows, behaviours, limit=4)
    sent = len(llm_server.requests)
    assert first.result is not None and first.result.items == 4 and sent > 0
    again = bench(tmp_path, llm_server, rows, behaviours, limit=4)
    assert len(llm_server.requests) == sent
    assert again.result == first.result
    assert again.plan.folder == first.plan.folder
    more = bench(tmp_path, llm_server, rows, behaviours)
    assert more.result is not None and more.result.items == 8
    assert len(llm_server.requests) == 2 * sent  # the four new items cost what the first four did
    kept = {p.id: p.debate_ids for p in first.result.per_item}
    assert all(p.debate_ids == kept[p.id] for p in more.result.per_item if p.id in kept)


def test_scored_items_go_to_evaluate_and_a_pass_verdict_counts_as_pass(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    rows = [
        {"id": f"s{i}", "task": "add two numbers", "artifact": f"def add(a, b):\n    return a + b  # v{i}\n", "gold": g}
        for i, g in enumerate(["pass", "pass", "pass", "fail", "fail"])
    ]
    serve(llm_server, [], dict.fromkeys(MODELS, always_a))  # always PASS
    gold = write_jsonl(tmp_path / "scored.jsonl", rows)
    judges = judges_file(tmp_path, llm_server, MODELS)
    run = asyncio.run(run_bench(load_suite(str(gold)), judges=judges, strategies=("vote", "debate")))
    r = run.result
    assert r is not None and r.kind == "scored"
    assert r.strategies["vote"].accuracy == 0.6 and r.strategies["debate"].accuracy == 0.6
    assert r.per_item[3].answers == {"vote": "pass", "debate": "pass"} and r.per_item[3].gold == "fail"
    assert r.swap_consistency is None
    assert len(llm_server.requests) == 5 * 3  # the scores agree: every evaluation ends in round 1


def test_a_stance_set_in_the_judges_file_is_kept_and_a_missing_one_becomes_correctness(
    tmp_path: Path, llm_server: FakeLLMServer
) -> None:
    rows = pairs(2, lambda i: True)
    serve(llm_server, rows, dict.fromkeys(MODELS, always_right))
    judges = tmp_path / "mixed.yaml"
    entries = [{"model": m, "api_base": llm_server.base_url} for m in MODELS]
    entries[0] |= {"stance": "skeptic", "stance_prompt": "Doubt every step."}
    judges.write_text(yaml.safe_dump({"debate_judges": entries}), encoding="utf-8")
    run = bench(tmp_path, llm_server, rows, [always_right] * 3, judges=judges, strategies=("vote",))
    assert run.result is not None
    assert list(run.result.per_item[0].judges) == ["skeptic", "correctness", "correctness-2"]
    assert "Doubt every step." in str(llm_server.calls_for("judge-a")[0].body)
    assert "Work the question out yourself" in str(llm_server.calls_for("judge-b")[0].body)
    assert "Work the question out yourself" not in str(llm_server.calls_for("judge-a")[0].body)


def test_an_explicit_neutral_stance_means_what_no_stance_means(tmp_path: Path, llm_server: FakeLLMServer) -> None:
    """docs/bench.md: a judge whose stance the file does not set is neutral; writing `stance: neutral` is the same."""
    rows = pairs(2, lambda i: True)
    judges = tmp_path / "neutral.yaml"
    entries = [{"model": m, "api_base": llm_server.base_url, "stance": "neutral"} for m in MODELS]
    judges.write_text(yaml.safe_dump({"debate_judges": entries}), encoding="utf-8")
    run = bench(tmp_path, llm_server, rows, [always_right] * 3, judges=judges, strategies=("vote",))
    assert run.result is not None
    assert list(run.result.per_item[0].judges) == ["correctness", "correctness-2", "correctness-3"]
    assert "Work the question out yourself" in str(llm_server.calls_for("judge-a")[0].body)


def test_bad_panels_are_refused_before_any_call(
    tmp_path: Path, llm_server: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = pairs(2, lambda i: True)
    gold = write_jsonl(tmp_path / "gold.jsonl", rows)
    suite = load_suite(str(gold))
    keyed = tmp_path / "keyed.yaml"
    keyed.write_text(yaml.safe_dump({"debate_judges": [{"model": "m", "api_key": "sk-secret"}] * 3}), encoding="utf-8")
    with pytest.raises(UsageError, match="api_key_env"):
        asyncio.run(run_bench(suite, judges=keyed))
    keyless = tmp_path / "keyless.yaml"
    keyless.write_text(yaml.safe_dump({"debate_judges": ["gpt-4o", "gpt-4o-mini"]}), encoding="utf-8")
    with pytest.raises(UsageError, match="OPENAI_API_KEY"):
        asyncio.run(run_bench(suite, judges=keyless))
    with pytest.raises(UsageError, match="--concurrency"):
        asyncio.run(run_bench(suite, judges=keyless, concurrency=0))
    assert llm_server.requests == []
    assert not any("sk-secret" in p.read_text(encoding="utf-8") for p in tmp_path.rglob("*.yaml") if p != keyed)

"""The bench's figures (issue 11), each checked against a value worked out by hand at its boundaries, and
the result's JSON keys, which are a contract."""

from __future__ import annotations

import json
import math
import random

import pytest

from moot.bench.metrics import (
    BenchDebate,
    accuracy,
    bootstrap_ci,
    cohen_kappa,
    correctness,
    flips,
    mcnemar,
    plurality,
    record_from_effect,
    swap_consistency,
    unswap,
)
from moot.schemas.bench import (
    BenchResult,
    DebateFigures,
    JudgeFigures,
    McNemarFigures,
    PerItem,
    SingleFigures,
    StrategyFigures,
    VoteAtEqualFigures,
)

A, B = "A>B", "B>A"


def test_accuracy_counts_right_answers_and_a_missing_answer_is_wrong() -> None:
    gold = [A, A, B, B]
    assert correctness([A, B, B, None], gold) == [True, False, True, False]
    assert accuracy(correctness([A, B, B, None], gold)) == 0.5
    assert accuracy([True, True, True]) == 1.0
    assert accuracy([0.5, 1.0]) == 0.75  # part-right items (a mean over judges)
    with pytest.raises(ValueError):
        accuracy([])
    with pytest.raises(ValueError, match="differ in length"):
        correctness([A], gold)


def test_always_a_panel_on_labels_60_percent_a_scores_exactly_060_with_kappa_0() -> None:
    gold = [A] * 6 + [B] * 4
    answers = [A] * 10
    assert accuracy(correctness(answers, gold)) == pytest.approx(0.6, abs=1e-12)
    assert cohen_kappa(answers, gold) == pytest.approx(0.0, abs=1e-12)


def test_kappa_at_its_boundaries_and_on_a_table_worked_by_hand() -> None:
    gold = [A] * 4 + [B] * 6
    assert cohen_kappa(gold, gold) == 1.0
    assert cohen_kappa([unswap(g) for g in [A] * 5 + [B] * 5], [A] * 5 + [B] * 5) == -1.0
    # 3 of 4 A's and 4 of 6 B's right: p_o = 0.7; the answers say A 5 times, B 5: p_e = (5*4 + 5*6)/100 = 0.5
    answers = [A, A, A, B, B, B, B, B, A, A]  # gold: A A A A B B B B B B
    assert cohen_kappa(answers, gold) == pytest.approx((0.7 - 0.5) / 0.5)
    # a missing answer is its own category: p_o = 0.5, p_e = (0*1 + 1*1)/4
    assert cohen_kappa([None, B], [A, B]) == pytest.approx((0.5 - 0.25) / 0.75)
    assert cohen_kappa([A, A], [A, A]) is None  # undefined: chance agreement is already 1


def test_bootstrap_interval_is_seeded_and_degenerate_where_it_must_be() -> None:
    assert bootstrap_ci([True] * 50) == (1.0, 1.0)
    assert bootstrap_ci([False] * 50) == (0.0, 0.0)
    assert bootstrap_ci([True]) == (1.0, 1.0)
    data = [True, False, True, True, False, True, True, True]
    assert bootstrap_ci(data, seed=3) == bootstrap_ci(data, seed=3)
    low, high = bootstrap_ci(data, seed=3)
    assert low <= accuracy(data) <= high
    with pytest.raises(ValueError):
        bootstrap_ci([])


def test_a_judge_right_with_p_07_over_1000_seeded_items_lands_within_the_reported_interval() -> None:
    stream = random.Random(2024)
    gold = [stream.choice((A, B)) for _ in range(1000)]
    answers = [g if stream.random() < 0.7 else unswap(g) for g in gold]
    right = correctness(answers, gold)
    low, high = bootstrap_ci(right, seed=7)
    assert low < 0.7 < high
    assert low < accuracy(right) < high
    # the normal approximation's half-width is 1.96 * sqrt(0.21 / 1000) = 0.0284
    assert (high - low) / 2 == pytest.approx(1.96 * math.sqrt(0.21 / 1000), rel=0.15)


def test_mcnemar_exact_below_25_discordant_items_and_chi_square_from_25() -> None:
    same = mcnemar([True, False, True], [True, False, True])
    assert (same.first_only, same.second_only, same.p_value, same.test) == (0, 0, 1.0, "exact binomial")
    assert mcnemar([False] * 5, [True] * 5).p_value == 2 / 2**5
    one_nine = mcnemar([True] + [False] * 9, [False] + [True] * 9)
    assert (one_nine.first_only, one_nine.second_only) == (1, 9)
    assert one_nine.p_value == pytest.approx(2 * (1 + 10) / 2**10)
    # 24 discordant: still exact; 2 * sum_{k<=5} C(24, k) / 2^24 = 2 * 55455 / 16777216
    exact = mcnemar([True] * 5 + [False] * 19, [False] * 5 + [True] * 19)
    assert exact.test == "exact binomial"
    assert exact.p_value == pytest.approx(2 * 55455 / 2**24)
    assert mcnemar([True] * 12 + [False] * 12, [False] * 12 + [True] * 12).p_value == 1.0
    # 25 discordant: chi-square (|5 - 20| - 1)^2 / 25 = 7.84, one degree of freedom: p = 0.00511
    chi = mcnemar([True] * 5 + [False] * 20, [False] * 5 + [True] * 20)
    assert chi.test == "chi-square (continuity corrected)"
    assert chi.p_value == pytest.approx(0.005110, abs=5e-6)
    assert mcnemar([True] * 10 + [False] * 30, [False] * 10 + [True] * 30).p_value == pytest.approx(0.002663, abs=5e-6)


def test_plurality_and_unswap() -> None:
    assert plurality([A, A, B]) == A
    assert plurality([A, B]) is None
    assert plurality([None, None, B]) == B
    assert plurality([]) is None
    assert (unswap(A), unswap(B), unswap(None), unswap("pass")) == (B, A, None, "pass")


def test_swap_consistency_is_zero_for_an_always_a_judge_and_one_for_a_consistent_one() -> None:
    assert swap_consistency([A] * 10, [A] * 10) == 0.0
    assert swap_consistency([A, B, B, A], [B, A, A, B]) == 1.0
    assert swap_consistency([A, B, B, A], [B, A, A, A]) == 0.75
    assert swap_consistency([None, A], [None, B]) == 0.5  # no answer is not a consistent one
    assert swap_consistency([], []) is None


def record(
    gold: str,
    round1: list[str | None],
    majority: str | None,
    final: str | None,
    rounds: int = 2,
    judge_final: list[str | None] | None = None,
) -> BenchDebate:
    said = {f"judge-{n}": a for n, a in enumerate(judge_final or [], 1)}
    return BenchDebate(gold, {f"judge-{n}": a for n, a in enumerate(round1, 1)}, majority, final, rounds, said)


def test_a_round_2_change_to_the_round_1_minoritys_right_answer_is_one_helpful_flip() -> None:
    f = flips([record(B, [A, A, B], A, B)])
    assert (f.items, f.helpful_flips, f.harmful_flips, f.collapse, f.round1_share) == (1, 1, 0, 0, 0.0)


def test_a_debate_effect_record_reads_as_the_same_flip() -> None:
    effect = {
        "round1_verdict": "A",
        "final_verdict": "B",
        "differs": True,
        "judges": [
            {"judge": "judge-1", "round1": "A", "final": "A", "changed": False, "reason": ""},
            {"judge": "judge-2", "round1": "A", "final": "B", "changed": True, "reason": "B's proof checks out"},
            {"judge": "judge-3", "round1": "B", "final": "B", "changed": False, "reason": ""},
        ],
        "changed_judges": ["judge-2"],
        "rounds": 2,
    }
    labels = {"A": A, "B": B}
    rec = record_from_effect(effect, B, lambda v: labels.get(v or ""))
    assert rec == record(B, [A, A, B], A, B, judge_final=[A, B, B])
    assert flips([rec]).helpful_flips == 1
    tie = record_from_effect({**effect, "round1_verdict": "tie"}, B, lambda v: labels.get(v or ""))
    assert tie.round1_majority is None


def test_harmful_flips_collapse_and_round1_share_worked_by_hand() -> None:
    records = [
        record(A, [A, A, B], A, A, rounds=1),  # decided in round 1, right
        record(A, [A, A, B], A, B),  # majority right, lost: harmful and collapse
        record(A, [B, B, A], B, B),  # a right minority lost: collapse only
        record(A, [B, B, B], B, B, rounds=3),  # nobody right: nothing to lose
        record(B, [A, B, A], None, B),  # no round-1 majority, final right: helpful
    ]
    f = flips(records)
    assert (f.helpful_flips, f.harmful_flips, f.collapse) == (1, 1, 2)
    assert f.round1_share == pytest.approx(1 / 5)
    with pytest.raises(ValueError):
        flips([])


def test_the_result_json_has_the_contract_keys_and_reads_back_as_the_same_types() -> None:
    base = {"accuracy": 0.6, "ci95": (0.5, 0.7), "kappa": 0.0, "calls_per_item": 3.0, "tokens_per_item": 900.0}
    judge = JudgeFigures(accuracy=0.6, ci95=(0.5, 0.7), kappa=0.0)
    result = BenchResult(
        suite="judgebench",
        kind="pairwise",
        items=2,
        seed=0,
        swap_consistency=0.0,
        verdict="No strategy wins for this panel.",
        strategies={
            "single": SingleFigures(
                **base,
                cost_per_item=0.01,
                judges={"judge-1": judge},
                best="judge-1",
                best_accuracy=0.6,
                mean_accuracy=0.6,
            ),
            "vote": StrategyFigures(**base, cost_per_item=0.03),
            "vote@equal": VoteAtEqualFigures(**base, cost_per_item=0.05, samples=5),
            "debate": DebateFigures(
                **base,
                cost_per_item=None,
                round1_share=0.5,
                helpful_flips=1,
                harmful_flips=0,
                collapse=0,
                mcnemar=McNemarFigures(versus="vote", debate_only=1, versus_only=0, p_value=1.0, test="exact binomial"),
                threshold=1.0,
            ),
        },
        per_item=[PerItem(id="x", gold=A, answers={"single": A, "vote": A, "vote@equal": A, "debate": None})],
    )
    data = json.loads(result.model_dump_json())
    assert {"suite", "items", "swap_consistency", "per_item", "verdict", "strategies"} <= set(data)
    for figures in data["strategies"].values():
        assert {"accuracy", "ci95", "kappa", "calls_per_item", "tokens_per_item", "cost_per_item"} <= set(figures)
    assert {"round1_share", "helpful_flips", "harmful_flips", "collapse", "mcnemar"} <= set(
        data["strategies"]["debate"]
    )
    assert data["strategies"]["single"]["judges"]["judge-1"]["accuracy"] == 0.6
    assert data["per_item"][0] == {
        "id": "x",
        "gold": A,
        "source": None,
        "answers": {"single": A, "vote": A, "vote@equal": A, "debate": None},
        "judges": {},
        "swapped": None,
        "debate_ids": {},
    }
    again = BenchResult.model_validate_json(result.model_dump_json())
    assert isinstance(again.strategies["debate"], DebateFigures)
    assert isinstance(again.strategies["single"], SingleFigures)
    assert isinstance(again.strategies["vote@equal"], VoteAtEqualFigures)
    assert type(again.strategies["vote"]) is StrategyFigures
    assert again == result

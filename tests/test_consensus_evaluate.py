"""The scored-evaluation rules, at their boundaries, with no model at all."""

from __future__ import annotations

import pytest

from moot.protocols.evaluate.criteria import parse_criteria_string
from moot.protocols.evaluate.rules import (
    check_consensus,
    decide_verdict,
    find_majority,
    finding_states,
    spread,
    verdict_for,
    weighted_overall,
)
from moot.protocols.evaluate.schemas import CriticalFinding, ScoredPosition
from moot.protocols.evaluate.settings import ConsensusSettings, VerdictThresholds

CRIT = parse_criteria_string("correctness:30,design:25,security:20,performance:15,docs:10")


def pos(judge: str, overall: float, dim: float | dict[str, float] = 4, accepts: bool | None = None) -> ScoredPosition:
    d = dim if isinstance(dim, dict) else {c.key: dim for c in CRIT}
    return ScoredPosition(judge=judge, round=1, overall_score=overall, dimension_scores=d, accepts_consensus=accepts)


def test_overall_range_exactly_at_limit_is_consensus_despite_float_noise() -> None:
    assert 4.4 - 3.9 > 0.5  # the floating-point trap the rule must not fall into
    check = check_consensus([pos("a", 4.4), pos("b", 3.9)], CRIT, ConsensusSettings())
    assert check.reached and check.overall_range == 0.5


def test_overall_range_just_over_limit_is_not_consensus() -> None:
    check = check_consensus([pos("a", 4.31), pos("b", 3.8)], CRIT, ConsensusSettings())
    assert not check.reached
    assert "overall scores differ by 0.51" in check.reasons[0]


def test_dimension_range_boundary() -> None:
    at = {c.key: 4.0 for c in CRIT}
    over = dict(at, security=2.9)
    at_limit = dict(at, security=3.0)
    assert 4.4 - 3.4 > 1.0
    edge = {c.key: 4.4 for c in CRIT}
    assert check_consensus(
        [pos("a", 4, edge), pos("b", 4, dict(edge, security=3.4))], CRIT, ConsensusSettings()
    ).reached
    assert check_consensus([pos("a", 4, at), pos("b", 4, at_limit)], CRIT, ConsensusSettings()).reached
    check = check_consensus([pos("a", 4, at), pos("b", 4, over)], CRIT, ConsensusSettings())
    assert not check.reached and "'security'" in check.reasons[0]


def test_configured_ranges_apply() -> None:
    s = ConsensusSettings(overall_score_range=1.0, dimension_score_range=2.0)
    assert check_consensus([pos("a", 4, 4), pos("b", 3, 2)], CRIT, s).reached


def test_single_judge_is_never_consensus() -> None:
    assert not check_consensus([pos("a", 4)], CRIT, ConsensusSettings()).reached


def test_unresolved_critical_finding_blocks_consensus_unless_disabled() -> None:
    states = {"C1": "open"}
    assert not check_consensus([pos("a", 4), pos("b", 4)], CRIT, ConsensusSettings(), states).reached  # type: ignore[arg-type]
    off = ConsensusSettings(critical_finding_agreement=False)
    assert check_consensus([pos("a", 4), pos("b", 4)], CRIT, off, states).reached  # type: ignore[arg-type]
    for resolved in ("agreed", "withdrawn", "rejected"):
        assert check_consensus([pos("a", 4), pos("b", 4)], CRIT, ConsensusSettings(), {"C1": resolved}).reached  # type: ignore[dict-item]


def test_explicit_acceptance_rule_of_seed_003() -> None:
    s = ConsensusSettings(require_explicit_acceptance=True)
    assert not check_consensus([pos("a", 4, accepts=True), pos("b", 4)], CRIT, s).reached
    assert check_consensus([pos("a", 4, accepts=True), pos("b", 4, accepts=True)], CRIT, s).reached


def finding(raised_by: str = "a") -> CriticalFinding:
    return CriticalFinding(id="C1", finding="x", raised_by=raised_by, round=1)


@pytest.mark.parametrize(
    ("responses", "active", "state"),
    [
        ({}, ["a", "b", "c"], "open"),
        ({"b": {"C1": "accept"}}, ["a", "b", "c"], "open"),
        ({"b": {"C1": "accept"}, "c": {"C1": "accept"}}, ["a", "b", "c"], "agreed"),
        ({"b": {"C1": "accept"}, "c": {"C1": "reject"}}, ["a", "b", "c"], "disputed"),
        ({"a": {"C1": "withdraw"}, "c": {"C1": "reject"}}, ["a", "b", "c"], "withdrawn"),
        ({"b": {"C1": "reject"}, "c": {"C1": "reject"}}, ["b", "c"], "rejected"),
        ({"b": {"C1": "reject"}, "c": {"C1": "reject"}}, ["a", "b", "c"], "disputed"),
        ({"b": {"C1": "accept"}}, ["a", "b"], "agreed"),
    ],
)
def test_critical_finding_states(responses: dict, active: list[str], state: str) -> None:  # type: ignore[type-arg]
    assert finding_states([finding()], responses, active)["C1"] == state


def test_majority_is_the_unique_largest_group_within_range() -> None:
    m = find_majority({"a": 3.5, "b": 3.8, "c": 2.9}, 0.5)
    assert m is not None and m.majority == ["a", "b"] and m.minority == ["c"]


def test_majority_boundary_uses_inclusive_range() -> None:
    m = find_majority({"a": 4.4, "b": 3.9, "c": 2.0}, 0.5)
    assert m is not None and sorted(m.majority) == ["a", "b"]


def test_two_equal_groups_leave_no_majority() -> None:
    assert find_majority({"a": 3.0, "b": 3.5, "c": 4.0}, 0.5) is None


def test_no_strict_majority_when_everyone_apart() -> None:
    assert find_majority({"a": 1.0, "b": 2.0, "c": 3.0}, 0.5) is None
    assert find_majority({"a": 1.0, "b": 1.2, "c": 3.0, "d": 3.1}, 0.5) is None  # 2 of 4 is not a majority


def test_verdict_thresholds_and_critical_cap() -> None:
    t = VerdictThresholds()
    assert verdict_for(4.0, t) == "PASS"
    assert verdict_for(3.99, t) == "CONDITIONAL"
    assert verdict_for(3.0, t) == "CONDITIONAL"
    assert verdict_for(2.99, t) == "FAIL"
    assert verdict_for(4.8, t, critical_accepted=True) == "CONDITIONAL"
    assert verdict_for(2.0, t, critical_accepted=True) == "FAIL"
    assert verdict_for(3.5, VerdictThresholds(pass_at=3.5, conditional_at=2.0)) == "PASS"


def test_decide_verdict_paths() -> None:
    s, t = ConsensusSettings(), VerdictThresholds()
    c = decide_verdict({"a": 4.0, "b": 4.4}, consensus_reached=True, settings=s, thresholds=t)
    assert (c.method, c.verdict_type, c.confidence, c.score, c.verdict) == (
        "unanimous",
        "consensus",
        "HIGH",
        4.2,
        "PASS",
    )
    m = decide_verdict({"a": 3.5, "b": 3.8, "c": 2.9}, consensus_reached=False, settings=s, thresholds=t)
    assert (m.method, m.majority_score, m.minority_score, m.verdict) == ("majority", 3.65, 2.9, "CONDITIONAL")
    f = decide_verdict({"a": 1.0, "b": 2.5, "c": 4.5}, consensus_reached=False, settings=s, thresholds=t)
    assert (f.method, f.verdict_type, f.confidence, f.score, f.verdict) == (
        "forced",
        "no_consensus",
        "LOW",
        2.5,
        "FAIL",
    )


def test_weighted_overall_and_spread() -> None:
    scores = {"correctness": 5, "design": 4, "security": 3, "performance": 2, "docs": 1}
    assert weighted_overall(scores, CRIT) == round(5 * 0.3 + 4 * 0.25 + 3 * 0.2 + 2 * 0.15 + 1 * 0.1, 2)
    assert spread([4.0]) == 0.0

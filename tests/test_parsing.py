"""Judge replies -> validated positions: the seeds' templates are accepted; bad replies are named."""

from __future__ import annotations

import pytest

from moot.parsing.extract import ReplyError, extract_mapping
from moot.protocols.evaluate.criteria import parse_criteria_string
from moot.protocols.evaluate.parsing import parse_scored_reply
from moot.protocols.evaluate.schemas import CriticalFinding

from .replies import round1, round2, round3

CRIT = parse_criteria_string("correctness:30,design:25,security:20,performance:15,docs:10")


def test_round1_fenced_with_prose_around() -> None:
    p = parse_scored_reply(round1(3.7, prose="Here is my evaluation:"), judge="judge-1", round_no=1, criteria=CRIT)
    assert p.overall_score == 3.7 and p.dimension_scores["security"] == 4 and len(p.verification) == 5


def test_seed_000_round1_template_with_plan_dimensions() -> None:
    crit = parse_criteria_string("plan")
    text = """judge_id: "gemini-3-pro-preview"
stance: "neutral"
round: 1

overall_score: 3.8  # 1-5 scale
dimension_scores:
  problem_understanding: 4  # 1-5
  architecture_quality: 4
  risk_mitigation: 3
  implementation_clarity: 4
  feasibility: 4

position_statement: |
  ## My Assessment
  Fine.

key_claims:
  - claim: "clear"
    evidence: "plan.md"
    confidence: "HIGH"

critical_findings:
  - finding: "No rollback plan"
    severity: "CRITICAL"
    evidence: "plan.md section 4"
"""
    p = parse_scored_reply(text, judge="judge-1", round_no=1, criteria=crit)
    assert p.overall_score == 3.8 and p.raised[0].finding == "No rollback plan"


def test_round2_new_score_json_and_carry_over() -> None:
    prev = parse_scored_reply(round1(3.0, 3), judge="judge-1", round_no=1, criteria=CRIT)
    p = parse_scored_reply(
        round2(3.6, {"security": 4}, as_json=True), judge="judge-1", round_no=2, criteria=CRIT, previous=prev
    )
    assert p.overall_score == 3.6 and p.dimension_scores["security"] == 4 and p.dimension_scores["design"] == 3
    assert sorted(p.carried_over) == ["correctness", "design", "docs", "performance"]


def test_round3_final_score() -> None:
    prev = parse_scored_reply(round1(3.0, 3), judge="judge-1", round_no=1, criteria=CRIT)
    p = parse_scored_reply(round3(3.4), judge="judge-1", round_no=3, criteria=CRIT, previous=prev)
    assert p.overall_score == 3.4 and p.unresolved


def test_unchanged_score_without_new_score_keeps_previous() -> None:
    prev = parse_scored_reply(round1(3.2, 3), judge="judge-1", round_no=1, criteria=CRIT)
    p = parse_scored_reply(
        "score_changed: false\nchange_reason: held", judge="judge-1", round_no=2, criteria=CRIT, previous=prev
    )
    assert p.overall_score == 3.2


def test_missing_overall_in_round1_uses_weighted_score() -> None:
    text = "dimension_scores: {correctness: 5, design: 5, security: 5, performance: 5, docs: 1}"
    p = parse_scored_reply(text, judge="j", round_no=1, criteria=CRIT)
    assert p.overall_score == 4.6 and not p.stated_overall


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("I think it is good.", "no YAML or JSON"),
        ("", "empty"),
        (
            "overall_score: 7\ndimension_scores: {correctness: 4, design: 4, security: 4, performance: 4, docs: 4}",
            "outside the 1-5",
        ),
        (
            "overall_score: 4\ndimension_scores: {correctness: 4, design: 4}",
            "missing a score for: security, performance, docs",
        ),
        (
            "overall_score: great\ndimension_scores: {correctness: 4, design: 4, security: 4, performance: 4, docs: 4}",
            "must be a number",
        ),
    ],
)
def test_bad_round1_replies_are_named(text: str, message: str) -> None:
    with pytest.raises(ReplyError, match=message):
        parse_scored_reply(text, judge="j", round_no=1, criteria=CRIT)


def test_open_critical_findings_must_be_answered() -> None:
    prev = parse_scored_reply(round1(3.0, 3), judge="judge-2", round_no=1, criteria=CRIT)
    c1 = CriticalFinding(id="C1", finding="x", raised_by="judge-1", round=1)
    with pytest.raises(ReplyError, match="missing C1"):
        parse_scored_reply(round2(3.0), judge="judge-2", round_no=2, criteria=CRIT, previous=prev, must_answer=[c1])
    with pytest.raises(ReplyError, match="only the judge who raised C1"):
        parse_scored_reply(
            round2(3.0, responses={"C1": "withdraw"}),
            judge="judge-2",
            round_no=2,
            criteria=CRIT,
            previous=prev,
            must_answer=[c1],
        )
    p = parse_scored_reply(
        round2(3.0, responses={"c1": "agree"}),
        judge="judge-2",
        round_no=2,
        criteria=CRIT,
        previous=prev,
        must_answer=[c1],
    )
    assert p.critical_responses == {"C1": "accept"}


def test_extract_prefers_fenced_yaml_and_never_evaluates() -> None:
    text = "prose {not json}\n```yaml\na: 1\n```\n"
    assert extract_mapping(text) == {"a": 1}
    assert extract_mapping("{\"a\": \"__import__('os').system('x')\"}")["a"].startswith("__import__")
    with pytest.raises(ReplyError):
        extract_mapping("!!python/object/apply:os.system ['echo hi']")

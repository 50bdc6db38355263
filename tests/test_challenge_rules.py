"""The position challenge's pure parts: consensus tables, skepticism, iteration, confidence, reply parsing,
and the Markdown outcome."""

from __future__ import annotations

import pytest

from moot.parsing.extract import ReplyError
from moot.protocols.challenge.parsing import (
    parse_assumptions,
    parse_challenge,
    parse_confrontation,
    parse_opening,
    parse_rebuttal,
)
from moot.protocols.challenge.rules import (
    Reading,
    check_challenges,
    final_confidence,
    is_changed,
    next_step,
    read_challenge,
)
from moot.protocols.challenge.schemas import (
    AssumptionRow,
    Challenge,
    ChallengeResult,
    Opening,
    PositionChange,
    PositionVersion,
)
from moot.protocols.challenge.text import challenge_markdown

from .challenge_helpers import SUBSTANTIVE

AGREE, PARTIAL_MINOR = Reading("agree", "minor"), Reading("partial", "minor")
PARTIAL_STRONG, DISAGREE = Reading("partial", "strong"), Reading("disagree", "strong")


@pytest.mark.parametrize(
    ("readings", "decision"),
    [
        ([AGREE, AGREE], "fast_exit"),
        ([PARTIAL_MINOR, PARTIAL_MINOR], "fast_exit"),
        ([AGREE], "fast_exit"),
        ([AGREE, DISAGREE], "confront"),
        ([PARTIAL_STRONG, PARTIAL_MINOR], "confront"),
        ([AGREE, PARTIAL_MINOR], "confront"),  # mixed verdicts
        ([Reading("disagree", "minor")], "confront"),
    ],
)
def test_seed_consensus_tables(readings: list[Reading], decision: str) -> None:
    check = check_challenges({f"challenger-{i}": r for i, r in enumerate(readings, 1)})
    assert check.decision == decision
    assert check.dissenters == [f"challenger-{i}" for i, r in enumerate(readings, 1) if r.verdict != "agree"]


def test_nobody_answering_is_not_a_consensus() -> None:
    with pytest.raises(ValueError, match="no challenger answered"):
        check_challenges({})


def test_skepticism_reads_a_bare_round_1_agreement_as_partial_and_blocks_the_fast_exit() -> None:
    stamp = Challenge(verdict="agree", objection_strength="minor", reasoning="LGTM, agreed.")
    assert read_challenge(stamp, round_no=1) == Reading("partial", "minor", suspicious=True)
    assert read_challenge(stamp, round_no=2) == Reading("agree", "minor")
    real = Challenge(verdict="agree", objection_strength="minor", reasoning=SUBSTANTIVE)
    assert read_challenge(real, round_no=1) == AGREE
    check = check_challenges({"challenger-1": read_challenge(stamp, round_no=1), "challenger-2": AGREE})
    assert check.decision == "confront" and check.dissenters == ["challenger-1"]
    assert "treated as partial" in check.reasons[0]


def test_iteration_and_confidence() -> None:
    assert next_step({"a": "ACCEPT", "b": "ACCEPT"}, round_no=1, max_rounds=5) == "consensus"
    assert next_step({"a": "ACCEPT", "b": "MAINTAIN"}, round_no=4, max_rounds=5) == "continue"
    assert next_step({"a": "ESCALATE"}, round_no=5, max_rounds=5) == "tradeoff"
    assert final_confidence("MEDIUM", outcome="CONSENSUS", all_agreed_at_once=True) == "HIGH"
    assert final_confidence("LOW", outcome="CONSENSUS", all_agreed_at_once=False) == "LOW"
    assert final_confidence("HIGH", outcome="TRADEOFF", all_agreed_at_once=False) == "MEDIUM"
    assert final_confidence("LOW", outcome="TRADEOFF", all_agreed_at_once=False) == "LOW"
    assert is_changed("a  b", "a b", ["REJECT"]) is False
    assert is_changed("a", "a", ["PARTIAL"]) is True and is_changed("a", "b", []) is True


def test_opening_accepts_yaml_with_prose_and_insists_on_its_keys() -> None:
    o = parse_opening("Sure!\nposition: Shard it\nreasoning: locality\nconfidence: med\nweaknesses: one\n")
    assert o == Opening(position="Shard it", reasoning="locality", confidence="MEDIUM", weaknesses=["one"])
    with pytest.raises(ReplyError, match="confidence must be one of HIGH \\| MEDIUM \\| LOW"):
        parse_opening('{"position": "x", "reasoning": "y", "confidence": "sure"}')
    with pytest.raises(ReplyError, match="no 'reasoning'"):
        parse_opening("position: x\nconfidence: HIGH\n")


def test_challenge_reply_shapes() -> None:
    c = parse_challenge(
        'I disagree.\n{"verdict": "Disagree", "objection_strength": "STRONG", '
        '"objections": [{"text": "hot shards"}, "resharding"], "reasoning": "r"}'
    )
    assert c == Challenge(
        verdict="disagree", objection_strength="strong", objections=["hot shards", "resharding"], reasoning="r"
    )
    assert parse_challenge('```json\n{"verdict": "agree", "reasoning": "fine"}\n```').objection_strength == "minor"
    with pytest.raises(ReplyError, match="needs at least one entry in 'objections'"):
        parse_challenge('{"verdict": "disagree", "objection_strength": "strong", "objections": []}')
    with pytest.raises(ReplyError, match="verdict must be one of agree \\| partial \\| disagree"):
        parse_challenge('{"verdict": "agreeable", "objection_strength": "minor"}')
    with pytest.raises(ReplyError, match="no YAML or JSON"):
        parse_challenge("I know it is not right")


def test_confrontation_must_answer_every_objection_by_id_or_in_order() -> None:
    text = "responses:\n- objection: O2\n  decision: reject\n  reason: no\n- objection: 'O1: hot shards'\n  decision: Accept\nposition: v2\n"
    conf = parse_confrontation(text, objection_ids=["O1", "O2"])
    assert [(r.objection, r.decision) for r in conf.responses] == [("O1", "ACCEPT"), ("O2", "REJECT")]
    by_order = parse_confrontation(
        '{"responses": [{"decision": "PARTIAL"}, {"decision": "REJECT"}], "position": "v2"}', objection_ids=["O3", "O4"]
    )
    assert [r.objection for r in by_order.responses] == ["O3", "O4"] and by_order.confidence is None
    with pytest.raises(ReplyError, match="missing O2"):
        parse_confrontation(
            "responses:\n- objection: O1\n  decision: ACCEPT\nposition: v2\n", objection_ids=["O1", "O2"]
        )
    assert parse_confrontation("responses: []\nposition: same\n", objection_ids=[]).position == "same"


def test_rebuttal_and_assumptions() -> None:
    r = parse_rebuttal('{"response": "maintain", "reasoning": "still skewed", "objections": ["whales"]}')
    assert (r.response, r.objections) == ("MAINTAIN", ["whales"])
    with pytest.raises(ReplyError, match="ACCEPT \\| MAINTAIN \\| ESCALATE"):
        parse_rebuttal('{"response": "maybe"}')
    a = parse_assumptions("why_disagree: skew\nwhat_would_change_my_mind: data\nassumptions:\n- assumption: growth\n")
    assert a.assumptions == ["growth"] and a.core_disagreement == ""
    with pytest.raises(ReplyError, match="what_would_change_my_mind"):
        parse_assumptions("why_disagree: skew\n")


def test_markdown_outcome_escapes_table_cells_and_shows_history() -> None:
    result = ChallengeResult(
        debate_id="d1",
        topic="t",
        outcome="TRADEOFF",
        final_position="v2 text",
        confidence="MEDIUM",
        rounds=5,
        position_history=[
            PositionVersion(version=1, round=0, position="v1 text", confidence="HIGH"),
            PositionVersion(
                version=2,
                round=1,
                position="v2 text",
                confidence="MEDIUM",
                changed=True,
                changed_because=[
                    PositionChange(objection_id="O1", raised_by="challenger-1", objection="skew", decision="ACCEPT")
                ],
            ),
        ],
        core_disagreement="skew",
        assumptions=[AssumptionRow(assumption="a | b\nc", held_by="challenger-1", supports="challenger-1")],
        opening=Opening(position="v1 text", reasoning="r", confidence="HIGH"),
    )
    md = challenge_markdown(result)
    assert md.startswith("## DEBATE OUTCOME: TRADEOFF")
    assert "**Rounds:** 5 (max, no consensus)" in md and "**Core disagreement:** skew" in md
    assert "| a \\| b c | challenger-1 | challenger-1 |" in md
    assert "- v1 (opening, confidence HIGH): v1 text" in md
    assert (
        "- v2 (after round 1, final, confidence MEDIUM): v2 text — Changed because: ACCEPT O1 from challenger-1: skew"
        in md
    )

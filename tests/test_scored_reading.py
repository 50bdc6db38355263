"""Evaluate's replies kept as their model: a reply is validated once as `ScoredReading` (every key of every
round's declared reply, legacy aliases included), which makes the judge's position itself. A field renamed in a
declared reply is a bug the tests see, never a field silently read as empty; a field added to a declared reply
and read by nothing is seen too."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from pydantic import create_model

from moot.parsing.extract import ReplyError
from moot.parsing.replies import ReplyModel, Text, reply_field, reply_schema, specialize, validate_reply
from moot.protocols.evaluate import replies
from moot.protocols.evaluate.criteria import parse_criteria_string
from moot.protocols.evaluate.parsing import parse_scored_reply
from moot.protocols.evaluate.positions import ScoredReading, UndeclaredField
from moot.protocols.evaluate.replies import ScoredAnalysis, ScoredRebuttal

from .replies import CRITERIA, KEYS, round1

CRIT = parse_criteria_string(CRITERIA)


def renamed(model: type[ReplyModel], old: str, new: str) -> type[ReplyModel]:
    """A copy of `model` whose field `old` is called `new` (same place, type and declaration)."""
    fields: dict[str, Any] = {
        (new if name == old else name): (info.annotation, info) for name, info in model.model_fields.items()
    }
    return create_model(f"{model.__name__}Renamed", __base__=ReplyModel, **fields)


def unread(phases: dict[str, type[ReplyModel]]) -> set[str]:
    """The fields the declared replies ask for that the reading neither reads nor says it leaves unread."""
    read = {k for keys in ScoredReading.keys().values() for k in keys} | ScoredReading.not_read
    return {name for model in phases.values() for name in model.model_fields} - read


def test_a_reply_mixing_the_rounds_templates_is_one_typed_reading() -> None:
    """A rebuttal carrying round 1's and the final round's keys, and legacy aliases: each field is read under
    its keys, the last round's first, into the reading's typed attributes."""
    data = {
        "overall_score": 2.0,
        "final_score": "4/5",
        "revised_dimension_scores": dict.fromkeys(KEYS, 4),
        "statement": "round 1's key",
        "final_position": "the final round's key",
        "accept_consensus": "yes",
        "verification_questions": [{"question": "q?", "answer": "a"}],
        "unresolved_disputes": {"topic": "speed", "my_view": "slow"},
        "critical_finding_responses": {"c1": "Agreed"},
    }
    reading = validate_reply(ScoredReading, data)
    assert reading.overall == "4/5" and reading.dimension_scores == dict.fromkeys(KEYS, 4)
    assert reading.statement == "the final round's key" and reading.accepts_consensus is True
    assert reading.unresolved_disputes == [{"topic": "speed", "my_view": "slow"}]
    assert reading.responses() == {"C1": "accept"}
    position = reading.position(judge="judge-1", round_no=2, criteria=CRIT)
    assert position.overall_score == 4.0 and position.stated_overall is True
    assert position.verification == ["q? -> a"] and position.unresolved == ["speed (mine: slow; opposing: )"]
    assert position.critical_responses == {"C1": "accept"} and position.accepts_consensus is True


def test_a_field_renamed_in_a_declared_reply_is_a_bug_not_a_field_read_as_empty(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Rename `change_reason` in the rebuttal: the parser reads a field no declared reply has any more, which
    is raised as moot's bug (not a reply sent back to the judge, not a reason read as empty)."""
    reply = yaml.safe_dump({"dimension_scores": dict.fromkeys(KEYS, 4), "change_reason": "C1 convinced me"})
    assert parse_scored_reply(reply, judge="judge-1", round_no=2, criteria=CRIT).moved_by == ["C1"]

    monkeypatch.setitem(replies.PHASES, "rebuttal", renamed(ScoredRebuttal, "change_reason", "why_changed"))
    with pytest.raises(UndeclaredField, match="change_reason"):
        parse_scored_reply(reply, judge="judge-1", round_no=2, criteria=CRIT)
    assert not issubclass(UndeclaredField, ReplyError)


def test_a_field_added_to_a_declared_reply_and_read_by_nothing_is_seen(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every field a judge is asked for is read into the position, or named as deliberately left unread."""
    assert unread(replies.PHASES) == set()
    added = specialize(ScoredAnalysis, "WithRisk", top_risk=(Text, reply_field("the one risk that matters most")))
    monkeypatch.setitem(replies.PHASES, "round_1", added)
    assert unread(replies.PHASES) == {"top_risk"}


def test_a_follow_ups_earlier_findings_are_a_declared_field_asked_only_in_a_follow_up() -> None:
    plain = reply_schema(replies.phase_model("round_1", KEYS))
    assert "earlier_findings" not in plain["properties"]
    follow_up = reply_schema(replies.phase_model("round_1", KEYS, earlier_ids=["E1"]))
    assert list(follow_up["properties"])[-1] == "earlier_findings"
    assert follow_up["properties"]["earlier_findings"]["description"] == "each earlier finding"
    assert "earlier_findings" in ScoredAnalysis.model_fields
    assert "earlier_findings" not in replies.phase_example(replies.phase_model("round_1", KEYS, earlier_ids=["E1"]), {})


def test_a_bad_score_in_the_reading_is_still_sent_back_to_the_judge() -> None:
    with pytest.raises(ReplyError, match="the overall score"):
        parse_scored_reply(
            round1(3.0).replace("overall_score: 3.0", "overall_score: great"), judge="j", round_no=1, criteria=CRIT
        )


def test_scores_and_answers_in_the_other_shapes_judges_write_are_read_through_their_entry_models() -> None:
    """Criterion scores as a list of entries (`criterion`/`name`/`dimension`, `score`/`value`) or as mappings,
    and answers to CRITICAL findings as a list of entries (`id`/`finding_id`) or mappings with a quote."""
    from moot.grounding import source_of

    scores = [
        {"criterion": "correctness", "score": 4},
        {"name": "Design", "value": "3/5"},
        {"dimension": "security", "score": 5},
        {"score": 1},  # names no criterion: left out
    ]
    data = {
        "new_score": 4,
        "dimension_scores": scores,
        "critical_responses": [{"finding_id": "c1", "response": "dispute"}, {"id": "C2", "response": "Agreed"}],
    }
    prev = parse_scored_reply(round1(2.0, 2), judge="judge-1", round_no=1, criteria=CRIT)
    p = parse_scored_reply(yaml.safe_dump(data), judge="judge-1", round_no=2, criteria=CRIT, previous=prev)
    assert p.dimension_scores == {"correctness": 4, "design": 3, "security": 5, "performance": 2, "docs": 2}
    assert sorted(p.carried_over) == ["docs", "performance"]
    assert p.critical_responses == {"C1": "reject", "C2": "accept"}

    shown = [source_of("plan.md", "the cache is never invalidated\n")]
    data = {
        "new_score": 4,
        "dimension_scores": {k: {"value": 4} for k in KEYS},
        "critical_responses": {
            "C1": {"response": "accept", "quote": "the cache is never invalidated"},
            "C2": {"response": "accept", "quote": "words nowhere in the plan"},
            "C3": {"response": "reject", "quote": "the cache is never invalidated"},
        },
    }
    p = parse_scored_reply(yaml.safe_dump(data), judge="judge-1", round_no=2, criteria=CRIT, shown=shown)
    assert p.dimension_scores == dict.fromkeys(KEYS, 4)
    assert p.critical_responses == {"C1": "accept", "C2": "accept", "C3": "reject"}
    assert p.confirmations == {"C1": "the cache is never invalidated"}
    with pytest.raises(ReplyError, match="is not one of accept, reject, withdraw"):
        parse_scored_reply(
            yaml.safe_dump({**data, "critical_responses": [{"id": "C1"}]}), judge="j", round_no=2, criteria=CRIT
        )

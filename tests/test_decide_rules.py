"""The pure rules of `moot decide`: consensus over options, reply parsing, option arguments, seat ids."""

from __future__ import annotations

import pytest

from moot.errors import UsageError
from moot.parsing.extract import ReplyError
from moot.protocols.decide.api import parse_option, seat_ids, slug
from moot.protocols.decide.replies import ReplyRules, match_option, parse_stance_reply
from moot.protocols.decide.rules import changes, check_consensus, meets_threshold
from moot.protocols.decide.schemas import DebateConfig, DecisionOption

IDS = ["A", "B", "C"]
OPTIONS = [
    DecisionOption(id="A", label="Online only"),
    DecisionOption(id="B", label="Full offline"),
    DecisionOption(id="C"),
]


# consensus


def test_two_of_three_meets_the_seed_threshold() -> None:
    c = check_consensus({"risk": "A", "value": "B", "effort": "A"}, IDS, 0.67)
    assert c.reached and c.option == "A" and c.votes == 2 and c.answered == 3
    assert c.distribution == {"A": ["risk", "effort"], "B": ["value"]}


def test_all_different_is_no_consensus() -> None:
    c = check_consensus({"risk": "A", "value": "B", "effort": "C"}, IDS, 0.67)
    assert not c.reached and c.option is None
    assert "no option reached 67% of 3 judges" in c.describe(0.67)


@pytest.mark.parametrize(
    ("votes", "answered", "threshold", "expected"),
    [
        (2, 3, 0.67, True),
        (2, 3, 0.68, False),
        (3, 4, 0.75, True),
        (2, 4, 0.67, False),
        (3, 3, 1.0, True),
        (2, 3, 1.0, False),
    ],
)
def test_threshold_is_read_to_two_decimals(votes: int, answered: int, threshold: float, expected: bool) -> None:
    assert meets_threshold(votes, answered, threshold) is expected


def test_a_judge_without_recommendation_still_counts_as_a_voice() -> None:
    c = check_consensus({"risk": None, "value": "B", "effort": "C"}, IDS, 0.5)
    assert not c.reached and c.no_recommendation == ["risk"] and c.answered == 3
    c = check_consensus({"risk": None, "value": "B", "effort": "B"}, IDS, 0.67)
    assert c.reached and c.option == "B"


def test_one_voice_is_never_consensus() -> None:
    c = check_consensus({"risk": None, "value": None, "effort": "B"}, IDS, 0.3)
    assert not c.reached and c.option == "B" and c.votes == 1


def test_a_tie_is_never_consensus() -> None:
    c = check_consensus({"a": "A", "b": "A", "c": "B", "d": "B"}, IDS, 0.5)
    assert not c.reached and c.option is None


def test_two_judges_left_must_agree() -> None:
    assert not check_consensus({"value": "B", "effort": "C"}, IDS, 0.67).reached
    assert check_consensus({"value": "B", "effort": "B"}, IDS, 0.67).reached


def test_changes_logs_only_real_changes() -> None:
    log = changes(
        {"risk": "A", "value": "B", "effort": None, "x": "C"},
        {"risk": "A", "value": "A", "effort": "C", "x": None},
        {"value": "convinced by risk"},
        2,
    )
    assert [e.model_dump(mode="json") for e in log] == [
        {"judge": "value", "round": 2, "from": "B", "to": "A", "reason": "convinced by risk"}
    ]


# parsing


def rules(**kw: object) -> ReplyRules:
    base: dict[str, object] = {"judge": "risk", "round_no": 1, "options": OPTIONS}
    return ReplyRules(**(base | kw))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("A", "A"),
        ("a", "A"),
        ("Option B", "B"),
        ("option: c", "C"),
        ("B) Full offline", "B"),
        ("Full offline", "B"),
        ({"id": "C"}, "C"),
        ("D", None),
        ("", None),
        (None, None),
        (True, None),
    ],
)
def test_match_option(value: object, expected: str | None) -> None:
    assert match_option(value, OPTIONS) == expected


def test_recommended_option_key_and_json_are_accepted() -> None:
    reply = parse_stance_reply('Sure. {"recommended_option": "Option A", "confidence": "LOW"}', rules())
    assert reply.recommendation == "A" and reply.confidence == "LOW"


def test_perspective_falls_back_to_the_first_sentence_of_the_rationale() -> None:
    reply = parse_stance_reply("recommendation: C\nrationale: Cheap to build. Easy to extend.\n", rules())
    assert reply.perspective == "Cheap to build."


def test_assessments_by_option() -> None:
    text = "recommendation: A\nassessment:\n  - option: A\n    risk: low\n  - option: Option B\n    risk: high\n"
    assert parse_stance_reply(text, rules()).assessments == {"A": "risk: low", "B": "risk: high"}


def test_no_recommendation_is_a_reply_error() -> None:
    with pytest.raises(ReplyError, match="no `recommendation`"):
        parse_stance_reply("confidence: HIGH\nrationale: hmm\n", rules())
    with pytest.raises(ReplyError, match="no YAML or JSON"):
        parse_stance_reply("I cannot decide.", rules())


def test_round_two_needs_a_challenge_naming_another_judge() -> None:
    r = rules(round_no=2, previous="A", others=["value", "effort"], require_challenge=True)
    with pytest.raises(ReplyError, match="challenges nobody"):
        parse_stance_reply("recommendation: A\n", r)
    with pytest.raises(ReplyError, match="challenges nobody"):
        parse_stance_reply("recommendation: A\nchallenges:\n  - judge: risk\n    counter_argument: me\n", r)
    ok = parse_stance_reply("recommendation: A\nchallenges:\n  value: 40% is a guess\n", r)
    assert [(c.judge, c.argument) for c in ok.challenges] == [("value", "40% is a guess")]
    prose = parse_stance_reply("recommendation: A\nchallenges:\n  - The Effort judge ignores sync cost\n", r)
    assert prose.challenges[0].judge == "effort"


def test_a_change_needs_its_reason() -> None:
    r = rules(round_no=2, previous="B", others=["value"], require_challenge=False)
    with pytest.raises(ReplyError, match="from B to A without `change_reason`"):
        parse_stance_reply("recommendation: A\n", r)
    reply = parse_stance_reply("recommendation: A\nchange_reason: value's data\n", r)
    assert reply.changed_from == "B" and reply.change_reason == "value's data"
    kept = parse_stance_reply("recommendation: B\nchange_reason: I maintain B\n", r)
    assert kept.changed_from is None and kept.change_reason == ""
    lax = rules(round_no=2, previous="B", others=["value"], require_change_reason=False)
    assert parse_stance_reply("recommendation: A\n", lax).changed_from == "B"


# inputs


def test_option_arguments() -> None:
    o = parse_option("A=Online only: the app needs a connection", 0)
    assert (o.id, o.label, o.description) == ("A", "Online only", "the app needs a connection")
    assert parse_option("Keep it simple", 2).id == "C"
    assert parse_option("x = 1 = 2", 0).label == "1 = 2"
    assert parse_option("limited-offline=Cache", 0).id == "limited-offline"
    with pytest.raises(UsageError, match="no text"):
        parse_option("B=  ", 1)


def test_seat_ids_from_stances() -> None:
    assert seat_ids(["risk", "value", "effort"]) == ["risk", "value", "effort"]
    assert seat_ids(["Risk", "risk", "User Value"]) == ["risk", "risk-2", "user-value"]


def test_slug() -> None:
    assert slug("Should the mobile app support offline mode?") == "should-the-mobile-app-support-offline-mode"
    assert slug("???") == "question"


def test_seed_debate_config_defaults() -> None:
    c = DebateConfig()
    assert (c.max_rounds, c.consensus_threshold, c.timeout_per_judge) == (2, 0.67, 120.0)
    assert c.require_stance_maintenance and c.require_change_documentation

"""`debate_effect` (issue 11): what each debate changed against its round 1.

The rules per protocol on hand-built states, to their boundaries; then one scripted debate per protocol
over the local server, in which a judge changes its mind in round 2, read from the CLI's JSON, its text
and its HTML page; and a result stored before the record existed, shown and reported as before.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from moot.cli.app import main
from moot.judges.base import Seat
from moot.protocol.effect import plurality
from moot.protocols.challenge.result import challenge_effect
from moot.protocols.challenge.schemas import ChallengerReply, PositionChange, PositionVersion, RoundRecord
from moot.protocols.challenge.state import ChallengeState
from moot.protocols.decide.result import decide_effect
from moot.protocols.decide.rules import changes, check_consensus
from moot.protocols.decide.state import DecideState
from moot.protocols.evaluate.result import evaluate_effect
from moot.protocols.evaluate.schemas import EvaluationResult, RoundSummary, ScoredPosition, Summary
from moot.protocols.evaluate.settings import VerdictThresholds
from moot.protocols.evaluate.state import DebateState
from moot.protocols.evaluate.text import evaluation_report
from moot.render.effect_text import summary
from moot.render.html_effect import effect_section
from moot.store import Store
from moot.testing import FakeLLMServer

from .challenge_helpers import SUBSTANTIVE, confront, opening, rebuttal, verdict, write_judges
from .replies import KEYS, round1, round2
from .test_decide_support import decide_judges, question_args, r1, r2

THRESHOLDS = VerdictThresholds()  # PASS at 4, CONDITIONAL at 3


def seat(seat_id: str, number: int = 1) -> Seat:
    return Seat(seat_id, number, f"model-{seat_id}", "neutral", "", [])


# the most common answer


@pytest.mark.parametrize(
    ("answers", "expected"),
    [
        (["A", "A", "B"], "A"),
        (["A", "B", "C"], "tie"),
        (["A", "B", None], "tie"),
        (["A", None, None], "A"),  # no usable answer is no vote
        ([None, None], "none"),
        ([], "none"),
    ],
)
def test_plurality(answers: list[str | None], expected: str) -> None:
    assert plurality(answers) == expected


# evaluate


def position(judge: str, round_no: int, score: float, reason: str = "", statement: str = "") -> ScoredPosition:
    return ScoredPosition(
        judge=judge, round=round_no, overall_score=score, dimension_scores={}, change_reason=reason, statement=statement
    )


def evaluation(scores: dict[str, list[float]], **reasons: list[str]) -> DebateState:
    """Each judge's overall score per round (round 1 first); `reasons` the change_reason of each later reply."""
    state = DebateState(active=[seat(j, n) for n, j in enumerate(scores, 1)])
    for judge, per_round in scores.items():
        said = ["", *reasons.get(judge.replace("-", "_"), [])]
        state.positions[judge] = [
            position(judge, n, s, said[n - 1] if n - 1 < len(said) else "") for n, s in enumerate(per_round, 1)
        ]
    rounds = max(len(v) for v in scores.values())
    state.progression = {f"round_{n}": RoundSummary(scores=[], range=0, consensus=False) for n in range(1, rounds + 1)}
    return state


def final(verdict: str, score: float) -> Summary:
    return Summary(
        final_verdict=verdict,  # type: ignore[arg-type]
        consensus_score=score,
        score_range=[score, score],
        consensus_method="unanimous",
        confidence="HIGH",
    )


def test_evaluate_round1_is_combined_by_the_final_verdicts_rule_so_no_verdict_moves_while_no_judge_does() -> None:
    # the mean of round 1 (3.93) would read CONDITIONAL against a final PASS with no judge changing: issue 21
    state = evaluation({"judge-1": [4.0, 4.0], "judge-2": [4.8, 4.3], "judge-3": [3.0, 3.9]})
    effect = evaluate_effect(state, state.active, THRESHOLDS, final("PASS", 4.07))
    assert (effect.round1_verdict, effect.round1_score) == ("PASS", 4.0)  # no consensus, no majority: the median
    assert (effect.final_verdict, effect.final_score) == ("PASS", 4.07)
    assert effect.differs is False and effect.changed_judges == [] and effect.rounds == 2
    third = effect.judges[2]
    assert (third.round1, third.round1_score, third.final, third.final_score) == (
        "CONDITIONAL",
        3.0,
        "CONDITIONAL",
        3.9,
    )
    assert third.changed is False and third.reason == ""  # a score moved within one verdict's band


def test_evaluate_stubborn_judges_4_5_4_5_2_0_give_the_majoritys_pass_in_round_1_as_at_the_end() -> None:
    state = evaluation({"judge-1": [4.5, 4.5], "judge-2": [4.5, 4.5], "judge-3": [2.0, 2.0]})
    effect = evaluate_effect(state, state.active, THRESHOLDS, final("PASS", 4.5))
    assert (effect.round1_verdict, effect.round1_score) == ("PASS", 4.5)  # the mean, 3.67, was CONDITIONAL
    assert effect.differs is False


def test_evaluate_a_verdict_moved_by_the_combining_rule_alone_is_reported_apart_from_judges_changes() -> None:
    # round 1: no majority within 0.5 (3.0, 3.9, 4.6): the median, 3.9 CONDITIONAL; at the end 3.95 and 4.45
    # make a majority (mean 4.2, PASS), though no judge's own verdict moved
    state = evaluation({"judge-1": [3.0, 3.0], "judge-2": [3.9, 3.95], "judge-3": [4.6, 4.45]})
    effect = evaluate_effect(state, state.active, THRESHOLDS, final("PASS", 4.2))
    assert (effect.round1_verdict, effect.final_verdict, effect.changed_judges) == ("CONDITIONAL", "PASS", [])
    assert effect.aggregation_changed is True
    assert "no judge changed its answer: the answers combine differently" in summary(effect)


def test_evaluate_judge_that_crosses_a_threshold_changed_and_says_why() -> None:
    state = evaluation({"judge-1": [4.2, 4.2], "judge-2": [2.5, 4.0]}, judge_2=["the tests cover it"])
    effect = evaluate_effect(state, state.active, THRESHOLDS, final("PASS", 4.1))
    assert effect.changed_judges == ["judge-2"]
    second = effect.judges[1]
    assert (second.round1, second.final, second.changed) == ("FAIL", "PASS", True)
    assert second.reason == "the tests cover it"
    assert (effect.round1_verdict, effect.round1_score) == ("CONDITIONAL", 3.35)


def test_evaluate_reason_is_from_the_reply_that_last_moved_the_verdict() -> None:
    state = evaluation({"judge-1": [2.0, 3.5, 4.5], "judge-2": [4.0, 2.0, 4.0]}, judge_1=["first", "second"])
    effect = evaluate_effect(state, state.active, THRESHOLDS, final("PASS", 4.25))
    assert effect.judges[0].reason == "second"
    # out and back again: no change, and no reason
    assert effect.judges[1].changed is False and effect.judges[1].reason == ""
    assert effect.changed_judges == ["judge-1"]


def test_evaluate_reason_falls_back_to_the_statement_without_its_headings() -> None:
    state = evaluation({"judge-1": [4.0, 4.0], "judge-2": [2.0, 4.0]})
    state.positions["judge-2"][1] = position("judge-2", 2, 4.0, statement="## Final Assessment\nNow it passes.")
    effect = evaluate_effect(state, state.active, THRESHOLDS, final("PASS", 4.0))
    assert effect.judges[1].reason == "Now it passes."


@pytest.mark.parametrize(
    ("scores", "verdict"),
    [([3.9, 4.1], "PASS"), ([3.98, 4.0], "CONDITIONAL"), ([3.0, 3.0], "CONDITIONAL"), ([2.99, 2.99], "FAIL")],
)
def test_evaluate_round1_verdict_at_the_thresholds(scores: list[float], verdict: str) -> None:
    state = evaluation({"judge-1": [scores[0], 5.0], "judge-2": [scores[1], 5.0]})
    effect = evaluate_effect(state, state.active, THRESHOLDS, final("PASS", 5.0))
    assert effect.round1_verdict == verdict
    assert effect.differs is (verdict != "PASS")


def test_evaluate_round1_verdict_uses_the_debates_own_thresholds() -> None:
    state = evaluation({"judge-1": [3.5, 3.5], "judge-2": [3.5, 3.5]})
    strict = VerdictThresholds(pass_at=3.5, conditional_at=2.0)
    assert evaluate_effect(state, state.active, strict, final("PASS", 3.5)).round1_verdict == "PASS"


def test_evaluate_debate_that_ended_in_round_one_changed_nothing() -> None:
    """Quick mode without consensus: the final verdict is the majority's (FAIL), not the mean's (CONDITIONAL);
    with no debate, round 1 is that verdict."""
    state = evaluation({"judge-1": [2.8], "judge-2": [2.9], "judge-3": [4.5]})
    effect = evaluate_effect(state, state.active, THRESHOLDS, final("FAIL", 2.85))
    assert (effect.round1_verdict, effect.round1_score) == (effect.final_verdict, effect.final_score) == ("FAIL", 2.85)
    assert effect.differs is False and effect.changed_judges == [] and effect.rounds == 1
    assert all(j.round1 == j.final and not j.changed for j in effect.judges)


def test_evaluate_dropped_judges_keep_their_last_answer() -> None:
    state = evaluation({"judge-1": [4.0, 4.0], "judge-2": [4.0, 4.2], "judge-3": [2.0]})
    state.positions["judge-4"] = []  # dropped in round 1: never answered
    seats = [*state.active, seat("judge-4", 4)]
    effect = evaluate_effect(state, seats, THRESHOLDS, final("PASS", 4.1))
    dropped = effect.judges[2]
    assert (dropped.round1, dropped.final, dropped.final_score, dropped.changed) == ("FAIL", "FAIL", 2.0, False)
    assert effect.round1_score == 4.0  # judge-3 counted in round 1: the majority (4.0, 4.0) against its 2.0
    never = effect.judges[3]
    assert (never.round1, never.final, never.round1_score, never.changed) == (None, None, None, False)


# decide


def decision(per_round: dict[int, dict[str, str | None]], reasons: dict[str, str] | None = None) -> DecideState:
    judges = list(per_round[1])
    state = DecideState(active=[seat(j, n) for n, j in enumerate(judges, 1)])
    for r, recs in sorted(per_round.items()):
        previous = {j: state.latest(j) for j in recs}
        for judge, rec in recs.items():
            state.recommendations.setdefault(judge, {})[r] = rec
        state.tallies[r] = check_consensus(recs, ["A", "B", "C"], 0.67)
        if r > 1:
            state.change_log += changes(previous, recs, reasons or {}, r)
    return state


def test_decide_split_round1_is_a_tie_and_the_judge_that_moved_says_why() -> None:
    state = decision(
        {1: {"risk": "A", "value": "B", "effort": "C"}, 2: {"risk": "A", "value": "C", "effort": "C"}},
        {"value": "the ROI analysis"},
    )
    effect = decide_effect(state, state.active)
    assert (effect.round1_verdict, effect.final_verdict, effect.differs) == ("tie", "C", True)
    assert effect.round1_score is None and effect.final_score is None and effect.rounds == 2
    assert effect.changed_judges == ["value"]
    value = effect.judges[1]
    assert (value.judge, value.round1, value.final, value.reason) == ("value", "B", "C", "the ROI analysis")
    assert effect.judges[0].reason == "" and effect.judges[0].changed is False


def test_decide_round1_consensus_changed_nothing() -> None:
    state = decision({1: {"risk": "C", "value": "B", "effort": "C"}})
    effect = decide_effect(state, state.active)
    assert (effect.round1_verdict, effect.final_verdict, effect.differs, effect.rounds) == ("C", "C", False, 1)
    assert effect.changed_judges == []


def test_decide_final_is_the_last_round_of_the_judges_left_and_a_dropped_judge_keeps_its_answer() -> None:
    state = decision(
        {1: {"risk": "A", "value": "A", "effort": "B"}, 2: {"value": "B", "effort": "B"}}, {"value": "convinced"}
    )
    effect = decide_effect(state, state.active)  # risk dropped before round 2
    assert (effect.round1_verdict, effect.final_verdict) == ("A", "B")
    risk = effect.judges[0]
    assert (risk.round1, risk.final, risk.changed) == ("A", "A", False)


def test_decide_unusable_replies_take_nothing_back_and_are_no_vote() -> None:
    state = decision({1: {"risk": None, "value": "B", "effort": None}, 2: {"risk": "A", "value": None, "effort": None}})
    effect = decide_effect(state, state.active)
    assert (effect.round1_verdict, effect.final_verdict) == ("B", "A")
    risk, value, effort = effect.judges
    assert (risk.round1, risk.final, risk.changed) == (None, "A", False)  # no recommendation is no mind to change
    assert (value.round1, value.final, value.changed) == ("B", "B", False)
    assert (effort.round1, effort.final) == (None, None)
    assert decide_effect(decision({1: {"risk": None, "value": None}}), [seat("risk")]).round1_verdict == "none"


# challenge


def reply(
    seat_id: str, round_no: int, kind: str, word: str, reasoning: str = "", status: str = "ok"
) -> ChallengerReply:
    return ChallengerReply(
        seat=seat_id,
        round=round_no,
        kind=kind,
        status=status,
        verdict=word,
        reasoning=reasoning,  # type: ignore[arg-type]
    )


def challenge_state(
    rounds: list[list[ChallengerReply]], versions: list[PositionVersion] | None = None
) -> ChallengeState:
    state = ChallengeState()
    state.rounds = [RoundRecord(round=n, replies=replies) for n, replies in enumerate(rounds, 1)]
    state.history = versions or [PositionVersion(version=1, round=0, position="p", confidence="HIGH")]
    state.rounds_done = len(rounds)
    return state


PROPONENT = seat("proponent", 0)
C1, C2, C3 = seat("challenger-1", 1), seat("challenger-2", 2), seat("challenger-3", 3)


def test_challenge_fast_exit_changed_nothing() -> None:
    state = challenge_state(
        [[reply("challenger-1", 1, "challenge", "agree"), reply("challenger-2", 1, "challenge", "agree")]]
    )
    effect = challenge_effect(state, PROPONENT, [C1, C2])
    assert (effect.round1_verdict, effect.final_verdict, effect.differs, effect.rounds) == ("agree", "agree", False, 1)
    assert effect.changed_judges == []
    assert [(j.judge, j.round1, j.final) for j in effect.judges] == [
        ("proponent", "v1", "v1"),
        ("challenger-1", "agree", "agree"),
        ("challenger-2", "agree", "agree"),
    ]


def test_challenge_accepted_answer_in_round_one_is_a_change_with_its_reasoning() -> None:
    """Round 1 of a challenge also holds its first confrontation: its round-1 stance is the one before."""
    versions = [
        PositionVersion(version=1, round=0, position="p", confidence="HIGH"),
        PositionVersion(
            version=2,
            round=1,
            position="p, with a replica",
            confidence="MEDIUM",
            changed=True,
            changed_because=[
                PositionChange(
                    objection_id="O1", raised_by="challenger-2", objection="reports", decision="ACCEPT", reason="fair"
                )
            ],
        ),
    ]
    rounds = [
        [
            reply("challenger-1", 1, "challenge", "agree"),
            reply("challenger-2", 1, "challenge", "disagree"),
            reply("challenger-2", 1, "rebuttal", "ACCEPT", "the replica answers it"),
        ]
    ]
    effect = challenge_effect(challenge_state(rounds, versions), PROPONENT, [C1, C2])
    assert (effect.round1_verdict, effect.final_verdict, effect.differs) == ("tie", "agree", True)
    assert effect.changed_judges == ["proponent", "challenger-2"]
    proponent, _, second = effect.judges
    assert (proponent.round1, proponent.final, proponent.reason) == ("v1", "v2", "ACCEPT O1: fair")
    assert (second.round1, second.final, second.reason) == ("disagree", "agree", "the replica answers it")


def test_challenge_rebuttal_words_read_as_stances() -> None:
    rounds = [
        [
            reply("challenger-1", 1, "challenge", "partial"),
            reply("challenger-2", 1, "challenge", "agree"),  # a rubber stamp, sent to confrontation
            reply("challenger-3", 1, "challenge", "disagree"),
            reply("challenger-4", 1, "challenge", "agree"),  # another rubber stamp
            reply("challenger-1", 1, "rebuttal", "MAINTAIN", "still"),
            reply("challenger-2", 1, "rebuttal", "MAINTAIN", "on reflection, no"),
            reply("challenger-3", 1, "rebuttal", "MAINTAIN"),
            reply("challenger-4", 1, "rebuttal", "MAINTAIN", "it does object after all"),
        ],
        [
            reply("challenger-1", 2, "rebuttal", "ESCALATE", "worse than I thought"),
            reply("challenger-2", 2, "rebuttal", "ACCEPT", "fine now"),
            reply("challenger-3", 2, "rebuttal", "", status="timeout"),  # dropped: keeps its last answer
        ],
    ]
    effect = challenge_effect(challenge_state(rounds), PROPONENT, [C1, C2, C3, seat("challenger-4", 4)])
    one, two, three, four = effect.judges[1:]
    assert (one.round1, one.final, one.changed, one.reason) == ("partial", "disagree", True, "worse than I thought")
    assert (two.round1, two.final, two.changed, two.reason) == ("agree", "agree", False, "")  # out and back again
    assert (three.round1, three.final, three.changed) == ("disagree", "disagree", False)
    assert (four.round1, four.final, four.reason) == ("agree", "partial", "it does object after all")
    assert (effect.round1_verdict, effect.final_verdict) == ("agree", "disagree")
    assert effect.judges[0].changed is False and effect.judges[0].final == "v1"


def test_challenge_failed_challenger_has_no_answer_and_no_vote() -> None:
    rounds = [
        [reply("challenger-1", 1, "challenge", "", status="error"), reply("challenger-2", 1, "challenge", "partial")]
    ]
    effect = challenge_effect(challenge_state(rounds), PROPONENT, [C1, C2])
    assert (effect.judges[1].round1, effect.judges[1].final) == (None, None)
    assert (effect.round1_verdict, effect.final_verdict) == ("partial", "partial")


# a result stored before the record existed


def test_a_result_without_the_record_reads_and_renders_as_before(tmp_path: Path) -> None:
    state = evaluation({"judge-1": [4.0], "judge-2": [4.0]})
    data: dict[str, Any] = {
        "debate_id": "old",
        "artifact_evaluated": "a.py",
        "rounds_completed": 1,
        "consensus_reached": True,
        "summary": final("PASS", 4.0).model_dump(),
        "round_progression": {k: v.model_dump() for k, v in state.progression.items()},
        "verdict_type": "consensus",
    }
    result = EvaluationResult.model_validate(data)
    assert result.debate_effect is None
    assert "What the debate changed" not in evaluation_report(result).plain()
    assert effect_section(data) is None
    assert effect_section({**data, "debate_effect": {"round1_verdict": 3}}) is None  # unreadable: left out


# end to end, one scripted debate per protocol


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main(list(args))
    return code, capsys.readouterr().out


def shown_and_reported(capsys: pytest.CaptureFixture[str], debate_id: str, page: Path) -> tuple[str, str]:
    code, text = run_cli(capsys, "show", debate_id)
    assert code == 0, text
    assert main(["report", debate_id, "--html", str(page)]) == 0
    capsys.readouterr()
    return text, page.read_text(encoding="utf-8")


def test_evaluate_end_to_end(
    llm_server: FakeLLMServer, judges_file: Any, artifact: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """judge-3 fails the artifact in round 1 and passes it in round 2, saying why (markup in its reason)."""
    llm_server.script("judge-a", round1(4.0, 4), round2(4.0))
    llm_server.script("judge-b", round1(4.4, 4), round2(4.3))
    reason = "<b>the tests</b> cover the edge case I flagged"
    llm_server.script("judge-c", round1(2.5, 2), round2(4.0, {k: 4 for k in KEYS}, reason=reason))
    page = tmp_path / "evaluate.html"
    args = [
        "evaluate",
        "--solution",
        str(artifact),
        "--judges",
        str(judges_file()),
        "--criteria",
        "correctness:30,design:25,security:20,performance:15,docs:10",
    ]
    code, out = run_cli(capsys, *args, "--no-reports", "--format", "json", "--html", str(page))
    assert code == 0, out
    data = json.loads(out)
    assert data["summary"]["final_verdict"] == "PASS" and data["rounds_completed"] == 2
    effect = data["debate_effect"]
    assert {k: effect[k] for k in ("round1_verdict", "round1_score", "final_verdict", "final_score", "differs")} == {
        "round1_verdict": "PASS",  # round 1 by the final verdict's rule: the majority (4.0, 4.4) against 2.5
        "round1_score": 4.2,
        "final_verdict": "PASS",
        "final_score": 4.1,
        "differs": False,
    }
    assert effect["changed_judges"] == ["judge-3"] and effect["rounds"] == 2
    assert effect["judges"][2] == {
        "judge": "judge-3",
        "model": "judge-c",
        "round1": "FAIL",
        "final": "PASS",
        "round1_score": 2.5,
        "final_score": 4.0,
        "changed": True,
        "reason": reason,
        "round1_confidence": None,  # evaluate's replies state no confidence of their own
        "final_confidence": None,
    }
    text, html = shown_and_reported(capsys, data["debate_id"], tmp_path / "again.html")
    assert "What the debate changed: the verdict held (round 1 PASS 4.2/5, final PASS 4.1/5); 1 of 3 changed:" in text
    assert f"judge-3: FAIL 2.5/5 -> PASS 4/5: {reason}" in text
    for page_text in (page.read_text(encoding="utf-8"), html):
        assert "<h2>What the debate changed</h2>" in page_text
        assert "&lt;b&gt;the tests&lt;/b&gt; cover the edge case" in page_text and "<b>the tests</b>" not in page_text
        assert "The verdict held (round 1 PASS 4.2/5, final PASS 4.1/5); 1 of 3 changed." in page_text


def test_decide_end_to_end(llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    llm_server.script("risk-m", r1("A"), r2("A", challenge={"value": "40% is a guess"}))
    llm_server.script("value-m", r1("B"), r2("C", challenge={"effort": "small cache"}, reason="the ROI analysis"))
    llm_server.script("effort-m", r1("C"), r2("C", challenge={"value": "B costs 3x"}))
    page = tmp_path / "decide.html"
    judges = decide_judges(tmp_path, llm_server)
    code, out = run_cli(capsys, *question_args(judges), "--no-files", "--format", "json", "--html", str(page))
    assert code == 0, out
    data = json.loads(out)
    assert data["recommended_option"] == "C"
    effect = data["debate_effect"]
    assert (effect["round1_verdict"], effect["final_verdict"], effect["differs"]) == ("tie", "C", True)
    assert effect["round1_score"] is None and effect["final_score"] is None
    assert effect["changed_judges"] == ["value"] and effect["rounds"] == 2
    assert [(j["judge"], j["round1"], j["final"], j["changed"], j["reason"]) for j in effect["judges"]] == [
        ("risk", "A", "A", False, ""),
        ("value", "B", "C", True, "the ROI analysis"),
        ("effort", "C", "C", False, ""),
    ]
    text, html = shown_and_reported(capsys, data["debate_id"], tmp_path / "again.html")
    assert "What the debate changed: round 1 tie -> final C; 1 of 3 changed:" in text
    assert "value: B -> C: the ROI analysis" in text
    assert "<h2>What the debate changed</h2>" in html and "the ROI analysis" in html
    assert "<h2>What the debate changed</h2>" in page.read_text(encoding="utf-8")


def test_challenge_end_to_end(llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """challenger-2 disagrees, the proponent accepts its objection, and it accepts the revised position."""
    llm_server.script("prop", opening(), confront({"O1": "ACCEPT"}, "Shard orders by customer id, with a replica"))
    llm_server.script("ch-a", verdict("agree", "minor"))
    llm_server.script("ch-b", verdict("disagree", "strong", ["reports scatter"]), rebuttal("ACCEPT", SUBSTANTIVE))
    server = llm_server.base_url
    judges = write_judges(
        tmp_path / "j.yaml",
        {"model": "prop", "api_base": server},
        [{"model": "ch-a", "api_base": server}, {"model": "ch-b", "api_base": server}],
    )
    page = tmp_path / "challenge.html"
    code, out = run_cli(
        capsys, "challenge", "Shard orders?", "--judges", str(judges), "--format", "json", "--html", str(page)
    )
    assert code == 0, out
    data = json.loads(out)
    assert data["outcome"] == "CONSENSUS" and data["rounds"] == 1
    effect = data["debate_effect"]
    assert (effect["round1_verdict"], effect["final_verdict"], effect["differs"]) == ("tie", "agree", True)
    assert effect["changed_judges"] == ["proponent", "challenger-2"] and effect["rounds"] == 1
    assert [(j["judge"], j["round1"], j["final"]) for j in effect["judges"]] == [
        ("proponent", "v1", "v2"),
        ("challenger-1", "agree", "agree"),
        ("challenger-2", "disagree", "agree"),
    ]
    assert effect["judges"][0]["reason"] == "ACCEPT O1: because O1"
    assert effect["judges"][2]["reason"] == SUBSTANTIVE
    text, html = shown_and_reported(capsys, data["debate_id"], tmp_path / "again.html")
    assert "What the debate changed: round 1 tie -> final agree; 2 of 3 changed:" in text
    assert "challenger-2: disagree -> agree: I checked the write path" in text
    assert "<h2>What the debate changed</h2>" in html and "proponent" in html
    assert "<h2>What the debate changed</h2>" in page.read_text(encoding="utf-8")


def test_stored_results_from_before_the_record_still_show_and_report(
    llm_server: FakeLLMServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llm_server.script("risk-m", r1("C"))
    llm_server.script("value-m", r1("B"))
    llm_server.script("effort-m", r1("C"))
    code, out = run_cli(capsys, *question_args(decide_judges(tmp_path, llm_server)), "--no-files", "--format", "json")
    assert code == 0, out
    debate_id = json.loads(out)["debate_id"]
    store = Store.open_default()
    row = store.get_debate(debate_id)
    assert row is not None and row.result is not None and "debate_effect" in row.result
    store.set_status(debate_id, "finished", result={k: v for k, v in row.result.items() if k != "debate_effect"})
    store.close()
    text, html = shown_and_reported(capsys, debate_id, tmp_path / "old.html")
    assert text.startswith("RECOMMENDED: C") and "What the debate changed" not in text
    assert "<h2>Options</h2>" in html and "What the debate changed" not in html
    code, out = run_cli(capsys, "show", debate_id, "--format", "json")
    assert code == 0 and "debate_effect" not in json.loads(out)

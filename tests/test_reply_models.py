"""One declaration per reply: a field changed in a protocol's reply model changes the JSON schema sent to
the judge, the template its prompt shows and what the parser accepts, all three at once."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Literal

import pytest

from moot.judges.base import Seat
from moot.parsing.extract import ReplyError
from moot.parsing.replies import Required, Text, reply_field
from moot.protocols.challenge import replies as challenge_replies
from moot.protocols.challenge.calls import ChallengeCalls
from moot.protocols.challenge.parsing import parse_challenge, parse_confrontation
from moot.protocols.challenge.schemas import ChallengeRequest, Opening
from moot.protocols.decide import replies as decide_replies
from moot.protocols.decide.protocol import Decision
from moot.protocols.decide.replies import ReplyRules, parse_stance_reply
from moot.protocols.decide.schemas import DebateContext, DecisionOption, DecisionRequest
from moot.schemas.config import JudgeSpec
from moot.schemas.messages import Prompt

OPTIONS = [DecisionOption(id="A", label="Online"), DecisionOption(id="B", label="Offline")]


class WithRisk(decide_replies.RecommendationReply):
    """Decide's reply with one more key: the main risk of the option recommended."""

    main_risk: Annotated[Text, Required] = reply_field("the main risk of the option you recommend")


@pytest.fixture
def decide_with_risk(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(decide_replies, "RecommendationReply", WithRisk)
    decide_replies.reply_model.cache_clear()
    yield
    decide_replies.reply_model.cache_clear()


def _decide_prompt() -> Prompt:
    context = DebateContext(question_text="Which?", options=OPTIONS)
    request = DecisionRequest(context=context, judges=[JudgeSpec(model="m", stance="risk")])
    seat = Seat(id="risk", number=1, label="m", stance="risk", stance_prompt="", judges=[])
    return Decision(request, [seat], "d1")._prompt(seat, 1)


def _parse(text: str) -> str:
    return parse_stance_reply(text, ReplyRules(judge="risk", round_no=1, options=OPTIONS)).recommendation


def test_decide_a_field_added_to_the_reply_model_is_sent_shown_and_required(decide_with_risk: None) -> None:
    prompt = _decide_prompt()
    assert prompt.json_schema is not None
    props = prompt.json_schema["properties"]
    assert props["main_risk"]["description"] == "the main risk of the option you recommend"
    assert "main_risk" in prompt.json_schema["required"]
    assert 'main_risk: "{the main risk of the option you recommend}"' in prompt.messages[0].content
    with pytest.raises(ReplyError, match="the reply has no `main_risk`"):
        _parse("recommendation: A\nrationale: cheap")
    assert _parse("recommendation: a\nmain_risk: lock-in") == "A"


def test_decide_without_the_field_nothing_asks_for_it() -> None:
    prompt = _decide_prompt()
    assert prompt.json_schema is not None and "main_risk" not in prompt.json_schema["properties"]
    assert "main_risk" not in prompt.messages[0].content
    assert _parse("recommendation: A") == "A"


class WithSeverity(challenge_replies.VerdictReply):
    """The challenger's verdict with one more key: how much the objections matter, in one word."""

    severity: Literal["cosmetic", "fatal"] = reply_field()


@pytest.fixture
def challenge_with_severity(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(challenge_replies.PHASES, "challenge", WithSeverity)


def _challenge_prompt() -> Prompt:
    request = ChallengeRequest(topic="Use SQLite?", proponent=JudgeSpec(model="p"), challengers=[JudgeSpec(model="c")])
    proponent = Seat(id="proponent", number=0, label="p", stance="proponent", stance_prompt="", judges=[])
    seat = Seat(id="challenger-1", number=1, label="c", stance="challenger", stance_prompt="", judges=[])
    opening = Opening(position="p", reasoning="r", confidence="HIGH")
    return ChallengeCalls.of(request, proponent).prompt("challenge", seat, 1, "challenge", opening=opening, version=1)


AGREE = '{"verdict": "agree", "objections": []}'


def test_challenge_a_field_added_to_the_reply_model_is_sent_shown_and_required(challenge_with_severity: None) -> None:
    prompt = _challenge_prompt()
    assert prompt.json_schema is not None
    assert prompt.json_schema["properties"]["severity"] == {"type": "string", "enum": ["cosmetic", "fatal"]}
    assert '"severity": "cosmetic|fatal"}' in prompt.messages[0].content
    with pytest.raises(ReplyError, match="the reply has no 'severity'"):
        parse_challenge(AGREE)
    with pytest.raises(ReplyError, match="severity is invalid"):
        parse_challenge(AGREE.replace("}", ', "severity": "mild"}'))
    assert parse_challenge(AGREE.replace("}", ', "severity": "fatal"}')).verdict == "agree"


def test_challenge_without_the_field_nothing_asks_for_it() -> None:
    prompt = _challenge_prompt()
    assert prompt.json_schema is not None and "severity" not in prompt.json_schema["properties"]
    assert "severity" not in prompt.messages[0].content
    assert parse_challenge(AGREE).verdict == "agree"


TOY = Path(__file__).resolve().parent / "toy_protocol"


def test_the_toy_vote_is_declared_once_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fourth protocol's vote: schema, template and parser from `VoteReply`, and from a changed copy."""
    monkeypatch.syspath_prepend(str(TOY))
    toy = importlib.import_module("moot_toy.protocol")
    toy_replies = importlib.import_module("moot_toy.replies")
    seat = Seat(id="judge-1", number=1, label="m", stance="neutral", stance_prompt="", judges=[])
    vote = toy.Vote(toy.VoteRequest(question="Friday?", judges=[JudgeSpec(model="m")]), [seat], "v1")

    def sent() -> Prompt:
        prompt: Prompt = vote._call(seat, 1).prompt
        return prompt

    assert sent().json_schema == {
        "type": "object",
        "properties": {
            "answer": {"type": "string", "enum": ["yes", "no"]},
            "reason": {"type": "string", "maxLength": 300},
        },
        "required": ["answer", "reason"],
        "additionalProperties": False,
    }
    assert '```yaml\nanswer: yes or no\nreason: "why"\n```' in sent().messages[0].content
    assert toy.parse_vote("answer: yes\nreason: r").answer == "yes"
    with pytest.raises(ReplyError, match="`answer` must be yes or no"):
        toy.parse_vote("answer: maybe")

    class WithDate(toy_replies.VoteReply):
        date: Text = reply_field("the day it should go out instead")

    monkeypatch.setattr(toy, "VoteReply", WithDate)
    assert "date" in (sent().json_schema or {})["properties"]
    assert 'date: "{the day it should go out instead}"' in sent().messages[0].content
    with pytest.raises(ReplyError, match="the reply has no `date`"):
        toy.parse_vote("answer: yes")
    assert toy.parse_vote("answer: no\ndate: Monday").answer == "no"


def test_the_parsers_still_answer_edge_cases_as_before() -> None:
    """Found by comparing the old parsers with the model-based ones on 11,000 generated replies."""
    with pytest.raises(ReplyError, match=r"the reply has no `recommendation` \(it must be exactly one of"):
        _parse("choice: {}\nrationale: r")  # an empty value under an alias is no recommendation
    with pytest.raises(ReplyError, match=r"'responses' must answer every objection .*: missing O1, O2"):
        parse_confrontation("position: p", objection_ids=["O1", "O2"])  # the missing answers come first
    reply = parse_stance_reply(
        "recommendation: A\nassessment: [{option: B, why: null}]", ReplyRules("risk", 1, OPTIONS)
    )
    assert reply.assessments == {"B": "why: "}  # prose read from a mapping is kept as read

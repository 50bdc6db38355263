"""One declaration per reply: a field changed in a protocol's reply model changes the JSON schema sent to
the judge, the template its prompt shows and what the parser accepts, all three at once."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

import pytest

from moot.judges.base import Seat
from moot.parsing.extract import ReplyError
from moot.parsing.replies import Required, Text, reply_field
from moot.protocols.decide import replies as decide_replies
from moot.protocols.decide.parsing import ReplyRules, parse_stance_reply
from moot.protocols.decide.protocol import Decision
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

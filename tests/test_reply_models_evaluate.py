"""Evaluate's replies are declared once (protocols/evaluate/replies.py): change a field of a declared model and
the schema sent, the prompt's template and what the parser reads all change with it (issue 32)."""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from pydantic import create_model

from moot.engine import Answer
from moot.engine.steps import Step
from moot.judges.base import Seat
from moot.parsing.replies import ReplyModel, Text, reply_field, reply_schema, specialize
from moot.protocols.evaluate import replies
from moot.protocols.evaluate.criteria import parse_criteria_string
from moot.protocols.evaluate.parsing import reading_keys
from moot.protocols.evaluate.protocol import Evaluation
from moot.protocols.evaluate.replies import ScoredAnalysis, ScoredRebuttal
from moot.protocols.evaluate.schemas import EvaluationRequest
from moot.schemas.config import Artifact, JudgeSpec

from .replies import CRITERIA, KEYS, round1


def renamed(model: type[ReplyModel], old: str, new: str) -> type[ReplyModel]:
    """A copy of `model` whose field `old` is called `new` (same place, type, description and role)."""
    fields: dict[str, Any] = {
        (new if name == old else name): (info.annotation, info) for name, info in model.model_fields.items()
    }
    return create_model(f"{model.__name__}Renamed", __base__=ReplyModel, **fields)


def debate() -> tuple[Evaluation, Step]:
    """A debate of three judges after a round 1 that did not converge: the rebuttal's step, planned."""
    request = EvaluationRequest(
        artifacts=[Artifact(path="plan.md", text="# Plan\nShip it.\n")],
        task="review the plan",
        criteria=parse_criteria_string(CRITERIA),
        judges=[JudgeSpec(model=f"m{n}") for n in range(3)],
    )
    seats = [Seat(f"judge-{n}", n, f"m{n}", "neutral", "be fair", []) for n in (1, 2, 3)]
    evaluation = Evaluation(request, seats, "d-1")
    first = evaluation.plan()
    assert first is not None and first.round == 1
    texts = [round1(score) for score in (1.5, 3.0, 4.5)]  # a spread no consensus allows
    evaluation.absorb(first, [Answer(c.parse(t), t, "ok") for c, t in zip(first.calls, texts, strict=True)])
    second = evaluation.plan()
    assert second is not None and second.round == 2
    return evaluation, second


REBUTTAL = {"score_changed": True, "dimension_scores": dict.fromkeys(KEYS, 4), "change_reason": "convinced"}


def test_renaming_a_field_changes_the_schema_the_template_and_what_the_parser_reads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, step = debate()
    call = step.calls[0]
    assert "new_score" in call.prompt.json_schema["properties"]
    assert "\nnew_score: X.X\n" in call.prompt.messages[0].content
    reply = yaml.safe_dump({**REBUTTAL, "score_now": 2.5})
    assert call.parse(reply).stated_overall is False  # an unknown key: the overall score is computed

    monkeypatch.setitem(replies.PHASES, "rebuttal", renamed(ScoredRebuttal, "new_score", "score_now"))
    _, step = debate()
    call = step.calls[0]
    props = call.prompt.json_schema["properties"]
    assert "score_now" in props and "new_score" not in props
    assert list(props).index("score_now") == list(reply_schema(ScoredRebuttal)["properties"]).index("new_score")
    content = call.prompt.messages[0].content
    assert "\nscore_now: X.X\n" in content and "new_score" not in content
    position = call.parse(reply)
    assert position.overall_score == 2.5 and position.stated_overall is True


def test_adding_a_field_adds_it_to_the_schema_and_the_template(monkeypatch: pytest.MonkeyPatch) -> None:
    added = specialize(ScoredAnalysis, "WithRisk", top_risk=(Text, reply_field("the one risk that matters most")))
    monkeypatch.setitem(replies.PHASES, "round_1", added)
    request = EvaluationRequest(
        artifacts=[Artifact(path="a.md", text="x\n")],
        criteria=parse_criteria_string("a:1"),
        judges=[JudgeSpec(model="m")] * 2,
    )
    step = Evaluation(request, [Seat(f"judge-{n}", n, "m", "neutral", "", []) for n in (1, 2)], "d-2").plan()
    assert step is not None
    prompt = step.calls[0].prompt
    schema = prompt.json_schema or {}
    assert schema["properties"]["top_risk"] == {
        "type": "string",
        "maxLength": 300,
        "description": "the one risk that matters most",
    }
    assert schema["required"][-1] == "top_risk"
    assert 'top_risk: "{the one risk that matters most}"\n```' in prompt.messages[0].content


def test_the_debates_shapes_are_specializations_of_the_declared_models() -> None:
    """Criteria, open findings and acceptance narrow the declared rebuttal; nothing is declared twice."""
    model = replies.phase_model(
        "rebuttal", ["clarity", "risk"], open_findings=[("C1", False), ("C2", True)], require_acceptance=True
    )
    assert issubclass(model, ScoredRebuttal)
    assert list(reply_schema(model)["properties"]) == [*ScoredRebuttal.model_fields]
    plain = replies.phase_model("rebuttal", ["clarity"])
    left_out = set(ScoredRebuttal.model_fields) - set(reply_schema(plain)["properties"])
    assert left_out == {"critical_responses", "accepts_consensus"}
    assert reading_keys(replies.OVERALL)[:3] == ("final_score", "new_score", "overall_score")
    # every judge of every round asks for its round's shape: built once, not per judge, round or debate
    findings = [("C1", False), ("C2", True)]
    again = replies.phase_model("rebuttal", ("clarity", "risk"), open_findings=findings, require_acceptance=True)
    assert again is model
    assert replies.phase_model("rebuttal", ["clarity"]) is plain
    assert replies.moderator_model(["judge-1", "judge-2"]) is replies.moderator_model(["judge-1", "judge-2"])
    assert replies.phase_model("rebuttal", ["clarity", "speed"]) is not plain

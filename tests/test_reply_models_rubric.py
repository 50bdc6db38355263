"""The rubric writer's reply (`--criteria auto`) is declared once (protocols/evaluate/task_rubric.py): change a
field of the declared model and the schema sent, the prompt's example and what the parser accepts all change
with it (issue 32)."""

from __future__ import annotations

import json
from typing import Annotated, Any

import pytest
from pydantic import Field

from moot.judges.base import Seat
from moot.parsing.extract import ReplyError
from moot.parsing.replies import reply_field, specialize
from moot.protocols.evaluate import task_rubric
from moot.protocols.evaluate.protocol import PROMPTS
from moot.protocols.evaluate.rubric import rubric_call
from moot.protocols.evaluate.task_rubric import MAX_CRITERIA, MIN_CRITERIA, Rubric, RubricCriterion
from moot.schemas.config import Artifact
from moot.schemas.messages import Prompt

WEIGHTS = {"correctness": 40, "design": 35, "docs": 25}


def reply(checklist: list[str], **extra: str) -> str:
    criteria = [
        {"name": k, "weight": w, "description": f"{k} here", "score_2": "fails", "score_4": "holds", **extra}
        for k, w in WEIGHTS.items()
    ]
    return json.dumps({"criteria": criteria, "checklist": checklist})


def call() -> tuple[Prompt, Any]:
    """The rubric call as a debate makes it: its prompt and its parser."""
    seat = Seat("rubric", 0, "m", "", "", [])
    made = rubric_call(seat, PROMPTS, "A users API", [Artifact(path="users.ts", text="export const x = 1\n")])
    return made.prompt, made.parse


def _criterion(schema: dict[str, Any]) -> dict[str, Any]:
    entry: dict[str, Any] = schema["properties"]["criteria"]["items"]
    return entry


def test_adding_a_criterion_field_changes_the_schema_the_example_and_what_the_parser_accepts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prompt, parse = call()
    assert "evidence" not in _criterion(prompt.json_schema)["properties"]
    assert "evidence:" not in prompt.messages[0].content
    assert len(parse(reply(["check a"])).criteria) == 3  # no evidence asked: none needed

    added = specialize(RubricCriterion, "RubricCriterion", evidence=(str, reply_field("where the artifact shows it")))
    criteria = Annotated[list[added], Field(min_length=MIN_CRITERIA, max_length=MAX_CRITERIA)]  # type: ignore[valid-type]
    monkeypatch.setattr(task_rubric, "Rubric", specialize(Rubric, "Rubric", criteria=criteria))
    prompt, parse = call()
    entry = _criterion(prompt.json_schema)
    assert list(entry["properties"])[-1] == "evidence" and "evidence" in entry["required"]
    assert entry["properties"]["evidence"] == {
        "type": "string",
        "description": "where the artifact shows it",
        "maxLength": 300,
    }
    assert (
        "    score_4: what an artifact scoring 4 of 5 on it looks like, concretely\n    evidence: where the artifact shows it\n"
        in prompt.messages[0].content
    )
    with pytest.raises(ReplyError, match=r"^criteria\.0\.evidence: Field required$"):
        parse(reply(["check a"]))
    written = parse(reply(["check a"], evidence="line 3"))
    assert [c.model_dump()["evidence"] for c in written.criteria] == ["line 3"] * 3


def test_changing_the_checklist_changes_its_bounds_in_the_schema_the_example_and_the_parser(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    prompt, parse = call()
    checklist = prompt.json_schema["properties"]["checklist"]
    assert (checklist["minItems"], checklist["maxItems"], checklist["items"]["description"]) == (
        1,
        10,
        "one thing to check",
    )
    assert (
        "checklist:           # 1 to 10 things every judge checks\n  - one thing to check" in prompt.messages[0].content
    )
    assert parse(reply(["check a"])).checklist == ["check a"]

    risk = Annotated[str, reply_field("one risk to look for")]
    risks = Annotated[list[risk], Field(min_length=2, max_length=4)]  # type: ignore[valid-type]
    changed = specialize(Rubric, "Rubric", checklist=(risks, reply_field("risks", comment="2 to 4 risks")))
    monkeypatch.setattr(task_rubric, "Rubric", changed)
    prompt, parse = call()
    checklist = prompt.json_schema["properties"]["checklist"]
    assert (checklist["minItems"], checklist["maxItems"], checklist["items"]["description"]) == (
        2,
        4,
        "one risk to look for",
    )
    assert "checklist:           # 2 to 4 risks\n  - one risk to look for" in prompt.messages[0].content
    with pytest.raises(ReplyError, match=r"^checklist: List should have at least 2 items"):
        parse(reply(["check a"]))
    with pytest.raises(ReplyError, match=r"^checklist: List should have at most 4 items"):
        parse(reply(["a", "b", "c", "d", "e"]))
    assert parse(reply(["a", "b"])).checklist == ["a", "b"]


def test_the_declared_rubric_is_the_prompt_and_schema_sent_today() -> None:
    """The derived example and schema are the ones the rubric call sent before the reply was declared."""
    prompt, _ = call()
    assert prompt.messages[0].content.endswith(
        "Reply with one YAML or JSON mapping:\n\n"
        "criteria:            # 3 to 6 criteria; their weights are whole numbers that sum to 100\n"
        "  - name: correctness\n"
        "    weight: 40\n"
        "    description: what this criterion judges, for this task\n"
        "    score_2: what an artifact scoring 2 of 5 on it looks like, concretely\n"
        "    score_4: what an artifact scoring 4 of 5 on it looks like, concretely\n"
        "checklist:           # 1 to 10 things every judge checks\n"
        "  - one thing to check\n"
    )
    short = {"type": "string", "maxLength": 300}
    assert prompt.json_schema == {
        "type": "object",
        "properties": {
            "criteria": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "name": {"type": "string", "description": "a short name, e.g. correctness", "maxLength": 80},
                        "weight": {
                            "type": "integer",
                            "description": "a whole number; the weights of all criteria sum to 100",
                        },
                        "description": {**short, "description": "what this criterion judges, for this task"},
                        "score_2": {
                            **short,
                            "description": "what an artifact scoring 2 of 5 on it looks like, concretely",
                        },
                        "score_4": {
                            **short,
                            "description": "what an artifact scoring 4 of 5 on it looks like, concretely",
                        },
                    },
                    "required": ["name", "weight", "description", "score_2", "score_4"],
                    "additionalProperties": False,
                },
                "description": "3 to 6 criteria",
                "minItems": 3,
                "maxItems": 6,
            },
            "checklist": {
                "type": "array",
                "items": {**short, "description": "one thing to check"},
                "description": "what every judge checks",
                "minItems": 1,
                "maxItems": 10,
            },
        },
        "required": ["criteria", "checklist"],
        "additionalProperties": False,
    }

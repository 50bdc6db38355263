"""A task rubric written for one debate (`--criteria auto`, issue 30 §5): 3 to 6 criteria whose weights sum to
100, each with what a 2 and a 4 look like, and a checklist. One call writes it before round 1; every judge
then reads it, unchanged, in every round. It is kept in the result (`rubric`) and replayed on resume.

Its text comes from a model: it is untrusted, and the prompts delimit it as they do the artifact.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator, model_validator

from moot.protocols.evaluate.criteria import Criterion, criterion_key
from moot.schemas.reply_schemas import array, integer, obj, text

__all__ = ["Rubric", "RubricCriterion", "rescale_weights", "rubric_schema"]

MIN_CRITERIA, MAX_CRITERIA = 3, 6
MAX_CHECKLIST = 10


class RubricCriterion(BaseModel):
    name: str = Field(min_length=1, max_length=80)
    weight: int = Field(ge=1, le=100)  # the criteria's weights sum to 100
    description: str = ""
    score_2: str = Field(min_length=1)  # what a 2 (of 5) looks like for this task
    score_4: str = Field(min_length=1)  # what a 4 looks like

    @property
    def key(self) -> str:
        return criterion_key(self.name)


class Rubric(BaseModel):
    criteria: list[RubricCriterion] = Field(min_length=MIN_CRITERIA, max_length=MAX_CRITERIA)
    checklist: list[str] = Field(min_length=1, max_length=MAX_CHECKLIST)
    rescaled_from: int | None = None  # the writer's weights summed to this; moot rescaled them to 100

    @field_validator("checklist")
    @classmethod
    def _items(cls, v: list[str]) -> list[str]:
        items = [str(i).strip() for i in v if str(i).strip()]
        if not items:
            raise ValueError("the checklist is empty")
        return items

    @model_validator(mode="after")
    def _sound(self) -> Rubric:
        keys = [c.key for c in self.criteria]
        if any(not k for k in keys):
            raise ValueError("a criterion's name has no letters or digits")
        if len(set(keys)) != len(keys):
            raise ValueError(f"criteria names repeat: {', '.join(keys)}")
        total = sum(c.weight for c in self.criteria)
        if total != 100:
            raise ValueError(f"the weights sum to {total}, not 100")
        return self

    def as_criteria(self) -> list[Criterion]:
        """The rubric as the debate's criteria (weights normalised to sum to 1)."""
        return [Criterion(name=c.key, weight=c.weight / 100) for c in self.criteria]

    def lines(self) -> list[str]:
        """The rubric as a person reads it, one line each (shown before round 1)."""
        out = [f"rubric: {c.key} ({c.weight}%): 2 = {c.score_2}; 4 = {c.score_4}" for c in self.criteria]
        if self.rescaled_from is not None:
            out.insert(0, f"rubric: the writer's weights summed to {self.rescaled_from}; rescaled to sum to 100")
        return out + [f"rubric checklist: {item}" for item in self.checklist]


def rescale_weights(data: dict[str, Any]) -> dict[str, Any]:
    """A written rubric whose whole-number weights do not sum to 100, rescaled to 100 and marked so.

    The weights say how much each criterion counts relative to the others; a small model that writes
    40, 40, 50 means the same proportions as 31, 31, 38. Moot keeps the proportions (largest remainder,
    every weight at least 1) and records the writer's sum as `rescaled_from`, rather than refusing the
    rubric. Anything else wrong (a weight that is not a whole number of at least 1) is left to validation.
    A `rescaled_from` the writer sent itself is dropped: only moot sets it.
    """
    data = {k: v for k, v in data.items() if k != "rescaled_from"}
    criteria = data.get("criteria")
    if not isinstance(criteria, list) or not all(isinstance(c, dict) for c in criteria):
        return data
    weights = [c.get("weight") for c in criteria]
    if not weights or not all(isinstance(w, int) and not isinstance(w, bool) and w >= 1 for w in weights):
        return data
    ints = [int(w) for w in weights if isinstance(w, int)]
    total = sum(ints)
    if total == 100 or len(ints) > 100:
        return data
    exact = [w * 100 / total for w in ints]
    new = [max(1, int(x)) for x in exact]
    by_remainder = sorted(range(len(new)), key=lambda i: exact[i] - int(exact[i]), reverse=True)
    while sum(new) < 100:
        new[by_remainder[0]] += 1
        by_remainder = by_remainder[1:] + by_remainder[:1]
    while sum(new) > 100:
        new[max(range(len(new)), key=lambda i: new[i])] -= 1
    data["criteria"] = [{**c, "weight": w} for c, w in zip(criteria, new, strict=True)]
    data["rescaled_from"] = total
    return data


def rubric_schema() -> dict[str, Any]:
    """The reply schema the rubric call is asked in (enforced where the server allows it)."""
    criterion = obj(
        {
            "name": text("a short name, e.g. correctness", max_length=80),
            "weight": integer("a whole number; the weights of all criteria sum to 100"),
            "description": text("what this criterion judges, for this task"),
            "score_2": text("what an artifact scoring 2 of 5 on it looks like, concretely"),
            "score_4": text("what an artifact scoring 4 of 5 on it looks like, concretely"),
        }
    )
    return obj(
        {
            "criteria": array(criterion, "3 to 6 criteria", min_items=MIN_CRITERIA, max_items=MAX_CRITERIA),
            "checklist": array(
                text("one thing to check"), "what every judge checks", min_items=1, max_items=MAX_CHECKLIST
            ),
        }
    )

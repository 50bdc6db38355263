"""A task rubric written for one debate (`--criteria auto`, issue 30 §5): 3 to 6 criteria whose weights sum to
100, each with what a 2 and a 4 look like, and a checklist. One call writes it before round 1; every judge
then reads it, unchanged, in every round. It is kept in the result (`rubric`) and replayed on resume.

Its text comes from a model: it is untrusted, and the prompts delimit it as they do the artifact.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, ValidationError, field_validator, model_validator

from moot.parsing.extract import extract_mapping
from moot.parsing.replies import field_keys
from moot.protocol import ReplyError, ReplyModel, reply_example, reply_field, reply_schema
from moot.protocols.evaluate.criteria import Criterion, criterion_key

__all__ = ["Rubric", "RubricCriterion", "read_rubric", "rescale_weights", "rubric_example", "rubric_schema"]

MIN_CRITERIA, MAX_CRITERIA = 3, 6
MAX_CHECKLIST = 10
NAME_LENGTH = 80


class RubricCriterion(ReplyModel):
    """One criterion of a written rubric. The rubric writer's reply is declared here, once: the schema it is
    asked in, the prompt's example and its validation all come from these fields (strict, unlike judges'
    replies: a rubric every judge then reads is refused, with its reason, rather than guessed at)."""

    plain_example = True  # the prompt shows a rubric as one would write it: `name: correctness`

    name: Annotated[str, Field(min_length=1, max_length=NAME_LENGTH)] = reply_field(
        "a short name, e.g. correctness", example="correctness"
    )
    weight: Annotated[int, Field(ge=1, le=100)] = reply_field(
        "a whole number; the weights of all criteria sum to 100", example="40"
    )
    description: str = reply_field("what this criterion judges, for this task", default="")
    score_2: Annotated[str, Field(min_length=1)] = reply_field(
        "what an artifact scoring 2 of 5 on it looks like, concretely"
    )
    score_4: Annotated[str, Field(min_length=1)] = reply_field(
        "what an artifact scoring 4 of 5 on it looks like, concretely"
    )

    @property
    def key(self) -> str:
        return criterion_key(self.name)


_Criteria = Annotated[list[RubricCriterion], Field(min_length=MIN_CRITERIA, max_length=MAX_CRITERIA)]
_Check = Annotated[str, reply_field("one thing to check")]
_Checklist = Annotated[list[_Check], Field(min_length=1, max_length=MAX_CHECKLIST)]


class Rubric(ReplyModel):
    """A written rubric: the writer's reply (less `rescaled_from`, which only moot sets), kept in the result."""

    plain_example = True
    comment_column = 21
    omitted_fields = frozenset({"rescaled_from"})

    criteria: _Criteria = reply_field(
        f"{MIN_CRITERIA} to {MAX_CRITERIA} criteria",
        comment=f"{MIN_CRITERIA} to {MAX_CRITERIA} criteria; their weights are whole numbers that sum to 100",
    )
    checklist: _Checklist = reply_field(
        "what every judge checks", comment=f"1 to {MAX_CHECKLIST} things every judge checks"
    )
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
    return reply_schema(Rubric)


def rubric_example() -> str:
    """The rubric the prompt shows the writer, as the shape to reply in."""
    return reply_example(Rubric)


def read_rubric(text: str) -> Rubric:
    """The rubric in a writer's reply, or a ReplyError naming what is wrong with it (sent back once)."""
    data = extract_mapping(text, required_any=field_keys(Rubric, "criteria"))
    try:
        return Rubric.model_validate(rescale_weights(data))
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the rubric"
        raise ReplyError(f"{where}: {first['msg']}") from None

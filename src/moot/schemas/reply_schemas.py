"""The building blocks of the JSON schemas sent to judges that constrain replies to a schema.

A protocol declares its replies as pydantic models (`protocols/<name>/replies.py`) and
`moot.parsing.replies` builds their schemas from these blocks; the rubric and the ping checks use
them directly. (The scored evaluation's schemas are still built here, by hand.)

The schemas only steer the judges: the parsers in `moot.parsing` stay the single validation point, and
every judge (agent CLIs, scripted judges, servers asked for no schema) may still answer in YAML. So each
schema here describes a reply those parsers accept, with the keys of the prompt template it goes with.

Each schema is built once, with the bounds a grammar can enforce, and sent in one of two shapes
(`moot.schemas.reply_bounds`):

- enforced, to local servers that decode under a grammar (llama.cpp, vLLM, Ollama, LM Studio): every
  number here is a score and is an `enum` of the steps of the 1-5 scale, every free-text string has a
  `maxLength` and every list a `maxItems` (scaled down to fit the call's output bound), and a list the
  parser needs non-empty has `minItems`. A small model then cannot give an out-of-scale score or run
  past its bound inside a string;
- portable, to vendors' clouds, with exactly the subset OpenAI (strict=false), Anthropic
  (`output_config`) and Gemini (`response_json_schema`) all accept: `type` object/array/string/number/
  integer/boolean, `properties`, `required`, `items`, string `enum`, `description`. Every object lists all
  its properties as required and sets `additionalProperties: false` (Anthropic demands both for
  constrained decoding); length, item and numeric bounds are left out (Anthropic rejects them), so the
  1-5 scale is said in the description and checked by the parser. No `$ref`, no `oneOf`. An enum is
  never empty: where the values are unknown, a string.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from moot.schemas.reply_bounds import Schema

CONFIDENCE = ("HIGH", "MEDIUM", "LOW")
SEVERITIES = ("CRITICAL", "HIGH", "MEDIUM", "LOW")
PRIORITIES = ("MUST", "SHOULD", "COULD")
FINDING_RESPONSES = ("accept", "reject")


# ------------------------------------------------------------------ building blocks


# the nominal bounds of the enforced shape, before they are scaled to a call's output bound
SHORT = 300  # a name, a claim, a piece of evidence: one or two sentences
LONG = 1200  # a position statement, a rationale: a paragraph or two
LIST = 3  # entries in a list of findings, claims, objections
SCORE_STEPS: tuple[float, ...] = (1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5)


def text(description: str = "", *, max_length: int = SHORT) -> Schema:
    return _described({"type": "string"}, description, maxLength=max_length)


def long_text(description: str = "") -> Schema:
    return text(description, max_length=LONG)


def number(description: str = "") -> Schema:
    """A score: in the enforced shape one of the scale's half steps, in the portable one any number."""
    return _described({"type": "number"}, description, enum=list(SCORE_STEPS))


def integer(description: str = "") -> Schema:
    return _described({"type": "integer"}, description)


def boolean(description: str = "") -> Schema:
    return _described({"type": "boolean"}, description)


def choice(values: Sequence[str], description: str = "") -> Schema:
    """One of `values`; a free string when there are none (an empty enum is not a valid schema)."""
    if not values:
        return text(description)
    return _described({"type": "string", "enum": list(dict.fromkeys(values))}, description)


def array(items: Schema, description: str = "", *, min_items: int = 0, max_items: int = LIST) -> Schema:
    bounds = {"minItems": min_items} if min_items else {}
    return _described({"type": "array", "items": items}, description, **bounds, maxItems=max(max_items, min_items))


def obj(properties: Mapping[str, Schema], description: str = "") -> Schema:
    """An object whose properties are all required and the only ones allowed."""
    return _described(
        {
            "type": "object",
            "properties": dict(properties),
            "required": list(properties),
            "additionalProperties": False,
        },
        description,
    )


def _described(schema: Schema, description: str, **bounds: Any) -> Schema:
    if description:
        schema["description"] = description
    schema.update(bounds)
    return schema


def score(description: str = "a score from 1 to 5 (5 is best)") -> Schema:
    return number(description)


# ------------------------------------------------------------------ the scored evaluation


def _dimension_scores(criteria_keys: Sequence[str]) -> Schema:
    return obj({k: score() for k in criteria_keys}, "one score from 1 to 5 per criterion")


def _critical_responses(open_findings: Sequence[tuple[str, bool]]) -> Schema:
    """(finding id, raised by this judge) -> accept | reject (| withdraw for the judge's own)."""
    return obj(
        {fid: choice([*FINDING_RESPONSES, "withdraw"] if own else FINDING_RESPONSES) for fid, own in open_findings},
        "your answer to every open CRITICAL finding, by its id",
    )


# where a finding or claim points in the artifact: one short text ("src/app.py:12"), read into `file` and `line`
# (one field, not two: the reply must still fit the smallest output bound)
LOCATION: dict[str, Schema] = {"location": text("path:line as shown (a diff's new-file line), or empty")}


def _raised_findings() -> Schema:
    return array(
        obj({"finding": text(), "severity": choice(SEVERITIES), "evidence": text(), **LOCATION}),
        "only CRITICAL findings block acceptance; leave the list empty when there is none",
    )


def evaluate_reply_schema(
    criteria_keys: Sequence[str],
    *,
    phase: str,
    open_findings: Sequence[tuple[str, bool]] = (),
    require_acceptance: bool = False,
    earlier_ids: Sequence[str] = (),
) -> Schema:
    """A judge's reply in the scored evaluation; `phase` is "round_1", "rebuttal" or "final".

    `criteria_keys` are the request's criterion keys; `open_findings` the open CRITICAL findings the
    template lists, each with whether this judge raised it (only then may it withdraw it).
    """
    dims = _dimension_scores(criteria_keys)
    if phase == "round_1":
        schema = _round_1(dims)
        if earlier_ids:  # a follow-up: whether the new version resolved each earlier finding
            answers = obj({i: choice(["resolved", "unresolved"]) for i in earlier_ids}, "each earlier finding")
            schema["properties"]["earlier_findings"] = answers
            schema["required"].append("earlier_findings")
        return schema
    if phase == "rebuttal":
        return _rebuttal(dims, open_findings, require_acceptance)
    if phase == "final":
        return _final(dims, open_findings, require_acceptance)
    raise ValueError(f"unknown evaluation phase {phase!r} (round_1, rebuttal, final)")


def _round_1(dims: Schema) -> Schema:
    return obj(
        {
            "judge_id": text(),
            "stance": text(),
            "round": integer(),
            "overall_score": score("the weighted score of your criterion scores, 1 to 5"),
            "dimension_scores": dims,
            "position_statement": long_text("your assessment: strengths and concerns with evidence, verdict"),
            "key_claims": array(
                obj({"claim": text(), "evidence": text(), "confidence": choice(CONFIDENCE), **LOCATION})
            ),
            "critical_findings": _raised_findings(),
            "verification": array(
                obj({"question": text(), "answer": text()}), "five verification questions", max_items=5
            ),
        }
    )


def _rebuttal(dims: Schema, open_findings: Sequence[tuple[str, bool]], require_acceptance: bool) -> Schema:
    disagreement = {
        "with_judge": text(),
        "on_point": text(),
        "my_counterargument": text(),
        "my_evidence": text(),
        "their_evidence_weakness": text(),
    }
    return obj(
        {
            "judge_id": text(),
            "round": integer(),
            "score_changed": boolean(),
            "previous_score": score("your previous overall score"),
            "new_score": score("your overall score now, 1 to 5"),
            "change_reason": long_text("why the score changed, or why the position is maintained"),
            "dimension_scores": dims,
            "agreements": array(
                obj({"with_judge": text(), "on_point": text(), "strengthening_evidence": text()}), max_items=2
            ),
            "disagreements": array(obj(disagreement), max_items=2),
            **_answers_to_findings(open_findings),
            "critical_findings": _raised_findings(),
            **_acceptance(require_acceptance),
            "position_revision": long_text("points you accept, points you reject, your revised assessment"),
            "unresolved_disputes": array(
                obj({"topic": text(), "my_view": text(), "opposing_view": text()}), max_items=2
            ),
        }
    )


def _final(dims: Schema, open_findings: Sequence[tuple[str, bool]], require_acceptance: bool) -> Schema:
    unresolved = {"issue": text(), "my_final_view": text(), "opposing_view": text(), "why_unresolved": text()}
    return obj(
        {
            "judge_id": text(),
            "round": integer(),
            "is_final": boolean(),
            "final_score": score("your final overall score, 1 to 5"),
            "dimension_scores": dims,
            "final_position": long_text("your comprehensive final assessment"),
            "key_points_maintained": array(obj({"point": text(), "reason": text(), "evidence": text()})),
            "concessions_made": array(obj({"point": text(), "convinced_by": text()}), max_items=2),
            **_answers_to_findings(open_findings),
            **_acceptance(require_acceptance),
            "unresolved_disagreements": array(obj(unresolved), max_items=2),
        }
    )


def _answers_to_findings(open_findings: Sequence[tuple[str, bool]]) -> dict[str, Schema]:
    """Asked for only while CRITICAL findings are open: an empty object would be a reply with nothing in it."""
    return {"critical_responses": _critical_responses(open_findings)} if open_findings else {}


def _acceptance(require_acceptance: bool) -> dict[str, Schema]:
    """Asked for only when the panel's consensus needs every judge's explicit yes."""
    if not require_acceptance:
        return {}
    return {"accepts_consensus": boolean("whether you accept the panel's consensus as it now stands")}


def moderator_reply_schema(judge_ids: Sequence[str]) -> Schema:
    """The moderator's synthesis; `judge_ids` are the judges whose positions a divergent finding names."""
    positions = obj({j: text() for j in judge_ids}, "each judge's view") if judge_ids else text("each judge's view")
    return obj(
        {
            "majority_opinion": long_text("summary of the winning position, or of the consensus"),
            "minority_opinion": long_text("summary of the dissenting view; empty if none"),
            "convergent_findings": array(
                obj({"finding": text(), "priority": choice(SEVERITIES), "action_required": boolean()})
            ),
            "divergent_findings": array(
                obj({"finding": text(), "positions": positions, "user_decision_needed": boolean()})
            ),
            "recommendations": array(obj({"priority": choice(PRIORITIES), "action": text(), "rationale": text()})),
            "self_critique": obj(
                {
                    "questions_passed": text('how many of the five questions passed, as "X/5"'),
                    "synthesis_quality": choice(CONFIDENCE),
                    "potential_bias": text(),
                }
            ),
        }
    )

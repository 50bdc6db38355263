"""The building blocks of the JSON schemas sent to judges that constrain replies to a schema.

A protocol declares its replies as pydantic models (`protocols/<name>/replies.py`) and
`moot.parsing.replies` builds their schemas from these blocks (evaluate's rubric writer's reply too);
the ping checks use them directly.

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
from moot.schemas.words import CONFIDENCE as CONFIDENCE_WORDS

CONFIDENCE = CONFIDENCE_WORDS.words  # the confidence words, declared once (`moot.schemas.words`)


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

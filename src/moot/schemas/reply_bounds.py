"""The two shapes a reply schema is sent in: portable (vendors' clouds) and enforced (local grammars).

`moot.schemas.reply_schemas` builds each schema once, with its bounds. Vendors' clouds get `portable()`:
the bounds they refuse or ignore taken out, which leaves exactly the schema they have always been sent.
Servers that decode under a grammar get `fit(schema, max_tokens)`: the bounds kept, and every string's
`maxLength` scaled down until the longest reply the schema allows fits the call's output bound, so that a
reply cannot be cut off inside a string however small the model.
"""

from __future__ import annotations

import json
import math
from typing import Any

Schema = dict[str, Any]

# what vendors' clouds are never sent (Anthropic rejects each; OpenAI's strict mode refuses the length ones)
_BOUND_KEYS = ("maxLength", "minLength", "maxItems", "minItems")

# How many characters of a reply make a token, at worst, for the estimate of a reply's longest length:
# English prose is ~4 per token for most tokenizers, JSON punctuation and short keys nearer 2.
TEXT_CHARS_PER_TOKEN = 3.0
SYNTAX_CHARS_PER_TOKEN = 2.0
FIT_SHARE = 0.85  # the share of the output bound the longest reply may take (the rest: tokenizer slack)
MIN_LENGTH = 24  # no string is cut below this; a bound too small for it is the user's to raise


def portable(schema: Schema) -> Schema:
    """The schema as vendors' clouds take it: no length or item bounds, no numeric enums."""
    out: Schema = {}
    for key, value in schema.items():
        if key in _BOUND_KEYS or (key == "enum" and schema.get("type") in ("number", "integer")):
            continue
        if key == "properties":
            value = {k: portable(v) for k, v in value.items()}
        elif key == "items" and isinstance(value, dict):
            value = portable(value)
        out[key] = value
    return out


def worst_chars(schema: Schema) -> tuple[int, int]:
    """The longest reply the schema allows, as (characters of free text, characters of JSON syntax).

    An unbounded string or list counts as nothing: only bounded shapes have a longest reply.
    """
    kind = schema.get("type")
    if "enum" in schema:
        return 0, max(len(json.dumps(v)) for v in schema["enum"]) + 1
    if kind == "string":
        return int(schema.get("maxLength", 0)), 3
    if kind == "object":
        text, syntax = 0, 2
        for key, sub in schema.get("properties", {}).items():
            t, s = worst_chars(sub)
            text, syntax = text + t, syntax + s + len(json.dumps(key)) + 3
        return text, syntax
    if kind == "array":
        n = int(schema.get("maxItems", 0))
        t, s = worst_chars(schema["items"])
        return n * t, 2 + n * (s + 2)
    return 0, {"integer": 6, "number": 10, "boolean": 6}.get(str(kind), 6)


def worst_tokens(schema: Schema) -> int:
    """A generous estimate of the tokens of the longest reply the schema allows."""
    text, syntax = worst_chars(schema)
    return math.ceil(text / TEXT_CHARS_PER_TOKEN + syntax / SYNTAX_CHARS_PER_TOKEN)


def fit(schema: Schema, max_tokens: int | None) -> Schema:
    """The enforced schema for a call whose reply may take `max_tokens`: every `maxLength` scaled by one
    factor so that the longest reply fits `FIT_SHARE` of the bound (never below `MIN_LENGTH`)."""
    if not max_tokens:
        return schema
    text, syntax = worst_chars(schema)
    room = max_tokens * FIT_SHARE - syntax / SYNTAX_CHARS_PER_TOKEN
    if text == 0 or text / TEXT_CHARS_PER_TOKEN <= room:
        return schema
    return _scaled(schema, max(0.0, room * TEXT_CHARS_PER_TOKEN / text))


def _scaled(schema: Schema, factor: float) -> Schema:
    out = dict(schema)
    if "maxLength" in out:
        out["maxLength"] = max(MIN_LENGTH, int(out["maxLength"] * factor))
    if "properties" in out:
        out["properties"] = {k: _scaled(v, factor) for k, v in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = _scaled(out["items"], factor)
    return out

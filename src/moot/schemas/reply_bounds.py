"""The two shapes a reply schema is sent in: portable (vendors' clouds) and enforced (local grammars).

Each schema is built once, with its bounds (`moot.parsing.replies`, from a protocol's reply model, with
the blocks of `moot.schemas.reply_schemas`). Vendors' clouds get `portable()`:
the bounds they refuse or ignore taken out, and the descriptions the prompt's template already says.
Servers that decode under a grammar get `fit(schema, max_tokens)`: the bounds kept, and every string's
`maxLength` scaled down (and, for a small bound, the longest lists shortened) until the longest reply the
schema allows fits the call's output bound, so that a reply cannot be cut off however small the model.
Every `maxLength` is also capped at `GRAMMAR_MAX_LENGTH`, whatever the bound: grammar converters expand a
bounded string into one nested rule per character, and a long one is more than their parsers take.
"""

from __future__ import annotations

import functools
import json
import math
from typing import Any

Schema = dict[str, Any]

# what vendors' clouds are never sent (Anthropic rejects each; OpenAI's strict mode refuses the length ones)
_BOUND_KEYS = ("maxLength", "minLength", "maxItems", "minItems")
# what the prompt's template says already, and a vendor would bill again as prompt text
_PROMPT_KEYS = ("description",)

# How many characters of a reply make a token, at worst, for the estimate of a reply's longest length:
# English prose is ~4 per token for most tokenizers, JSON punctuation and short keys nearer 2.
TEXT_CHARS_PER_TOKEN = 3.0
SYNTAX_CHARS_PER_TOKEN = 2.0
FIT_SHARE = 0.85  # the share of the output bound the longest reply may take (the rest: tokenizer slack)
MIN_LENGTH = 24  # no string is cut below this; a bound too small for it is the user's to raise
COMFORTABLE_LENGTH = 80  # lists are shortened until every field could be this long within the bound
# The longest `maxLength` an enforced schema carries. Measured on llama-cpp-python 0.3.36's server (json_object
# with schema): a string of maxLength 1000 parses, 1001 is "failed to parse grammar" ("number of rules that are
# going to be repeated ... exceeds sane defaults") and the server process dies. Half of it leaves room for other
# converters and for the rules around a field; llama.cpp's own server refuses repetitions above 2000.
GRAMMAR_MAX_LENGTH = 500


def portable(schema: Schema) -> Schema:
    """The schema as vendors' clouds take it: no length or item bounds, no numeric enums, and no
    descriptions: a vendor reads the schema as prompt text and bills it so, and the prompt's template says
    every field's meaning already (its placeholder is the field's description, or says more)."""
    out: Schema = {}
    for key, value in schema.items():
        if key in (*_BOUND_KEYS, *_PROMPT_KEYS) or (key == "enum" and schema.get("type") in ("number", "integer")):
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
    """The enforced schema for a call whose reply may take `max_tokens`.

    First, while even fields of `COMFORTABLE_LENGTH` characters would not fit, the longest list loses an
    item (never below its `minItems`, nor below one); then every `maxLength` is scaled by one factor so
    that the longest reply fits `FIT_SHARE` of the bound (never below `MIN_LENGTH`). Without a bound, or
    within it, every `maxLength` is still capped at `GRAMMAR_MAX_LENGTH`.

    Every judge of every round (of every item of a batch) fits the same few schemas to the same bound, and
    fitting walks the schema hundreds of times: each is fitted once (`_fit_once`), and every caller gets a
    copy of its own.
    """
    try:
        key = json.dumps(schema)
    except TypeError:  # not JSON (never sent as is): fitted anew
        return capped(_fitted(schema, max_tokens), GRAMMAR_MAX_LENGTH)
    result: Schema = json.loads(_fit_once(key, max_tokens))
    return result


@functools.lru_cache(maxsize=1024)
def _fit_once(schema_json: str, max_tokens: int | None) -> str:
    return json.dumps(capped(_fitted(json.loads(schema_json), max_tokens), GRAMMAR_MAX_LENGTH))


def _fitted(schema: Schema, max_tokens: int | None) -> Schema:
    if not max_tokens:
        return schema
    budget = max_tokens * FIT_SHARE
    while _tokens(schema, cap=COMFORTABLE_LENGTH) > budget and (fewer := _fewer_items(schema)) is not None:
        schema = fewer
    text, syntax = worst_chars(schema)
    room = budget - syntax / SYNTAX_CHARS_PER_TOKEN
    if text == 0 or text / TEXT_CHARS_PER_TOKEN <= room:
        return schema
    return _scaled(schema, max(0.0, room * TEXT_CHARS_PER_TOKEN / text))


def _tokens(schema: Schema, *, cap: int) -> float:
    """The longest reply's tokens if no string were longer than `cap` characters."""
    text, syntax = worst_chars(_scaled(schema, 1.0, cap=cap))
    return text / TEXT_CHARS_PER_TOKEN + syntax / SYNTAX_CHARS_PER_TOKEN


def _fewer_items(schema: Schema) -> Schema | None:
    """The schema with its longest shrinkable list one item shorter; None when no list can shrink."""
    found = _longest_list(schema, ())
    if found is None:
        return None
    path, n = found
    return _with_max_items(schema, path, n - 1)


def _longest_list(schema: Schema, path: tuple[str, ...]) -> tuple[tuple[str, ...], int] | None:
    best: tuple[tuple[str, ...], int] | None = None
    if schema.get("type") == "array" and "maxItems" in schema:
        n = int(schema["maxItems"])
        if n > max(int(schema.get("minItems", 0)), 1):
            best = (path, n)
    children = [(k, v) for k, v in schema.get("properties", {}).items()]
    if isinstance(schema.get("items"), dict):
        children.append(("[]", schema["items"]))
    for key, sub in children:
        found = _longest_list(sub, (*path, key))
        if found is not None and (best is None or found[1] > best[1]):
            best = found
    return best


def _with_max_items(schema: Schema, path: tuple[str, ...], n: int) -> Schema:
    out = dict(schema)
    if not path:
        out["maxItems"] = n
    elif path[0] == "[]":
        out["items"] = _with_max_items(out["items"], path[1:], n)
    else:
        out["properties"] = {**out["properties"], path[0]: _with_max_items(out["properties"][path[0]], path[1:], n)}
    return out


def _scaled(schema: Schema, factor: float, *, cap: int | None = None) -> Schema:
    """Every `maxLength` times `factor` (not below `MIN_LENGTH`), and not above `cap` when one is given."""
    out = dict(schema)
    if "maxLength" in out:
        length = max(MIN_LENGTH, int(out["maxLength"] * factor))
        out["maxLength"] = min(length, cap) if cap is not None else length
    if "properties" in out:
        out["properties"] = {k: _scaled(v, factor, cap=cap) for k, v in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = _scaled(out["items"], factor, cap=cap)
    return out


def reply_minimum(*schemas: Schema) -> int:
    """The smallest output bound under which every one of `schemas` still fits: the longest of them at its
    shortest (every list at its fewest items, every text at `MIN_LENGTH`), over `FIT_SHARE`."""
    return max((math.ceil(worst_tokens(fit(s, 1)) / FIT_SHARE) for s in schemas), default=0)


def capped(schema: Schema, cap: int) -> Schema:
    """Every `maxLength` no longer than `cap` (nothing else changed)."""
    out = dict(schema)
    if "maxLength" in out:
        out["maxLength"] = min(int(out["maxLength"]), cap)
    if "properties" in out:
        out["properties"] = {k: capped(v, cap) for k, v in out["properties"].items()}
    if isinstance(out.get("items"), dict):
        out["items"] = capped(out["items"], cap)
    return out

"""A judge's reply declared once, as a pydantic model, and everything else derived from it.

A protocol declares each reply in its `replies.py` as a subclass of `ReplyModel`, in the order the
prompt shows the keys. From that one declaration come:

- `reply_schema(Model)`: the JSON schema sent to judges that decode under a schema, in the bounded form
  of `moot.schemas.reply_schemas` (so `reply_bounds.portable()` and `fit()` shape it as before);
- `reply_example(Model, values)`: the YAML (or one-line JSON) template the prompt shows the judge;
- `read_reply(Model, text)` / `validate_reply(Model, data)`: the parser's validation, lenient as the
  parsers always were (legacy keys, prose where a list was asked, words in any case).

A field says what it is with its type and `reply_field(...)`:

    class Opening(ReplyModel):
        position: LongText = reply_field("what you hold", example="{one or two sentences}")
        confidence: Literal["HIGH", "MEDIUM", "LOW"] = reply_field(default="MEDIUM")
        weaknesses: Annotated[list[Text], items(max_items=3)] = reply_field(default_factory=list)

Types: `Text` (a sentence or two, bounded at `SHORT` characters in the enforced shape), `LongText`
(`LONG`), `Score` (the 1-5 scale: an enum of half steps when enforced), `int`, `bool`, a `Literal` of
words (an enum), `list[...]` (bounded by `items(...)`, `LIST` by default), or a nested `ReplyModel` (an
object). Legacy keys are `aliases=`: the first of the field's name and its aliases holding a non-empty
value wins. A strict field may carry pydantic's own checks (`Annotated[str, Field(max_length=80)]`): the
parser applies them and the schema asks for the same lengths. A model whose example should read as a
reply one could send (bare texts, descriptions as placeholders, comments in one column) sets
`plain_example = True` and `comment_column`. Replies whose shape depends on the debate (the option ids,
the judges' names) are specializations of the declared model made with `pydantic.create_model(..., __base__=Model)`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeVar, get_args, get_origin

from pydantic import ValidationError
from pydantic.fields import FieldInfo

from moot.parsing.extract import ReplyError, extract_mapping
from moot.parsing.reply_types import (
    Bound,
    Count,
    Flag,
    Listed,
    LongText,
    ReplyModel,
    Required,
    Score,
    Text,
    bound_of,
    field_keys,
    items,
    one_of,
    reply_field,
    shown_fields,
    specialize,
    unwrap,
    word,
)
from moot.schemas.reply_bounds import Schema
from moot.schemas.reply_schemas import LIST, SHORT, array, boolean, choice, integer, number, obj, text

__all__ = [
    "Bound",
    "Count",
    "Flag",
    "Listed",
    "LongText",
    "ReplyModel",
    "Required",
    "Score",
    "Text",
    "field_keys",
    "items",
    "one_of",
    "read_reply",
    "reply_example",
    "reply_field",
    "reply_schema",
    "shown_fields",
    "specialize",
    "validate_reply",
    "word",
]

M = TypeVar("M", bound=ReplyModel)


# ------------------------------------------------------------------ the parser's validation


def validate_reply(model: type[M], data: Mapping[str, Any], *, context: Mapping[str, Any] | None = None) -> M:
    """`data` (a reply's mapping) as `model`, or a ReplyError phrased for the judge.

    A validator that raises ReplyError has its message passed on as is; a missing (or `Required` and
    empty) field reads as `model.missing_message`; anything else names the field and what is wrong.
    """
    try:
        return model.model_validate(dict(data), context=dict(context or {}))
    except ValidationError as e:
        raise ReplyError(_message(model, e)) from e


def read_reply(
    model: type[M], text_: str, *, required_any: tuple[str, ...] = (), context: Mapping[str, Any] | None = None
) -> M:
    """The mapping in a judge's reply (fenced or bare, prose around it), validated as `model`."""
    return validate_reply(model, extract_mapping(text_, required_any=required_any), context=context)


def _message(model: type[ReplyModel], error: ValidationError) -> str:
    first = error.errors()[0]
    cause = (first.get("ctx") or {}).get("error")
    if isinstance(cause, ReplyError):
        return str(cause)
    where = ".".join(str(part) for part in first["loc"])
    if first["type"] == "missing":
        return model.missing_message.format(key=where)
    msg = " ".join(str(first["msg"]).split())
    return f"the reply's {where or 'content'} is invalid: {msg[:120]}"


# ------------------------------------------------------------------ the JSON schema


def reply_schema(model: type[ReplyModel]) -> Schema:
    """The bounded JSON schema of `model`: every property required, no other allowed, in field order.

    Derived once per model (every judge and round asks for it again), each caller getting its own copy."""
    schema: Schema = json.loads(_schema_json(model))
    return schema


@functools.lru_cache(maxsize=1024)
def _schema_json(model: type[ReplyModel]) -> str:
    return json.dumps(obj({name: _field_schema(info) for name, info in shown_fields(model).items()}))


def _field_schema(info: FieldInfo) -> Schema:
    return _schema(info.annotation, bound_of(info.metadata), info.description or "")


def _schema(annotation: Any, bound: Bound, description: str) -> Schema:
    annotation, bound = unwrap(annotation, bound)
    origin = get_origin(annotation)
    if origin is Literal:
        return choice([str(a) for a in get_args(annotation)], description)
    if origin is list:
        (inner,) = get_args(annotation)
        limit = LIST if bound.max_items is None else bound.max_items
        item = _item_info(inner)
        entry = _schema(inner, Bound(), (item and item.description) or "")
        return array(entry, description, min_items=bound.min_items, max_items=limit)
    if isinstance(annotation, type) and issubclass(annotation, ReplyModel):
        return {**reply_schema(annotation), **({"description": description} if description else {})}
    if annotation is bool:
        return boolean(description)
    if annotation is int:
        return integer(description)
    if annotation is float:
        return number(description or "a score from 1 to 5 (5 is best)")
    if annotation is str and bound.words:
        return choice(bound.words, description)
    if annotation is str:
        schema = text(description, max_length=bound.max_length or SHORT)
        if bound.min_length:
            schema["minLength"] = bound.min_length
        return schema
    raise TypeError(f"a reply field cannot be {annotation!r}")


# ------------------------------------------------------------------ the prompt's example


def reply_example(model: type[ReplyModel], values: Mapping[str, Any] | None = None) -> str:
    """The template the prompt shows: each field with its placeholder, or with the value `values` gives.

    A value replaces a field's placeholder (a string for a scalar, a list of strings or of mappings for
    a list, a mapping for an object); a list given no entries shows the field's `empty`.

    Every judge of every round asks for the same few templates: each is written once (`_example_once`).
    """
    try:
        given = json.dumps(values or {})
    except TypeError:  # values that are not JSON: written anew
        return _example(model, values)
    if json.loads(given) != (values or {}):  # a tuple, a key that is not a string: not what JSON gives back
        return _example(model, values)
    return _example_once(model, given)


@functools.lru_cache(maxsize=1024)
def _example_once(model: type[ReplyModel], values_json: str) -> str:
    return _example(model, json.loads(values_json))


def _example(model: type[ReplyModel], values: Mapping[str, Any] | None) -> str:
    if model.example_format == "json":
        return "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in _json_fields(model, values or {})) + "}"
    return "\n".join(_yaml_fields(model, values or {}, ""))


def _placeholder(info: FieldInfo, annotation: Any, bound: Bound, *, plain: bool = False) -> str:
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    if isinstance(extra.get("example"), str):
        return str(extra["example"])
    if get_origin(annotation) is Literal:
        return "|".join(str(a) for a in get_args(annotation))
    if bound.words:
        return "|".join(bound.words)
    if annotation is bool:
        return "true|false"
    about = info.description or "..."
    return about if plain else "{" + about + "}"


def _item_info(annotation: Any) -> FieldInfo | None:
    """What a list's entries are declared with (`list[Annotated[Text, reply_field("one thing to check")]]`):
    their description in the schema, their placeholder in the example (else the list's own are used)."""
    if get_origin(annotation) is not Annotated:
        return None
    found = [m for m in get_args(annotation)[1:] if isinstance(m, FieldInfo)]
    return found[-1] if found else None


def _extra(info: FieldInfo, key: str) -> Any:
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    return extra.get(key)


def _scalar(model: type[ReplyModel], annotation: Any, value: Any, bound: Bound) -> str:
    is_word = get_origin(annotation) is Literal or bool(bound.words)
    if annotation in (bool, int, float) or (is_word and not model.quote_words):
        return str(value)
    if model.plain_example and not is_word:
        return str(value)
    return f'"{value}"'


def _noted(model: type[ReplyModel], line: str, info: FieldInfo) -> str:
    """`line` with the field's comment, from the model's `comment_column` (at least two spaces after it)."""
    comment = _extra(info, "comment")
    return f"{line.ljust(model.comment_column - 2)}  # {comment}" if comment else line


def _key(model: type[ReplyModel], name: str) -> str:
    return f'"{name}"' if model.quote_keys else name


def _yaml_fields(model: type[ReplyModel], values: Mapping[str, Any], indent: str) -> list[str]:
    lines: list[str] = []
    for name, info in shown_fields(model).items():
        annotation, bound = unwrap(info.annotation, bound_of(info.metadata))
        value = values.get(name, _placeholder(info, annotation, bound, plain=model.plain_example))
        head = f"{indent}{_key(model, name)}:"
        if get_origin(annotation) is list and _extra(info, "inline_empty") and values.get(name) == []:
            lines.append(_noted(model, f"{head} {_extra(info, 'empty')}", info))
        elif get_origin(annotation) is list:
            lines.append(_noted(model, head, info))
            lines += _yaml_list(model, info, annotation, values.get(name), indent + "  ")
        elif isinstance(annotation, type) and issubclass(annotation, ReplyModel):
            lines.append(head)
            lines += _yaml_fields(annotation, values.get(name) or {}, indent + "  ")
        elif _extra(info, "block"):  # every line of a text of several lines indented under the key
            lines += [f"{head} |", *(f"{indent}  {line}" for line in str(value).split("\n"))]
        else:
            lines.append(_noted(model, f"{head} {_scalar(model, annotation, value, bound)}", info))
    return lines


def _yaml_list(model: type[ReplyModel], info: FieldInfo, annotation: Any, given: Any, indent: str) -> list[str]:
    inner, bound = unwrap(get_args(annotation)[0], Bound())
    item = _item_info(get_args(annotation)[0])
    about = item if item is not None and (item.description or _extra(item, "example")) else info
    entries = [None] if given is None else list(given)
    if not entries:
        empty = str(_extra(info, "empty"))
        return [f"{indent}{empty}"] if empty else []
    lines: list[str] = []
    for entry in entries:
        if isinstance(inner, type) and issubclass(inner, ReplyModel):
            body = _yaml_fields(inner, entry or {}, indent + "  ")
            lines += [f"{indent}- {body[0].lstrip()}", *body[1:]]
        else:
            shown = entry if entry is not None else _placeholder(about, inner, bound, plain=model.plain_example)
            lines.append(f"{indent}- {_scalar(model, inner, shown, bound)}")
    return lines


def _json_fields(model: type[ReplyModel], values: Mapping[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for name, info in shown_fields(model).items():
        annotation, bound = unwrap(info.annotation, bound_of(info.metadata))
        if get_origin(annotation) is list:
            inner, inner_bound = unwrap(get_args(annotation)[0], Bound())
            entries = values.get(name) or [_placeholder(info, inner, inner_bound)]
            out.append((name, "[" + ", ".join(f'"{e}"' for e in entries) + "]"))
        else:
            shown = values.get(name, _placeholder(info, annotation, bound))
            out.append((name, _scalar(model, annotation, shown, bound)))
    return out

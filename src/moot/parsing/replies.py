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
value wins. Replies whose shape depends on the debate (the option ids, the judges' names) are
specializations of the declared model made with `pydantic.create_model(..., __base__=Model)`.
"""

from __future__ import annotations

import json
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, TypeVar, Union, cast, get_args, get_origin

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    ValidationError,
    create_model,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

from moot.parsing.extract import ReplyError, as_list, as_text, extract_mapping
from moot.schemas.reply_bounds import Schema
from moot.schemas.reply_schemas import LIST, LONG, SHORT, array, boolean, choice, integer, number, obj, text

M = TypeVar("M", bound="ReplyModel")


@dataclass(frozen=True)
class Bound:
    """What a grammar enforces on a field (schema only: the parser stays lenient)."""

    max_length: int | None = None
    min_length: int = 0
    min_items: int = 0
    max_items: int | None = None
    score: bool = False


def items(max_items: int = LIST, *, min_items: int = 0) -> Bound:
    """A list's bounds in the enforced shape: at most `max_items` (at least `min_items`) entries."""
    return Bound(max_items=max_items, min_items=min_items)


def _score(value: Any) -> Any:
    """4, 4.5, "4.5" and "4/5" are all the score 4 or 4.5."""
    if isinstance(value, str):
        head = value.strip().split("/")[0].strip()
        return head or value
    return value


Text = Annotated[str, BeforeValidator(as_text), Bound(max_length=SHORT)]
LongText = Annotated[str, BeforeValidator(as_text), Bound(max_length=LONG)]
Score = Annotated[float, BeforeValidator(_score), Bound(score=True)]
Listed = BeforeValidator(as_list)  # a single value where a list was asked is a list of one


def _given(value: str) -> str:
    if not value:
        raise PydanticCustomError("missing", "Field required")
    return value


# a text the reply must give: an empty one is answered as a missing one (`ReplyModel.missing_message`)
Required = AfterValidator(_given)


def reply_field(
    description: str = "",
    *,
    example: str | None = None,
    aliases: Sequence[str] = (),
    block: bool = False,
    empty: str = "[]",
    inline_empty: bool = False,
    comment: str = "",
    default: Any = ...,
    default_factory: Callable[[], Any] | None = None,
) -> Any:
    """A reply field: `description` goes into the schema; `example` is the prompt's placeholder (default
    "{description}"); `block` shows it as a YAML `|` block; `empty` is what the prompt shows for a list
    given no entries (on the key's own line with `inline_empty`); `comment` follows the value as a YAML
    comment (`overall_score: X.X  # 1-5`); `aliases` are the other keys judges write for it."""
    extra: dict[str, JsonValue] = {"example": example, "block": block, "empty": empty}
    extra.update({"inline_empty": True} if inline_empty else {})
    extra.update({"comment": comment} if comment else {})
    alias = AliasChoices(*aliases) if aliases else None
    if default_factory is not None:
        return Field(
            default_factory=default_factory,
            description=description or None,
            validation_alias=alias,
            json_schema_extra=extra,
        )
    return Field(default, description=description or None, validation_alias=alias, json_schema_extra=extra)


class ReplyModel(BaseModel):
    """The base of every declared reply. Unknown keys are ignored (a judge may say more than asked)."""

    model_config = ConfigDict(extra="ignore", validate_by_name=True, validate_by_alias=True)

    example_format: ClassVar[Literal["yaml", "json"]] = "yaml"
    quote_words: ClassVar[bool] = True  # `confidence: "HIGH|MEDIUM|LOW"` (True) or `confidence: HIGH|MEDIUM|LOW`
    quote_keys: ClassVar[bool] = False  # `"A": "..."`: for objects keyed by ids
    fold_keys: ClassVar[bool] = False  # match keys without regard to case
    omitted_fields: ClassVar[frozenset[str]] = frozenset()  # left out of schema and example (`specialize`)
    missing_message: ClassVar[str] = "the reply has no `{key}`"  # what a judge is told of a missing field

    @model_validator(mode="before")
    @classmethod
    def _first_given(cls, data: Any) -> Any:
        """Each field from the first of its name and aliases that holds something (not None, "", [], {})."""
        if not isinstance(data, dict):
            return data
        if cls.fold_keys:
            data = {str(k).lower(): v for k, v in data.items()}
        out: dict[str, Any] = {}
        for name, info in cls.model_fields.items():
            keys = [name, *_aliases(info)]
            given = [data[k] for k in keys if k in data]
            full = [v for v in given if v not in (None, "", [], {})]
            if full or given:
                out[name] = (full or given)[0]
        return out


def _aliases(info: FieldInfo) -> list[str]:
    alias = info.validation_alias
    if isinstance(alias, AliasChoices):
        return [a for a in alias.choices if isinstance(a, str)]
    return [alias] if isinstance(alias, str) else []


def one_of(values: Sequence[str]) -> Any:
    """The type of a field holding one of `values` (known only at run time): a `Literal` of them, or a
    `Text` when there are none (an empty enum is not a valid schema)."""
    unique = tuple(dict.fromkeys(values))
    return Literal[unique] if unique else Text


def specialize(model: type[M], name: str, *, without: Sequence[str] = (), **fields: tuple[Any, Any]) -> type[M]:
    """`model` with some fields retyped or added at run time, each as `(type, reply_field(...))`:
    the same declaration, narrowed to one debate (its option ids, its judges' names).

    A retyped field keeps its place, an added one comes last. `without` leaves declared fields out of
    the schema and the example (a key asked for only in some debates: declare it where it belongs,
    with a default, and leave it out where it does not apply).
    """
    definitions: dict[str, Any] = dict(fields)
    special = cast("type[M]", create_model(name, __base__=model, **definitions))
    for key in without:
        if special.model_fields[key].is_required():
            raise TypeError(f"{name}: a field left out ({key}) needs a default")
    special.omitted_fields = frozenset(model.omitted_fields | set(without))
    return special


def shown_fields(model: type[ReplyModel]) -> dict[str, FieldInfo]:
    """The fields a judge is asked for, in order: the declared ones less those left out."""
    return {k: v for k, v in model.model_fields.items() if k not in model.omitted_fields}


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
    """The bounded JSON schema of `model`: every property required, no other allowed, in field order."""
    return obj({name: _field_schema(info) for name, info in shown_fields(model).items()})


def _field_schema(info: FieldInfo) -> Schema:
    return _schema(info.annotation, _bound(info.metadata), info.description or "")


def _bound(metadata: Sequence[Any]) -> Bound:
    """The bounds the metadata sets, a later `Bound` overriding what an earlier one set."""
    merged: dict[str, Any] = {}
    for m in metadata:
        if isinstance(m, Bound):
            merged.update({k: v for k, v in vars(m).items() if v != getattr(Bound(), k)})
    return Bound(**merged)


def _schema(annotation: Any, bound: Bound, description: str) -> Schema:
    annotation, bound = _unwrap(annotation, bound)
    origin = get_origin(annotation)
    if origin is Literal:
        return choice([str(a) for a in get_args(annotation)], description)
    if origin is list:
        (inner,) = get_args(annotation)
        limit = LIST if bound.max_items is None else bound.max_items
        return array(_schema(inner, Bound(), ""), description, min_items=bound.min_items, max_items=limit)
    if isinstance(annotation, type) and issubclass(annotation, ReplyModel):
        return {**reply_schema(annotation), **({"description": description} if description else {})}
    if annotation is bool:
        return boolean(description)
    if annotation is int:
        return integer(description)
    if annotation is float:
        return number(description or "a score from 1 to 5 (5 is best)")
    if annotation is str:
        schema = text(description, max_length=bound.max_length or SHORT)
        if bound.min_length:
            schema["minLength"] = bound.min_length
        return schema
    raise TypeError(f"a reply field cannot be {annotation!r}")


def _unwrap(annotation: Any, bound: Bound) -> tuple[Any, Bound]:
    """The bare type under `Annotated[...]` and `X | None`, and the bound its metadata gives."""
    while True:
        if get_origin(annotation) is Annotated:
            base, *meta = get_args(annotation)
            found = _bound(meta)
            bound = bound if bound != Bound() else found
            annotation = base
        elif get_origin(annotation) in (Union, types.UnionType):
            annotation = next(a for a in get_args(annotation) if a is not type(None))
        else:
            return annotation, bound


# ------------------------------------------------------------------ the prompt's example


def reply_example(model: type[ReplyModel], values: Mapping[str, Any] | None = None) -> str:
    """The template the prompt shows: each field with its placeholder, or with the value `values` gives.

    A value replaces a field's placeholder (a string for a scalar, a list of strings or of mappings for
    a list, a mapping for an object); a list given no entries shows the field's `empty`.
    """
    if model.example_format == "json":
        return "{" + ", ".join(f"{json.dumps(k)}: {v}" for k, v in _json_fields(model, values or {})) + "}"
    return "\n".join(_yaml_fields(model, values or {}, ""))


def _placeholder(info: FieldInfo, annotation: Any) -> str:
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    if isinstance(extra.get("example"), str):
        return str(extra["example"])
    if get_origin(annotation) is Literal:
        return "|".join(str(a) for a in get_args(annotation))
    if annotation is bool:
        return "true|false"
    return "{" + (info.description or "...") + "}"


def _extra(info: FieldInfo, key: str) -> Any:
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else {}
    return extra.get(key)


def _scalar(model: type[ReplyModel], annotation: Any, value: Any) -> str:
    if annotation in (bool, int, float) or (get_origin(annotation) is Literal and not model.quote_words):
        return str(value)
    return f'"{value}"'


def _key(model: type[ReplyModel], name: str) -> str:
    return f'"{name}"' if model.quote_keys else name


def _yaml_fields(model: type[ReplyModel], values: Mapping[str, Any], indent: str) -> list[str]:
    lines: list[str] = []
    for name, info in shown_fields(model).items():
        annotation, _ = _unwrap(info.annotation, Bound())
        value = values.get(name, _placeholder(info, annotation))
        head = f"{indent}{_key(model, name)}:"
        note = f"  # {_extra(info, 'comment')}" if _extra(info, "comment") else ""
        if get_origin(annotation) is list and _extra(info, "inline_empty") and values.get(name) == []:
            lines.append(f"{head} {_extra(info, 'empty')}{note}")
        elif get_origin(annotation) is list:
            lines.append(head)
            lines += _yaml_list(model, info, annotation, values.get(name), indent + "  ")
        elif isinstance(annotation, type) and issubclass(annotation, ReplyModel):
            lines.append(head)
            lines += _yaml_fields(annotation, values.get(name) or {}, indent + "  ")
        elif _extra(info, "block"):  # every line of a text of several lines indented under the key
            lines += [f"{head} |", *(f"{indent}  {line}" for line in str(value).split("\n"))]
        else:
            lines.append(f"{head} {_scalar(model, annotation, value)}{note}")
    return lines


def _yaml_list(model: type[ReplyModel], info: FieldInfo, annotation: Any, given: Any, indent: str) -> list[str]:
    (inner,) = get_args(annotation)
    inner, _ = _unwrap(inner, Bound())
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
            shown = entry if entry is not None else _placeholder(info, inner)
            lines.append(f"{indent}- {_scalar(model, inner, shown)}")
    return lines


def _json_fields(model: type[ReplyModel], values: Mapping[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for name, info in shown_fields(model).items():
        annotation, _ = _unwrap(info.annotation, Bound())
        if get_origin(annotation) is list:
            entries = values.get(name) or [_placeholder(info, get_args(annotation)[0])]
            out.append((name, "[" + ", ".join(f'"{e}"' for e in entries) + "]"))
        else:
            out.append((name, _scalar(model, annotation, values.get(name, _placeholder(info, annotation)))))
    return out

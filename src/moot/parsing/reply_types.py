"""The types a declared reply is made of (`moot.parsing.replies` derives schema, example and parser from them).

Each type carries what the enforced schema bounds (`Bound`) and the lenient coercion the parser applies
(a `BeforeValidator`): the JSON schema asks for a clean reply, the parser still takes what judges write.
"""

from __future__ import annotations

import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, TypeVar, Union, cast, get_args, get_origin

import annotated_types
from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    JsonValue,
    create_model,
    model_validator,
)
from pydantic.fields import FieldInfo
from pydantic_core import PydanticCustomError

from moot.parsing.extract import as_bool, as_list, as_text
from moot.schemas.reply_schemas import LIST, LONG, SHORT

M = TypeVar("M", bound="ReplyModel")


@dataclass(frozen=True)
class Bound:
    """What a grammar enforces on a field (schema only: the parser stays lenient)."""

    max_length: int | None = None
    min_length: int = 0
    min_items: int = 0
    max_items: int | None = None
    score: bool = False
    words: tuple[str, ...] = ()  # a text the schema asks to be one of these words (an enum)


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


def _count(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return None


Flag = Annotated[bool | None, BeforeValidator(as_bool)]  # true/false/yes/no; anything else is None
Count = Annotated[int | None, BeforeValidator(_count)]  # a whole number; anything else is None


def word(*values: str) -> Bound:
    """On a `Text` (`Annotated[Text, word("HIGH", "LOW")]`): the schema and the example ask for one of
    `values`, the parser still takes any text ("high", "Medium") rather than refusing the reply over it."""
    return Bound(words=tuple(values))


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
    validate_default: bool = False,
    default: Any = ...,
    default_factory: Callable[[], Any] | None = None,
) -> Any:
    """A reply field: `description` goes into the schema; `example` is the prompt's placeholder (default
    "{description}"); `block` shows it as a YAML `|` block; `empty` is what the prompt shows for a list
    given no entries (on the key's own line with `inline_empty`); `comment` follows the value as a YAML
    comment (`overall_score: X.X  # 1-5`); `aliases` are the other keys judges write for it;
    `validate_default` runs the field's validators on a missing key too (to answer it as they answer a
    bad value)."""
    extra: dict[str, JsonValue] = {"example": example, "block": block, "empty": empty}
    extra.update({"inline_empty": True} if inline_empty else {})
    extra.update({"comment": comment} if comment else {})
    alias = AliasChoices(*aliases) if aliases else None
    common: dict[str, Any] = {
        "description": description or None,
        "validation_alias": alias,
        "json_schema_extra": extra,
        "validate_default": validate_default or None,
    }
    if default_factory is not None:
        return Field(default_factory=default_factory, **common)
    return Field(default, **common)


class ReplyModel(BaseModel):
    """The base of every declared reply. Unknown keys are ignored (a judge may say more than asked). Each
    reply's validator is built when a reply is first read (`defer_build`): a server or a command that reads
    none (`moot mcp` answering `initialize`, `--help`) does not pay for the protocols' dozens of replies."""

    model_config = ConfigDict(extra="ignore", validate_by_name=True, validate_by_alias=True, defer_build=True)

    example_format: ClassVar[Literal["yaml", "json"]] = "yaml"
    quote_words: ClassVar[bool] = True  # `confidence: "HIGH|MEDIUM|LOW"` (True) or `confidence: HIGH|MEDIUM|LOW`
    quote_keys: ClassVar[bool] = False  # `"A": "..."`: for objects keyed by ids
    # the example reads as a reply one could send: texts bare, a text's placeholder its description as is
    # (`description: what this criterion judges`), not `"{what this criterion judges}"`
    plain_example: ClassVar[bool] = False
    comment_column: ClassVar[int] = 0  # where comments start (0: two spaces after the value)
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


def specialize(model: type[M], name: str, *, without: Sequence[str] = (), **fields: Any) -> type[M]:
    """`model` with some fields retyped or added at run time: the same declaration, narrowed to one
    debate (its option ids, its judges' names).

    A field given a bare type keeps its declaration (description, aliases, example, default) with the
    new type; one given `(type, reply_field(...))` is declared anew. A retyped field keeps its place, an
    added one comes last. The model's validators (`field_validator`, `model_validator`) carry over.
    `without` leaves declared fields out of the schema and the example (a key asked for only in some
    debates: declare it where it belongs, with a default, and leave it out where it does not apply).

    Building a pydantic model costs milliseconds and a debate asks for the same shapes for every judge and
    round (a batch for every item): each one is built once and handed out again for the same arguments.
    """
    key = _specialization_key(model, name, without, fields)
    made = _SPECIALIZED.get(key) if key is not None else None
    if made is None:
        made = (_specialized(model, name, tuple(without), fields), fields)
        if key is not None:
            if len(_SPECIALIZED) >= _SPECIALIZED_KEPT:
                _SPECIALIZED.clear()
            _SPECIALIZED[key] = made
    return cast("type[M]", made[0])


# (model, name, without, each field's type and declaration) -> (the model built, the fields it was built
# from: kept alive, so that an address a declaration's repr shows is not reused while the entry stands)
_SPECIALIZED: dict[Any, tuple[type[ReplyModel], dict[str, Any]]] = {}
_SPECIALIZED_KEPT = 2048


def _specialization_key(model: type[ReplyModel], name: str, without: Sequence[str], fields: dict[str, Any]) -> Any:
    """What makes two specializations the same, or None when a field's type cannot be hashed (built anew).
    A `FieldInfo` compares by identity, so a declaration stands in the key by its repr (every attribute
    it was given)."""
    parts = tuple((k, (v[0], repr(v[1])) if isinstance(v, tuple) else v) for k, v in fields.items())
    key = (model, name, tuple(without), parts)
    try:
        hash(key)
    except TypeError:
        return None
    return key


def _specialized(model: type[M], name: str, without: tuple[str, ...], fields: dict[str, Any]) -> type[M]:
    definitions: dict[str, Any] = {
        key: spec if isinstance(spec, tuple) else (spec, _redeclared(model.model_fields[key]))
        for key, spec in fields.items()
    }
    special = cast("type[M]", create_model(name, __base__=model, **definitions))
    for key in without:
        if special.model_fields[key].is_required():
            raise TypeError(f"{name}: a field left out ({key}) needs a default")
    special.omitted_fields = frozenset(model.omitted_fields | set(without))
    return special


def _redeclared(info: FieldInfo) -> Any:
    """A field's declaration without its type (whose bounds and coercions the new type brings)."""
    extra = info.json_schema_extra if isinstance(info.json_schema_extra, dict) else None
    common: dict[str, Any] = {
        "description": info.description,
        "validation_alias": info.validation_alias,
        "json_schema_extra": extra,
        "validate_default": info.validate_default,
    }
    if info.default_factory is not None:
        return Field(default_factory=info.default_factory, **common)
    return Field(info.default, **common)


def field_keys(model: type[ReplyModel], name: str) -> tuple[str, ...]:
    """The keys a reply may give field `name` under: its name, then its aliases."""
    return (name, *_aliases(model.model_fields[name]))


def shown_fields(model: type[ReplyModel]) -> dict[str, FieldInfo]:
    """The fields a judge is asked for, in order: the declared ones less those left out."""
    return {k: v for k, v in model.model_fields.items() if k not in model.omitted_fields}


def bound_of(metadata: Sequence[Any]) -> Bound:
    """The bounds the metadata sets, a later `Bound` overriding what an earlier one set.

    Where the parser itself checks a length (`Field(max_length=...)`, `Field(min_length=...)` on a list),
    the schema asks for the same unless a `Bound` says otherwise. A text's own minimum is not sent: the
    parser refuses an empty text with its reason (`Bound(min_length=...)` asks a grammar for one).
    """
    checked: dict[str, Any] = {}
    flat = [c for m in metadata for c in (m.metadata if isinstance(m, FieldInfo) else [m])]
    for m in flat:
        if isinstance(m, annotated_types.MaxLen):
            checked.update(max_length=m.max_length, max_items=m.max_length)
        elif isinstance(m, annotated_types.MinLen):
            checked.update(min_items=m.min_length)
    merged: dict[str, Any] = {}
    for m in metadata:
        if isinstance(m, Bound):
            merged.update({k: v for k, v in vars(m).items() if v != getattr(Bound(), k)})
    return Bound(**{**checked, **merged})


def unwrap(annotation: Any, bound: Bound) -> tuple[Any, Bound]:
    """The bare type under `Annotated[...]` and `X | None`, and the bound its metadata gives."""
    while True:
        if get_origin(annotation) is Annotated:
            base, *meta = get_args(annotation)
            found = bound_of(meta)
            bound = bound if bound != Bound() else found
            annotation = base
        elif get_origin(annotation) in (Union, types.UnionType):
            annotation = next(a for a in get_args(annotation) if a is not type(None))
        else:
            return annotation, bound

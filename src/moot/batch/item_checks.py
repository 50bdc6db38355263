"""What an items file's line may hold, checked when the file is loaded, before any call: every field's
type against the protocol function's own signature, the same size limit on text as `--solution` has, no
nesting deeper than any argument needs, no NaN or Infinity, no integer too long to be an id.

Each problem is one line naming the file, the line and the field. The JSON reader (`json_line`) marks
what JSON itself does not allow (NaN, a number of thousands of digits) instead of failing on it, so that
the message can name the field that holds it.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from pydantic import ConfigDict, TypeAdapter, ValidationError

from moot.errors import UsageError
from moot.inputs import MAX_ARTIFACT_BYTES

MAX_DEPTH = 32  # an item's deepest argument (a rubric's criteria, a decision's options) needs 4
MAX_INT_DIGITS = 30  # an id or a count; Python refuses past 4,300 digits with a message about itself


class NotJson:
    """A value JSON does not allow, as the line wrote it: named by the field check."""

    def __init__(self, what: str) -> None:
        self.what = what


def _constant(name: str) -> NotJson:
    return NotJson(f"{name} (not a number JSON allows)")


def _integer(digits: str) -> int | NotJson:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        return NotJson(f"a number of {len(digits.lstrip('-')):,} digits (at most {MAX_INT_DIGITS})")
    return int(digits)


def json_line(raw: str, where: str) -> Any:
    """One line of a JSONL file; bad JSON and nesting too deep for the parser are one line naming it."""
    try:
        return json.loads(raw, parse_constant=_constant, parse_int=_integer)
    except RecursionError:
        raise UsageError(f"{where}: nested too deeply (more than {MAX_DEPTH} levels)") from None
    except ValueError as e:
        raise UsageError(f"{where}: not valid JSON ({e})") from None


def check_values(data: Mapping[str, Any], where: str) -> None:
    """Every field: no NaN, no overlong number, no text over the size limit, no nesting past MAX_DEPTH."""
    for name, value in data.items():
        stack: list[tuple[Any, int]] = [(value, 1)]
        while stack:
            node, depth = stack.pop()
            problem = _problem(node, depth)
            if problem:
                raise UsageError(f"{where}: field {name!r}: {problem}")
            if isinstance(node, Mapping):
                stack.extend((v, depth + 1) for v in node.values())
            elif isinstance(node, list):
                stack.extend((v, depth + 1) for v in node)


def _problem(node: Any, depth: int) -> str | None:
    if depth > MAX_DEPTH:
        return f"nested more than {MAX_DEPTH} levels deep"
    if isinstance(node, NotJson):
        return node.what
    if isinstance(node, str) and len(node) > MAX_ARTIFACT_BYTES // 4 and _utf8_size(node) > MAX_ARTIFACT_BYTES:
        return f"text larger than {MAX_ARTIFACT_BYTES // 1_000_000} MB (the limit --solution has for a file)"
    return None


def _utf8_size(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def check_types(
    protocol: str,
    fn: Callable[..., Any],
    arguments: Mapping[str, Any],
    where: str,
    rounds_limit: tuple[int, str] | None = None,
) -> None:
    """Each argument against the protocol function's annotation, strictly (JSON's "3" is no integer, 2.0
    no round count), then the rounds against what the protocol has (`rounds_limit`: its SPEC's
    MAX_ROUNDS and ROUNDS)."""
    adapters = _adapters(fn)
    for name, value in arguments.items():
        adapter = adapters.get(name)
        if adapter is None:
            continue
        try:
            adapter.validate_python(value, strict=True)
        except ValidationError as e:
            raise UsageError(f"{where}: field {name!r}: {_first(e, value)}") from None
    rounds = arguments.get("max_rounds")
    if rounds_limit is not None and isinstance(rounds, int):
        from moot.protocol.panel import check_rounds

        most, kinds = rounds_limit
        check_rounds(rounds, most, kinds, protocol=protocol, where=f"{where}: field 'max_rounds'")


def _first(e: ValidationError, value: Any) -> str:
    """Pydantic's first complaint, in one line, with what the line held."""
    errors = e.errors()
    simple = [err for err in errors if len(err["loc"]) <= 1] or errors
    err = simple[0]
    msg = str(err["msg"]).removeprefix("Value error, ")
    if isinstance(value, NotJson):
        return value.what
    shown = json.dumps(value, default=str)
    shown = shown if len(shown) <= 40 else shown[:37] + "..."
    if len(simple) > 1 and all(len(x["loc"]) <= 1 for x in simple):
        msg = "one of: " + "; ".join(dict.fromkeys(str(x["msg"]) for x in simple))
    return f"{msg} (got {shown})"


@cache
def _adapters(fn: Callable[..., Any]) -> dict[str, TypeAdapter[Any]]:
    hints = typing.get_type_hints(fn)
    config = ConfigDict(arbitrary_types_allowed=True)
    return {name: TypeAdapter(hint, config=config) for name, hint in hints.items() if name != "return"}

"""ITEMS.jsonl: one debate per line, as the protocol function's own arguments, read and checked whole
before any call. A line that is not a JSON object, a repeated or missing id, a missing required field,
an argument the protocol does not take, or a path that does not exist is bad input naming its line.

Relative paths (`judges`, and the input files and output folders the protocol's SPEC names in its
`batch`: `solution`, `context` files, `debate_context`, ...) mean the same wherever the batch runs from:
they resolve against the items file's own folder. What each protocol's items must hold, and what an item
may write inline, its SPEC says too; the batch names no protocol. What is left for the protocol to check
(a score out of range, a stance without guidance) fails that one item, not the batch.
"""

from __future__ import annotations

import glob
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moot.batch.item_checks import NotJson, check_types, check_values, json_line
from moot.errors import UsageError
from moot.inputs import MAX_ARTIFACT_BYTES, file_kind, numbered_items, read_text_file
from moot.protocol.spec import ProtocolSpec
from moot.protocols import names, spec_for
from moot.schemas.safe_text import lone_surrogate_at

# the API's own arguments a batch sets itself, or sets for the whole batch (`--max-cost`, the store)
_NOT_PER_ITEM = {"store", "on_event", "max_cost"}


@dataclass(frozen=True)
class BatchItem:
    """One line of the items file: the protocol function's arguments in the API's names, paths resolved."""

    id: str
    given_id: str | int  # as written in the file, for RESULTS.jsonl
    line: int
    arguments: dict[str, Any]
    judges: str | list[Any] | None = None  # the item's own judges (a resolved path, or inline specs)


def batch_spec(protocol: str) -> ProtocolSpec:
    """The protocol's SPEC, from the registry; a name it does not list is bad input naming the option."""
    if protocol not in names():
        raise UsageError(f"--protocol must be one of {', '.join(names())} (got {protocol!r})")
    return spec_for(protocol)


def api_function(protocol: str) -> Callable[..., Any]:
    """The protocol's public function (the export under its own name): an item holds its arguments."""
    fn: Callable[..., Any] = batch_spec(protocol).exports[protocol]
    return fn


def item_fields(protocol: str) -> set[str]:
    """Every key an item of this protocol may hold."""
    known = set(inspect.signature(api_function(protocol)).parameters) - _NOT_PER_ITEM
    return known | {"id"} | batch_spec(protocol).batch.extra_fields


def load_items(path: str | Path, protocol: str) -> list[BatchItem]:
    """Every item of the file, checked. Raises UsageError naming the first bad line."""
    source = Path(path)
    text = read_text_file(source, "items file")
    allowed = item_fields(protocol)
    base = source.resolve().parent
    return numbered_items(
        text.splitlines(),
        lambda raw, n: _item(_object(raw, source, n), protocol, allowed, base, f"{source} line {n}", n),
        id_of=lambda item: item.given_id,
        where=lambda n: f"{source} line {n}",
        empty=f"items file {source} holds no items (one JSON object per line)",
    )


def _object(raw: str, source: Path, n: int) -> dict[str, Any]:
    data = json_line(raw, f"{source} line {n}")
    if not isinstance(data, dict):
        raise UsageError(f"{source} line {n}: each line must be a JSON object, not {type(data).__name__}")
    where = lone_surrogate_at(data)
    if where is not None:
        raise UsageError(f"{source} line {n}: '{where}' is not valid text (an unpaired \\ud800-\\udfff escape)")
    return data


def _item(data: dict[str, Any], protocol: str, allowed: set[str], base: Path, where: str, n: int) -> BatchItem:
    unknown = sorted(set(data) - allowed)
    if unknown:
        known = ", ".join(sorted(allowed))
        raise UsageError(f"{where}: unknown argument {unknown[0]!r} for {protocol} (known: {known})")
    given = data.get("id")
    if isinstance(given, NotJson):
        raise UsageError(f"{where}: field 'id': {given.what}: use a string or a shorter integer")
    if isinstance(given, bool) or not isinstance(given, str | int) or (isinstance(given, str) and not given.strip()):
        raise UsageError(f"{where}: every item needs an 'id' (a non-empty string or an integer)")
    check_values(data, where)
    batch = batch_spec(protocol).batch
    if batch.required is not None:
        batch.required(data, where)
    else:
        _required(data, protocol, where)
    arguments = {**batch.defaults, **{k: v for k, v in data.items() if k not in ("id", "judges")}}
    for name in batch.input_paths:
        if name in arguments and not (batch.inline_inputs and isinstance(arguments[name], Mapping)):
            arguments[name] = _inputs(arguments[name], base, f"{where}: {name}")
    for name in batch.output_paths:
        if isinstance(arguments.get(name), str):
            arguments[name] = str(base / Path(arguments[name]).expanduser())
    if batch.arguments is not None:
        arguments = batch.arguments(arguments, str(given), base, where)
    check_types(protocol, api_function(protocol), arguments, where, batch.rounds)
    return BatchItem(str(given), given, n, arguments, _judges(data.get("judges"), base, where))


def _required(data: Mapping[str, Any], protocol: str, where: str) -> None:
    """A protocol that says nothing of its items (a plugin) needs each argument its function has no
    default for."""
    for name, param in inspect.signature(api_function(protocol)).parameters.items():
        variadic = param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD)
        needed = param.default is inspect.Parameter.empty and not variadic and name not in _NOT_PER_ITEM
        if needed and data.get(name) is None:
            raise UsageError(f"{where}: a {protocol} item needs {name!r}")


def _inputs(value: Any, base: Path, where: str) -> str | list[str]:
    """A path, a glob or a list of them, resolved against the items file's folder; each must match."""
    values = [value] if isinstance(value, str) else value
    if not isinstance(values, list) or not values or not all(isinstance(v, str) and v for v in values):
        raise UsageError(f"{where}: expected a path or a list of paths")
    resolved = []
    for v in values:
        full = str(base / Path(v).expanduser())
        if any(ch in v for ch in "*?["):
            if not glob.glob(full, recursive=True):  # noqa: PTH207 - user globs may use **
                raise UsageError(f"{where}: no file matches {v}")
        else:
            _existing(Path(full), v, where)
        resolved.append(full)
    return resolved[0] if isinstance(value, str) else resolved


def _existing(path: Path, given: str, where: str) -> None:
    """A file or folder an item names: there, a regular file or a folder, and a file within the limit."""
    if not path.exists():
        raise UsageError(f"{where}: no such file: {given}")
    if path.is_dir():
        return
    kind = file_kind(path)
    if kind:
        raise UsageError(f"{where}: {given} is {kind}, not a file")
    if path.stat().st_size > MAX_ARTIFACT_BYTES:
        raise UsageError(f"{where}: {given} is larger than {MAX_ARTIFACT_BYTES // 1_000_000} MB")


def _judges(value: Any, base: Path, where: str) -> str | list[Any] | None:
    if value is None:
        return None
    if isinstance(value, list):
        return value
    if not isinstance(value, str) or not value:
        raise UsageError(f"{where}: 'judges' must be a judges file's path (or a list of judges)")
    path = base / Path(value).expanduser()
    if not path.is_file():
        raise UsageError(f"{where}: no such judges file: {value}")
    return str(path)

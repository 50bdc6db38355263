"""ITEMS.jsonl: one debate per line, as the protocol function's own arguments, read and checked whole
before any call. A line that is not a JSON object, a repeated or missing id, a missing required field,
an argument the protocol does not take, or a path that does not exist is bad input naming its line.

Relative paths (`solution`, `judges`, `context` files, `debate_context`, output folders) mean the same
wherever the batch runs from: they resolve against the items file's own folder. What is left for the
protocol to check (a score out of range, a stance without guidance) fails that one item, not the batch.
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
from moot.schemas.safe_text import lone_surrogate_at

PROTOCOLS = ("evaluate", "decide", "challenge")
# the API's own arguments a batch sets itself, or sets for the whole batch (`--max-cost`, the store)
_NOT_PER_ITEM = {"store", "on_event", "max_cost"}
# thousands of debates writing report files into the working folder would surprise: the store keeps
# everything (`moot show`, `moot report`), and an item may still ask for files
BATCH_DEFAULTS: dict[str, dict[str, Any]] = {"evaluate": {"reports_dir": None}, "decide": {"write_files": False}}
# arguments naming files that must exist, per protocol; and folders written to
_INPUT_PATHS = {"evaluate": ("solution",), "decide": ("debate_context",), "challenge": ("context",)}
_OUTPUT_PATHS = {"evaluate": ("reports_dir",), "decide": ("feature_dir",), "challenge": ()}
_EXTRA_FIELDS = {"evaluate": {"artifact"}, "decide": set(), "challenge": set()}


@dataclass(frozen=True)
class BatchItem:
    """One line of the items file: the protocol function's arguments in the API's names, paths resolved."""

    id: str
    given_id: str | int  # as written in the file, for RESULTS.jsonl
    line: int
    arguments: dict[str, Any]
    judges: str | list[Any] | None = None  # the item's own judges (a resolved path, or inline specs)


def api_function(protocol: str) -> Callable[..., Any]:
    from moot import api

    if protocol not in PROTOCOLS:
        raise UsageError(f"--protocol must be one of {', '.join(PROTOCOLS)} (got {protocol!r})")
    fn: Callable[..., Any] = getattr(api, protocol)
    return fn


def item_fields(protocol: str) -> set[str]:
    """Every key an item of this protocol may hold."""
    names = set(inspect.signature(api_function(protocol)).parameters) - _NOT_PER_ITEM
    return names | {"id"} | _EXTRA_FIELDS[protocol]


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
    _required(data, protocol, where)
    arguments = {**BATCH_DEFAULTS.get(protocol, {}), **{k: v for k, v in data.items() if k not in ("id", "judges")}}
    for name in _INPUT_PATHS[protocol]:
        if name in arguments and not (protocol == "decide" and isinstance(arguments[name], Mapping)):
            arguments[name] = _inputs(arguments[name], base, f"{where}: {name}")
    for name in _OUTPUT_PATHS[protocol]:
        if isinstance(arguments.get(name), str):
            arguments[name] = str(base / Path(arguments[name]).expanduser())
    if protocol == "evaluate":
        arguments = _evaluate_arguments(arguments, str(given), base, where)
    if protocol == "decide" and "options" in arguments:
        arguments["options"] = _options(arguments["options"], where)
    check_types(protocol, api_function(protocol), arguments, where)
    return BatchItem(str(given), given, n, arguments, _judges(data.get("judges"), base, where))


def _required(data: Mapping[str, Any], protocol: str, where: str) -> None:
    if protocol == "evaluate":
        given = [k for k in ("solution", "artifact", "artifacts") if data.get(k) not in (None, "", [])]
        if not given:
            raise UsageError(f"{where}: an evaluate item needs 'solution' (paths) or 'artifact' (inline text)")
        if len(given) > 1:
            raise UsageError(f"{where}: give one of {' or '.join(repr(k) for k in given)}, not both")
    elif protocol == "decide":
        if data.get("debate_context") is None:
            for key in ("question", "options"):
                if not data.get(key):
                    raise UsageError(f"{where}: a decide item needs '{key}' (or a 'debate_context')")
    elif not isinstance(data.get("topic"), str) or not data["topic"].strip():
        raise UsageError(f"{where}: a challenge item needs 'topic' (the position or question, as text)")


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


def _evaluate_arguments(arguments: dict[str, Any], item_id: str, base: Path, where: str) -> dict[str, Any]:
    """`artifact` (inline text) and `artifacts` (a list of {path, text}) become the API's artifacts; a
    criteria rubric file beside the items file is found there."""
    from pydantic import ValidationError

    from moot.inputs import validation_message
    from moot.schemas.config import Artifact

    out = dict(arguments)
    inline = out.pop("artifact", None)
    if inline is not None:
        if not isinstance(inline, str):
            raise UsageError(f"{where}: 'artifact' must be the artifact's text")
        out["artifacts"] = [Artifact(path=item_id, text=inline)]
    elif "artifacts" in out:
        try:
            out["artifacts"] = [Artifact.model_validate(a) for a in out["artifacts"]]
        except (ValidationError, TypeError) as e:
            message = validation_message(e, "artifacts") if isinstance(e, ValidationError) else str(e)
            raise UsageError(f"{where}: {message}") from None
    criteria = out.get("criteria")
    if isinstance(criteria, str) and (base / criteria).is_file():
        out["criteria"] = str(base / criteria)
    return out


def _options(value: Any, where: str) -> list[Any]:
    """Options as an object mapping id to text (or to {label, description}), or the API's own list."""
    if isinstance(value, Mapping):
        return [{"id": str(k), **(dict(v) if isinstance(v, Mapping) else {"label": v})} for k, v in value.items()]
    if isinstance(value, list):
        return value
    raise UsageError(f"{where}: 'options' must be an object mapping id to text, or a list of options")


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

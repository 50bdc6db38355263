"""Find the YAML or JSON mapping in a judge's reply, tolerating fences and prose around it.

Replies are untrusted text: they are parsed with `json.loads` and `yaml.safe_load` only, never evaluated.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import yaml

_FENCE = re.compile(r"(`{3,}|~{3,})[ \t]*([A-Za-z0-9_+-]*)[^\n]*\n(.*?)\n?\1", re.DOTALL)
_MAX_REPLY = 2_000_000
# libyaml's safe loader when PyYAML was built with it (its wheels are): the same safe constructors, about
# ten times faster than the pure-Python one, which was the largest CPU cost of a debate
_SAFE_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class ReplyError(ValueError):
    """A reply that cannot be used. The message is phrased for the judge, to ask for a corrected reply."""


def _candidates(text: str) -> Iterator[str]:
    fenced = list(_FENCE.finditer(text))
    # Prefer fences marked yaml/json, then any fence, last one first (models put the answer at the end).
    for m in sorted(fenced, key=lambda m: (m.group(2).lower() not in ("yaml", "yml", "json"), -m.start())):
        yield m.group(3)
    stripped = text.strip()
    yield stripped
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        yield stripped[start : end + 1]
    # YAML after a line of prose: from the first line that looks like "key: value".
    line = re.search(r"^[A-Za-z_][\w-]*:\s", stripped, re.MULTILINE)
    if line and line.start() > 0:
        yield stripped[line.start() :]


def _load(block: str) -> Any:
    block = block.strip()
    if not block:
        return None
    if block[0] in "{[":
        try:
            return json.loads(block)
        except ValueError:
            pass
    try:
        return yaml.load(block, Loader=_SAFE_LOADER)  # noqa: S506 - a safe loader (libyaml's CSafeLoader)
    except yaml.YAMLError:
        return None


def extract_mapping(text: str, *, required_any: tuple[str, ...] = ()) -> dict[str, Any]:
    """The first mapping found in `text` (that has one of `required_any`, when given).

    Raises ReplyError when the reply holds no YAML or JSON mapping at all.
    """
    if len(text) > _MAX_REPLY:
        text = text[:_MAX_REPLY]
    first: dict[str, Any] | None = None
    for block in _candidates(text):
        data = _load(block)
        if isinstance(data, dict) and data:
            data = {str(k).strip().lower(): v for k, v in data.items()}
            if not required_any or any(k in data for k in required_any):
                return data
            if first is None:
                first = data
    if first is not None:
        return first
    if not text.strip():
        raise ReplyError("the reply was empty")
    raise ReplyError("the reply has no YAML or JSON block that could be read")


def as_text(value: Any) -> str:
    """A field that should be prose, whatever shape the model gave it."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return "\n".join(f"- {as_text(v)}" for v in value)
    if isinstance(value, dict):
        return "\n".join(f"{k}: {as_text(v)}" for k, v in value.items())
    return str(value)


def as_list(value: Any) -> list[Any]:
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return value
    return [value]


_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:/\s*5(?:\.0)?)?\s*$")


def as_score(value: Any, what: str) -> float:
    """A 1-5 score. Accepts 4, 4.5, "4.5", "4/5". Raises ReplyError naming `what` otherwise."""
    if isinstance(value, bool):
        raise ReplyError(f"{what} must be a number from 1 to 5, not {value!r}")
    if isinstance(value, int | float):
        score = float(value)
    elif isinstance(value, str) and (m := _NUMBER.match(value)):
        score = float(m.group(1))
    else:
        raise ReplyError(f"{what} must be a number from 1 to 5, not {value!r}")
    if not 1.0 <= score <= 5.0:
        raise ReplyError(f"{what} is {score:g}, outside the 1-5 scale")
    return score


def as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        v = value.strip().lower()
        if v in ("true", "yes", "y"):
            return True
        if v in ("false", "no", "n"):
            return False
    return None

"""Printing results: one JSON/YAML object on stdout and nothing else there; progress goes to stderr."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel

from moot.errors import UsageError
from moot.reports.serialize import to_json, to_yaml

FORMATS = ("text", "json", "yaml")

# protocol name -> text renderer for its result; each protocol's CLI module registers its own
TEXT_RENDERERS: dict[str, Callable[[dict[str, Any]], str]] = {}


def check_format(fmt: str, allowed: tuple[str, ...] = FORMATS) -> str:
    if fmt not in allowed:
        raise UsageError(f"--format must be one of {', '.join(allowed)} (got {fmt!r})")
    return fmt


def render_result(protocol: str, result: BaseModel | dict[str, Any], fmt: str) -> str:
    data = result.model_dump(mode="json") if isinstance(result, BaseModel) else result
    if fmt == "json":
        return to_json(data)
    if fmt == "yaml":
        return to_yaml(data)
    renderer = TEXT_RENDERERS.get(protocol)
    return renderer(data) if renderer else to_yaml(data)


def emit(text: str) -> None:
    sys.stdout.write(text)
    sys.stdout.flush()

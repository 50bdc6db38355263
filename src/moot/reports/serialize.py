"""JSON and YAML forms of any result model (what `--format json|yaml` prints)."""

from __future__ import annotations

import json
import re
from typing import Any

import yaml
from pydantic import BaseModel


def to_data(result: BaseModel | dict[str, Any]) -> dict[str, Any]:
    return result.model_dump(mode="json") if isinstance(result, BaseModel) else result


# json.dumps escapes C0 controls but writes DEL, C1 controls and lone surrogates as they are
_RAW = re.compile("[\x7f-\x9f\ud800-\udfff]")


def json_inert(text: str) -> str:
    """JSON text that is inert at a terminal and in a CI log, with the same value: DEL, C1 controls and lone
    surrogates written as `\\uXXXX`, and `##[` (an old-style GitHub workflow command anywhere in a line) as
    `\\u0023#[`. JSON has `#` only inside strings, so this never touches its structure."""
    text = _RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text.replace("##[", "\\u0023#[")


def to_json(result: BaseModel | dict[str, Any]) -> str:
    return json_inert(json.dumps(to_data(result), indent=2, ensure_ascii=False)) + "\n"


class _Dumper(yaml.SafeDumper):
    pass


def _str_presenter(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str_presenter)


def to_yaml(result: BaseModel | dict[str, Any]) -> str:
    return yaml.dump(to_data(result), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)

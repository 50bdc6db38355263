"""JSON and YAML forms of any result model (what `--format json|yaml` prints)."""

from __future__ import annotations

import json
from typing import Any

import yaml
from pydantic import BaseModel


def to_data(result: BaseModel | dict[str, Any]) -> dict[str, Any]:
    return result.model_dump(mode="json") if isinstance(result, BaseModel) else result


def to_json(result: BaseModel | dict[str, Any]) -> str:
    return json.dumps(to_data(result), indent=2, ensure_ascii=False) + "\n"


class _Dumper(yaml.SafeDumper):
    pass


def _str_presenter(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    style = "|" if "\n" in data else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_Dumper.add_representer(str, _str_presenter)


def to_yaml(result: BaseModel | dict[str, Any]) -> str:
    return yaml.dump(to_data(result), Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)

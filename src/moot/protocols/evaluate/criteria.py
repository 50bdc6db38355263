"""evaluate's weighted criteria (seed 003's `name:weight,...` and its rubrics, seed 000's plan dimensions):
what `--criteria` takes, read here rather than by the kernel."""

from __future__ import annotations

import difflib
import functools
import importlib.resources
import math
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict

from moot.inputs import load_yaml_file
from moot.protocol import UsageError


class Criterion(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    weight: float  # normalised: the weights of a rubric sum to 1
    description: str = ""

    @property
    def key(self) -> str:
        return criterion_key(self.name)


def criterion_key(name: str) -> str:
    """The form judges are asked to use as a YAML key: 'Design Quality' -> 'design_quality'."""
    return re.sub(r"[^a-z0-9]+", "_", name.strip().lower()).strip("_")


@functools.cache
def _builtin_rubrics() -> dict[str, tuple[Criterion, ...]]:
    """The rubrics moot ships (`--criteria code`), read from its data files in the form a user's own
    rubric file takes, so that each doubles as an example of it."""
    folder = importlib.resources.files("moot.schemas") / "rubrics"  # where moot has always shipped them
    return {
        f.name.removesuffix(".yaml"): tuple(parse_rubric_data(yaml.safe_load(f.read_text(encoding="utf-8"))))
        for f in folder.iterdir()
        if f.name.endswith(".yaml")
    }


def normalise(raw: list[tuple[str, Any, str]]) -> list[Criterion]:
    """Check names and weights and scale the weights to sum to 1. Raises ValueError naming the problem."""
    if not raw:
        raise ValueError("no criteria given")
    seen: set[str] = set()
    weights: list[float] = []
    for name, weight, _ in raw:
        key = criterion_key(str(name))
        if not key:
            raise ValueError(f"criterion name {name!r} is empty")
        if key in seen:
            raise ValueError(f"criterion {name!r} is given twice")
        seen.add(key)
        try:
            w = float(weight)
        except (TypeError, ValueError):
            raise ValueError(f"criterion {name!r}: weight {weight!r} is not a number") from None
        if not math.isfinite(w) or w <= 0:
            raise ValueError(f"criterion {name!r}: weight {weight!r} must be a positive number")
        weights.append(w)
    total = sum(weights)
    return [
        Criterion(name=str(name).strip(), weight=w / total, description=str(desc or ""))
        for (name, _, desc), w in zip(raw, weights, strict=True)
    ]


def parse_criteria_string(text: str) -> list[Criterion]:
    """Parse seed 003's `correctness:30,design:25,...` form, or the name of a built-in rubric."""
    text = text.strip()
    if text.lower() in _builtin_rubrics():  # `Code` is the code rubric: a name, not a criterion
        return list(_builtin_rubrics()[text.lower()])
    raw: list[tuple[str, Any, str]] = []
    for part in text.split(","):
        if not part.strip():
            continue
        name, sep, weight = part.partition(":")
        if not sep:
            raise ValueError(f"criterion {part.strip()!r} has no weight ({_expected(text)})")
        raw.append((name.strip(), weight.strip(), ""))
    return normalise(raw)


def _expected(text: str) -> str:
    """What `--criteria` takes; for one bare word (`docs`), the built-in rubric nearest to it, if any."""
    names = sorted(_builtin_rubrics())
    said = f"expected name:weight, or a built-in rubric: {', '.join(names)}"
    if "," in text or ":" in text:
        return said
    word = text.lower()
    near = [n for n in names if n.startswith(word[:3]) and len(word) >= 3]
    near = near or difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    return f"{said}; did you mean '{near[0]}'?" if near else said


def parse_rubric_data(data: Any) -> list[Criterion]:
    """Parse a rubric loaded from YAML: a list of {name, weight, description}, or a mapping name -> weight
    or name -> {weight, description}, optionally under a top-level `criteria:` or `dimensions:` key."""
    if isinstance(data, dict):
        for key in ("criteria", "dimensions", "rubric", "evaluation_criteria"):
            if key in data:
                data = data[key]
                break
    raw: list[tuple[str, Any, str]] = []
    if isinstance(data, list):
        for i, item in enumerate(data, 1):
            if not isinstance(item, dict) or "name" not in item or "weight" not in item:
                raise ValueError(f"rubric entry {i} needs 'name' and 'weight'")
            raw.append((str(item["name"]), item["weight"], str(item.get("description", ""))))
    elif isinstance(data, dict):
        for name, value in data.items():
            if isinstance(value, dict):
                if "weight" not in value:
                    raise ValueError(f"rubric entry {name!r} needs a 'weight'")
                raw.append((str(name), value["weight"], str(value.get("description", ""))))
            else:
                raw.append((str(name), value, ""))
    else:
        raise ValueError("a rubric file must hold a list or a mapping of criteria")
    return normalise(raw)


def load_criteria(value: str) -> list[Criterion]:
    """`name:weight,...`, a built-in rubric name (code, design, documentation, plan), or a YAML file."""
    if not value or not value.strip():
        raise UsageError("--criteria is empty")
    p = Path(value)
    try:
        if p.suffix.lower() in (".yaml", ".yml", ".json") or (p.exists() and p.is_file()):
            return parse_rubric_data(load_yaml_file(p, "rubric file"))
        return parse_criteria_string(value)
    except ValueError as e:
        raise UsageError(f"--criteria: {e}") from None

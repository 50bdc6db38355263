"""The panel a bench runs with: the user's judges file, plus what grading gold-labelled pairs needs.

Pairwise items ask which of two responses is correct, and go to the protocol whose SPEC takes that role
(`bench.kind == "pairwise"`; decide). It gives a judge without a stance of its own one of Risk, Value and
Effort: stances for choosing what to build, not for grading answers. So here each such judge gets the
neutral correctness stance, and the bench writes that panel beside its items; the batch runs (and resumes)
with it. A judge whose stance the judges file sets keeps it, except `neutral`, which means the same (an
explicit `neutral` is the default written out). The role supplies the default judge model and checks the
debate settings.

With two options and three judges, seed 002's 2/3 threshold is always met in round 1, and the debate
would always equal the vote: pairwise debates need unanimity (1.0) unless the judges file's
`debate_config` sets a threshold.

Scored items go to the scored role's protocol (evaluate) with the judges file as it is.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from moot.bench.cache import write_atomic
from moot.bench.roles import bench_role
from moot.errors import UsageError
from moot.inputs import validation_message
from moot.panel_file import PanelFile
from moot.protocol.panel import judge_spec, load_panel
from moot.protocol.spec import BenchRole
from moot.schemas.bench import SuiteKind
from moot.schemas.config import JudgeSpec

STANCE = "correctness"
STANCE_PROMPT = (
    "Neutral: decide which response answers the question correctly. Work the question out yourself and check "
    "each response's reasoning and final answer against it; length, tone and confidence are not evidence. "
    "Recommend the correct response."
)
UNANIMITY = 1.0
FILE_NAME = "judges.yaml"
_RUN_SETTINGS = ("limits", "pricing", "retry", "budget")  # carried over; they do not change what a judge says


@dataclass(frozen=True)
class BenchPanel:
    """`text`: the bench's own judges file (pairwise), or None to run with `source` as it is."""

    source: str | None  # the judges file in effect (given, or the project's); None: moot's built-in lineup
    text: str | None
    debate_config: dict[str, Any]  # decide's settings for every pairwise item, the threshold included
    threshold: float | None
    threshold_from_file: bool
    digest: str  # what the judges say depends on (models, stances, settings; not api_base): the run folder's name

    def write(self, folder: Path) -> str | None:
        """The judges file the batch runs with."""
        if self.text is None:
            return self.source
        path = folder / FILE_NAME
        write_atomic(path, self.text.encode("utf-8"))
        return str(path)


def bench_panel(judges: str | Path | None, kind: SuiteKind) -> BenchPanel:
    """The panel for a suite of `kind`, checked before any call (bad input raises UsageError)."""
    if judges is not None and not Path(judges).is_file():
        raise UsageError(f"no such judges file: {judges}")
    panel, listed = load_panel(str(judges) if judges is not None else None)
    source = str(Path(panel.path).resolve()) if panel is not None and panel.path else None
    if kind == "scored":
        data = (
            _without_keys(panel.settings_dump(exclude=set(_RUN_SETTINGS))) if panel is not None else "built-in lineup"
        )
        return BenchPanel(source, None, {}, None, False, _digest(kind, data))
    role = bench_role(kind)
    entries: list[Any] = list(listed) if listed is not None else [{"model": role.default_model}] * 3  # a file's specs
    specs = [_graded(judge_spec(e, f"judge {n}"), n, source) for n, e in enumerate(entries, 1)]
    config, from_file = _config(panel, role)
    text = yaml.safe_dump(_file(specs, panel), sort_keys=False, allow_unicode=True)
    judged = {"judges": [_without_keys(s.model_dump(mode="json", exclude_unset=True)) for s in specs], "config": config}
    return BenchPanel(source, text, config, config["consensus_threshold"], from_file, _digest(kind, judged))


def _graded(spec: JudgeSpec, n: int, source: str | None) -> JudgeSpec:
    if spec.api_key:
        where = f"judges file {source}" if source else "the judges"
        raise UsageError(
            f"{where}: judge {n} ({spec.label}) holds its api_key in the file; moot bench writes its panel "
            "beside its items, so name the key with api_key_env instead"
        )
    if "stance" in spec.model_fields_set and spec.stance != "neutral":
        return spec  # an explicit `neutral` means what no stance means (docs/bench.md): correctness
    return spec.model_copy(update={"stance": STANCE, "stance_prompt": spec.stance_prompt or STANCE_PROMPT})


def _config(panel: PanelFile | None, role: BenchRole) -> tuple[dict[str, Any], bool]:
    config = dict(panel.setting("debate_config") or {}) if panel is not None else {}
    from_file = "consensus_threshold" in config
    config.setdefault("consensus_threshold", UNANIMITY)
    try:
        if role.check_config is not None:
            role.check_config(config)
    except ValidationError as e:
        where = f"judges file {panel.path}: debate_config" if panel is not None else "debate_config"
        raise UsageError(validation_message(e, where)) from None
    return config, from_file


def _file(specs: list[JudgeSpec], panel: PanelFile | None) -> dict[str, Any]:
    data: dict[str, Any] = {"debate_judges": [s.model_dump(mode="json", exclude_unset=True) for s in specs]}
    for key in _RUN_SETTINGS:
        value = getattr(panel, key) if panel is not None else None
        if value:
            data[key] = value
    return data


_NOT_IN_KEY = ("api_key", "api_base")  # where a judge is served is not what it says: a new port reruns nothing


def _without_keys(data: Any) -> Any:
    """`data` without keys and endpoints, for the digest the run folder is named after (the model stays)."""
    if isinstance(data, dict):
        return {k: _without_keys(v) for k, v in data.items() if k not in _NOT_IN_KEY}
    if isinstance(data, list):
        return [_without_keys(v) for v in data]
    return data


def _digest(kind: str, data: Any) -> str:
    text = json.dumps([kind, data], sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]

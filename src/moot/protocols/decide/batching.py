"""How `moot batch` and `moot bench` read a decide item: a debate context as a file or inline, options as
an object, and the pairwise suites the bench runs with it (each judge graded for correctness)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from moot.engine.spec import BatchSpec, BenchRole
from moot.errors import UsageError
from moot.protocols.decide.schemas import DebateConfig
from moot.protocols.decide.stances import DEFAULT_MODEL


def _required(data: Mapping[str, Any], where: str) -> None:
    if data.get("debate_context") is None:
        for key in ("question", "options"):
            if not data.get(key):
                raise UsageError(f"{where}: a decide item needs '{key}' (or a 'debate_context')")


def _arguments(arguments: dict[str, Any], item_id: str, base: Path, where: str) -> dict[str, Any]:
    """Options as an object mapping id to text (or to {label, description}), or the API's own list."""
    if "options" not in arguments:
        return arguments
    value = arguments["options"]
    if isinstance(value, Mapping):
        options = [{"id": str(k), **(dict(v) if isinstance(v, Mapping) else {"label": v})} for k, v in value.items()]
        return {**arguments, "options": options}
    if isinstance(value, list):
        return arguments
    raise UsageError(f"{where}: 'options' must be an object mapping id to text, or a list of options")


def _check_config(config: Mapping[str, Any]) -> None:
    DebateConfig.model_validate(config)


BATCH = BatchSpec(
    input_paths=("debate_context",),
    inline_inputs=True,  # a debate context may be the mapping itself
    output_paths=("feature_dir",),
    defaults={"write_files": False},  # the store keeps every decision; an item may still ask for files
    required=_required,
    arguments=_arguments,
)
BENCH = BenchRole("pairwise", default_model=DEFAULT_MODEL, check_config=_check_config)

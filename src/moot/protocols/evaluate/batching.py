"""How `moot batch` and `moot bench` read an evaluate item: the artifact paths to resolve, the inline
`artifact` a line may hold instead, and the scored suites the bench runs with it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from moot.engine.spec import BatchSpec, BenchRole
from moot.errors import UsageError
from moot.protocols.evaluate.schemas import MAX_ROUNDS, ROUNDS


def _required(data: Mapping[str, Any], where: str) -> None:
    given = [k for k in ("solution", "artifact", "artifacts") if data.get(k) not in (None, "", [])]
    if not given:
        raise UsageError(f"{where}: an evaluate item needs 'solution' (paths) or 'artifact' (inline text)")
    if len(given) > 1:
        raise UsageError(f"{where}: give one of {' or '.join(repr(k) for k in given)}, not both")


def _arguments(arguments: dict[str, Any], item_id: str, base: Path, where: str) -> dict[str, Any]:
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


BATCH = BatchSpec(
    input_paths=("solution",),
    output_paths=("reports_dir",),
    # thousands of debates writing report files into the working folder would surprise: the store keeps
    # everything (`moot show`, `moot report`), and an item may still ask for files
    defaults={"reports_dir": None},
    extra_fields=frozenset({"artifact"}),
    required=_required,
    arguments=_arguments,
    rounds=(MAX_ROUNDS, ROUNDS),
)
BENCH = BenchRole("scored")

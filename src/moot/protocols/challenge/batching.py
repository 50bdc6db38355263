"""How `moot batch` reads a challenge item: its context files to resolve and the topic it must have."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from moot.engine.spec import BatchSpec
from moot.errors import UsageError
from moot.protocols.challenge.schemas import MAX_ROUNDS, ROUNDS


def _required(data: Mapping[str, Any], where: str) -> None:
    if not isinstance(data.get("topic"), str) or not data["topic"].strip():
        raise UsageError(f"{where}: a challenge item needs 'topic' (the position or question, as text)")


BATCH = BatchSpec(input_paths=("context",), required=_required, rounds=(MAX_ROUNDS, ROUNDS))

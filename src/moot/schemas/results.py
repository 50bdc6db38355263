"""Each protocol's result model by name, and a stored result brought up to the current envelope.

A result stored before the envelope existed (issue 22) lacks `verdict`, `status`, the judges' envelope
fields and, for a challenge, `protocol`, `rounds_completed` and `judges`. Loading it through its model
computes them, so every reader (moot show, MCP, the viewer, the reports, the gate) sees one shape.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError


def _model(name: str) -> type[BaseModel] | None:
    """TEMPORARY (issue 22 in progress): the protocol's result model through the registry."""
    from moot.protocols import entry, spec_for

    return spec_for(name).result_type if entry(name) is not None else None


def with_envelope(protocol: str, result: dict[str, Any]) -> dict[str, Any]:
    """`result` with the envelope's keys first. A result that already has them is returned as it is (no
    work on the common path); one that its model cannot read (a foreign protocol, a damaged row) too."""
    if "verdict" in result and "status" in result:
        return result
    # a challenge result had no `protocol` key before the envelope: its `final_position` names it
    name = result.get("protocol") or protocol or ("challenge" if "final_position" in result else "")
    model = _model(str(name))
    if model is None:
        return result
    try:
        upgraded: dict[str, Any] = model.model_validate(result).model_dump(mode="json")
    except ValidationError:
        return result
    return upgraded

"""A stored result read through its protocol's spec: brought up to the current envelope, and the one word a
list shows for it.

A result stored before the envelope existed (issue 22) lacks `verdict`, `status`, the judges' envelope
fields and, for some protocols, `protocol` itself. The store hands a row's result back exactly as it was
written (it sits below the protocols); the readers that show one (`moot show`, MCP `show_debate`, `moot
list`, the viewer, the HTML report) load it through its protocol's result model here, which computes them,
so every reader sees one shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError

from moot.protocols import entry, names, spec_for
from moot.schemas.envelope import headline


def protocol_of(result: Mapping[str, Any], protocol: str = "") -> str:
    """The protocol a result belongs to: its own `protocol` key, else the one its row names, else the one
    whose `legacy_result` hook recognises it (a result written before it carried its name); "" if none."""
    name = str(result.get("protocol") or protocol or "")
    if name:
        return name
    for candidate in names():
        recognises = spec_for(candidate).views.legacy_result
        if recognises is not None and recognises(result):
            return candidate
    return ""


def with_envelope(protocol: str, result: dict[str, Any]) -> dict[str, Any]:
    """`result` with the envelope's keys first. A result that already has them is returned as it is (no
    work on the common path); one that its model cannot read (a foreign protocol, a damaged row) too."""
    if "verdict" in result and "status" in result:
        return result
    name = protocol_of(result, protocol)
    if entry(name) is None:
        return result
    try:
        upgraded: dict[str, Any] = spec_for(name).result_type.model_validate(result).model_dump(mode="json")
    except ValidationError:
        return result
    return upgraded


def verdict_word(result: Mapping[str, Any] | None, protocol: str = "") -> str:
    """The one word a list shows: PASS/FAIL/CONDITIONAL, RECOMMENDED/CONTESTED, CONSENSUS/TRADEOFF, read
    from the result envelope in its protocol's words (`VerdictSpec.outcome_words`); a result stored before
    the envelope is loaded through its protocol's model first, which computes it."""
    if not result:
        return ""
    if "verdict" not in result:
        result = with_envelope(protocol, dict(result))
    name = protocol_of(result, protocol)
    return headline(result, spec_for(name).verdict.outcome_words if entry(name) is not None else None)


__all__ = ["protocol_of", "verdict_word", "with_envelope"]

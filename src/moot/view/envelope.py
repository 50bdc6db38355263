"""The one place where `moot view` reads a protocol's stored result: the result envelope (issue 22).

Every protocol's result starts with the same keys (`moot.schemas.envelope`): `verdict` {kind, answer,
confidence, needs_human}, `rounds_completed`, `judges` [{seat, model, stance, status, reason}], `spend`.
Every page reads them through `outcome` (the debates' index, the batch pages, a debate's page), from the
one table below, so no page guesses which key a protocol keeps its verdict under. A result stored before
the envelope is brought up to it first (`moot.api.results.with_envelope`), and the one word shown is in
its protocol's words (`verdict_word`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from moot.api.results import verdict_word, with_envelope
from moot.protocols import entry

# the JSON path of each field the pages show, the same for every protocol (`verdict` is `verdict_word`'s)
PATHS: dict[str, str] = {
    "kind": "$.verdict.kind",
    "answer": "$.verdict.answer",
    "confidence": "$.verdict.confidence",
    "rounds": "$.rounds_completed",
    "judges": "$.judges",
}
SPEND_PATH = "$.spend.cost_usd"


@dataclass(frozen=True)
class ResultFacts:
    """A debate's result as the pages need it, whatever its protocol. Empty strings and None where the
    result has no such value (a running or failed debate has no result at all)."""

    protocol: str
    status: str
    verdict: str = ""
    kind: str = ""
    answer: str = ""
    confidence: str = ""
    rounds: int | None = None
    judges: tuple[str, ...] = ()
    spend: float | None = None


def _at(result: Mapping[str, Any], path: str) -> Any:
    node: Any = result
    for key in path.removeprefix("$.").split("."):
        node = node.get(key) if isinstance(node, Mapping) else None
    return node


def _seat(judge: Any) -> str:
    """`seat (model)`; the proponent of a challenge as `model (proponent)`."""
    if not isinstance(judge, Mapping):
        return str(judge)
    seat, model = str(judge.get("seat") or ""), str(judge.get("model") or "")
    if judge.get("stance") == "proponent":
        return f"{model or seat} (proponent)"
    return f"{seat} ({model})" if seat and model else seat or model


def outcome(protocol: str, status: str, result: Mapping[str, Any] | None) -> ResultFacts:
    """A stored result mapped onto the fields the pages show."""
    if not result or entry(protocol) is None:
        return ResultFacts(protocol, status)
    if "verdict" not in result:
        result = with_envelope(protocol, dict(result))
    rounds = _at(result, PATHS["rounds"])
    spend = _at(result, SPEND_PATH)
    return ResultFacts(
        protocol,
        status,
        verdict=verdict_word(result, protocol),
        kind=str(_at(result, PATHS["kind"]) or ""),
        answer=str(_at(result, PATHS["answer"]) or ""),
        confidence=str(_at(result, PATHS["confidence"]) or ""),
        rounds=rounds if isinstance(rounds, int) and not isinstance(rounds, bool) else None,
        judges=tuple(_seat(j) for j in _at(result, PATHS["judges"]) or []),
        spend=float(spend) if isinstance(spend, int | float) else None,
    )

"""The one place where `moot view` reads a protocol's stored result: which key of each protocol's result is
its verdict, its answer, its confidence, its rounds and its judges.

Until one result envelope is shared by every protocol, each protocol keeps these under its own names
(`summary.final_verdict` for evaluate, `outcome` for decide and challenge...). Every page reads them
through `outcome` (the debates' index, the batch pages, a debate's page), from the one table below, so a
change of envelope touches this module only.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# per protocol, the JSON path of each field in the stored result (`debates.result_json`)
PATHS: dict[str, dict[str, str]] = {
    "evaluate": {
        "verdict": "$.summary.final_verdict",
        "kind": "$.verdict_type",
        "answer": "$.summary.final_verdict",
        "confidence": "$.summary.confidence",
        "rounds": "$.rounds_completed",
        "judges": "$.judges",
    },
    "decide": {
        "verdict": "$.outcome",
        "kind": "$.outcome",
        "answer": "$.recommended_option",
        "confidence": "$.confidence",
        "rounds": "$.rounds_completed",
        "judges": "$.judges",
    },
    "challenge": {
        "verdict": "$.outcome",
        "kind": "$.outcome",
        "answer": "$.final_position",
        "confidence": "$.confidence",
        "rounds": "$.rounds",
        "judges": "$.challengers",
    },
}
EXTRA_SEATS = {"challenge": 1}  # the proponent sits beside the challengers
SPEND_PATH = "$.spend.cost_usd"


@dataclass(frozen=True)
class Outcome:
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
    if not isinstance(judge, Mapping):
        return str(judge)
    name = str(judge.get("judge") or judge.get("seat") or "")
    model = str(judge.get("answered_by") or judge.get("model") or "")
    return f"{name} ({model})" if name and model else name or model


def outcome(protocol: str, status: str, result: Mapping[str, Any] | None) -> Outcome:
    """A stored result mapped onto the fields the pages show."""
    paths = PATHS.get(protocol)
    if not result or paths is None:
        return Outcome(protocol, status)
    judges = [_seat(j) for j in _at(result, paths["judges"]) or []]
    if protocol == "challenge" and result.get("proponent"):
        judges.insert(0, f"{result['proponent']} (proponent)")
    rounds = _at(result, paths["rounds"])
    spend = _at(result, SPEND_PATH)
    return Outcome(
        protocol,
        status,
        verdict=str(_at(result, paths["verdict"]) or ""),
        kind=str(_at(result, paths["kind"]) or ""),
        answer=str(_at(result, paths["answer"]) or ""),
        confidence=str(_at(result, paths["confidence"]) or ""),
        rounds=rounds if isinstance(rounds, int) else None,
        judges=tuple(judges),
        spend=float(spend) if isinstance(spend, int | float) else None,
    )

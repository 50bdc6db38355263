"""Builders of judge replies in the seeds' templates, for scripting the local server."""

from __future__ import annotations

import json
from typing import Any

import yaml

CRITERIA = "correctness:30,design:25,security:20,performance:15,docs:10"
KEYS = ["correctness", "design", "security", "performance", "docs"]
# verbatim from the `artifact` fixture (tests/conftest.py): a CRITICAL finding's quote that moot finds there
QUOTE = "export function createUser(name: string)"


def dims(score: float | dict[str, float]) -> dict[str, float]:
    return score if isinstance(score, dict) else {k: score for k in KEYS}


def round1(
    overall: float,
    dimension: float | dict[str, float] | None = None,
    *,
    critical: list[str] | None = None,
    fenced: bool = True,
    prose: str = "",
    located: list[tuple[str, str, int]] | list[tuple[str, str, int, str]] | None = None,
    quote: str = QUOTE,
) -> str:
    """`located`: CRITICAL findings at a file and line, as (finding, file, line) or (finding, file, line, quote);
    `quote`: the quote of every finding that gives none of its own."""
    found = [(c, "", 0, quote) for c in critical or []] + [
        (*f[:3], f[3] if len(f) > 3 else quote) for f in located or []
    ]
    data: dict[str, Any] = {
        "overall_score": overall,
        "dimension_scores": dims(dimension if dimension is not None else round(overall)),
        "position_statement": f"## My Assessment\nScore {overall}.",
        "key_claims": [{"claim": "it works", "confidence": "HIGH", "quote": "", "location": ""}],
        "critical_findings": [
            {"finding": c, "evidence": "line 1", "quote": q, "location": f"{f}:{n}" if f else ""}
            for c, f, n, q in found
        ],
        "verification": [{"question": f"q{i}", "answer": "ok"} for i in range(5)],
    }
    text = yaml.safe_dump(data, sort_keys=False)
    if fenced:
        text = f"```yaml\n{text}```"
    return f"{prose}\n{text}" if prose else text


def round2(
    new_score: float,
    dimension: dict[str, float] | None = None,
    *,
    responses: dict[str, str] | None = None,
    as_json: bool = False,
    reason: str = "convinced by evidence",
) -> str:
    data: dict[str, Any] = {
        "judge_id": "x",
        "round": 2,
        "score_changed": True,
        "new_score": new_score,
        "change_reason": reason,
        "agreements": [{"with_judge": "judge-1", "on_point": "tests are thin"}],
        "disagreements": [],
        "position_revision": f"## Updated Position\nNow {new_score}.",
    }
    if dimension:
        data["dimension_scores"] = dimension
    if responses:
        data["critical_responses"] = [{"id": k, "response": v} for k, v in responses.items()]
    return json.dumps(data) if as_json else yaml.safe_dump(data, sort_keys=False)


def round3(final: float, dimension: dict[str, float] | None = None, *, responses: dict[str, str] | None = None) -> str:
    data: dict[str, Any] = {
        "judge_id": "x",
        "round": 3,
        "is_final": True,
        "final_score": final,
        "final_position": f"## Final Assessment\nFinal {final}.",
        "key_points_maintained": [{"point": "p", "reason": "r", "evidence": "e"}],
        "concessions_made": [],
        "unresolved_disagreements": [{"issue": "severity", "my_final_view": str(final), "opposing_view": "other"}],
    }
    if dimension:
        data["dimension_scores"] = dimension
    if responses:
        data["critical_responses"] = [{"id": k, "response": v} for k, v in responses.items()]
    return yaml.safe_dump(data, sort_keys=False)

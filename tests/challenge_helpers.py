"""Reply builders in the shapes `moot challenge` asks for, and fixtures for its tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

SUBSTANTIVE = (
    "I checked the write path, the hot-customer skew and the cross-shard reporting queries; the position "
    "accounts for each of them with a concrete mitigation, so I find no significant objection."
)


def opening(position: str = "Shard orders by customer id", confidence: str = "HIGH") -> str:
    data = {
        "position": position,
        "reasoning": "Orders are always read per customer; sharding by customer keeps those reads local.",
        "confidence": confidence,
        "weaknesses": ["cross-customer reports need a scatter-gather"],
        "assumptions": ["reads are per customer", "no single customer dominates the load"],
    }
    return "Here is my position.\n```yaml\n" + yaml.safe_dump(data, sort_keys=False) + "```\n"


# words of `opening()`'s assumptions: a quote moot finds in what every challenger was shown
GROUNDED = "no single customer dominates the load"


def verdict(v: str, strength: str = "strong", objections: list[Any] | None = None, reasoning: str = SUBSTANTIVE) -> str:
    """A challenger's verdict; each objection quotes the opening (a disagreement's objections must, or they are
    asked again for a verbatim quote)."""
    listed = objections if objections is not None else ([] if v == "agree" else [f"{v}: a problem"])
    data = {
        "verdict": v,
        "objection_strength": strength,
        "objections": listed,
        "quotes": [GROUNDED] * len(listed),
        "reasoning": reasoning,
    }
    return "After review:\n```json\n" + json.dumps(data) + "\n```"


def confront(decisions: dict[str, str], position: str, confidence: str = "MEDIUM") -> str:
    data = {
        "responses": [{"objection": k, "decision": v, "reason": f"because {k}"} for k, v in decisions.items()],
        "position": position,
        "confidence": confidence,
        "reasoning": "answered each objection",
    }
    return yaml.safe_dump(data, sort_keys=False)


def rebuttal(response: str, reasoning: str = "the answer does not address hot customers", **extra: Any) -> str:
    """A rebuttal; objections it lists quote the opening unless `quotes` is given."""
    if extra.get("objections") and "quotes" not in extra:
        extra["quotes"] = [GROUNDED] * len(extra["objections"])
    return json.dumps({"response": response, "reasoning": reasoning, **extra})


def assumptions(why: str, change: str, items: list[str], core: str = "") -> str:
    data: dict[str, Any] = {"why_disagree": why, "what_would_change_my_mind": change, "assumptions": items}
    if core:
        data["core_disagreement"] = core
    return "```yaml\n" + yaml.safe_dump(data, sort_keys=False) + "```"


def write_judges(path: Path, proponent: dict[str, Any], challengers: list[dict[str, Any]], **extra: Any) -> Path:
    path.write_text(
        yaml.safe_dump({"proponent": proponent, "challengers": challengers, **extra}, sort_keys=False),
        encoding="utf-8",
    )
    return path

"""Builders of `moot decide` judge replies and judges files, shared by the decide tests (no tests here)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from moot.testing import FakeLLMServer

MODELS = {"risk": "risk-m", "value": "value-m", "effort": "effort-m"}
QUESTION = "Should the mobile app support offline mode?"
OPTIONS = [
    "A=Online only: the app needs a connection",
    "B=Full offline: everything works offline and syncs later",
    "C=Limited offline: read-only cache of recent data",
]


def r1(rec: str, why: str = "", *, key: str = "recommendation", as_json: bool = False, prose: str = "") -> str:
    data: dict[str, Any] = {
        "judge": "x",
        "round": 1,
        key: rec,
        "confidence": "HIGH",
        "perspective": why or f"{rec} is best from my stance",
        "rationale": f"Long reasoning for {rec}. Field workers matter.",
        "assessment": {"A": "safe but limited", "B": "valuable but costly", "C": "a middle way"},
    }
    if as_json:
        return json.dumps(data)
    text = "```yaml\n" + yaml.safe_dump(data, sort_keys=False) + "```"
    return f"{prose}\n{text}" if prose else text


def r2(
    rec: str,
    *,
    challenge: dict[str, str] | None = None,
    reason: str | None = None,
    why: str = "",
) -> str:
    data: dict[str, Any] = {"judge": "x", "round": 2}
    if challenge:
        data["challenges"] = [{"judge": j, "counter_argument": a} for j, a in challenge.items()]
    data["recommendation"] = rec
    if reason is not None:
        data["changed"] = True
        data["change_reason"] = reason
    data["perspective"] = why or f"still {rec} after the debate"
    data["rationale"] = f"After reading the others: {rec}."
    return yaml.safe_dump(data, sort_keys=False)


def decide_judges(
    tmp_path: Path,
    server: FakeLLMServer,
    *,
    timeout: float | None = None,
    debate_config: dict[str, Any] | None = None,
    name: str = "decide-judges.yaml",
    extra: dict[str, Any] | None = None,
) -> Path:
    """A judges file with the seed's three stances, each on a model of the local server."""
    judges = []
    for stance, model in MODELS.items():
        entry: dict[str, Any] = {"model": model, "stance": stance, "api_base": server.base_url}
        if timeout is not None:
            entry["timeout"] = timeout
        judges.append(entry)
    data: dict[str, Any] = {"debate_judges": judges, **(extra or {})}
    if debate_config is not None:
        data["debate_config"] = debate_config
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def question_args(judges: Path) -> list[str]:
    args = ["decide", "--question", QUESTION]
    for o in OPTIONS:
        args += ["--option", o]
    return [*args, "--judges", str(judges)]


def last_user_message(server: FakeLLMServer, model: str, n: int) -> str:
    return str(server.calls_for(model)[n].body["messages"][-1]["content"])


def system_message(server: FakeLLMServer, model: str, n: int) -> str:
    return str(server.calls_for(model)[n].body["messages"][0]["content"])

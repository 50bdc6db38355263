"""Host seats in decide: `judges="host"` makes the Risk, Value and Effort seats the caller's; the same replies
give the same decision as through the scripted vendor server."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import moot
from moot.testing import FakeLLMServer

from .host_helpers import comparable, drive
from .test_decide_support import OPTIONS, QUESTION, r1, r2

SCRIPT = {
    "risk": [r1("A", "sync bugs appear after weeks"), r2("A", challenge={"value": "40% is a guess"})],
    "value": [r1("B", "field workers need it"), r2("C", challenge={"effort": "small"}, reason="the ROI analysis")],
    "effort": [r1("C", "ship now, expand later"), r2("C", challenge={"value": "B costs 3x"})],
}


def test_same_replies_same_decision_through_host_seats_and_vendors(tmp_path: Path) -> None:
    state = moot.decide_sync(QUESTION, OPTIONS, judges="host", write_files=False)
    assert state.status == "waiting" and state.seats == ["risk", "value", "effort"]
    assert {r["role"] for r in state.requests} == {"risk", "value", "effort"}
    result, steps = drive(state, SCRIPT, moot.submit_replies_sync)
    host: dict[str, Any] = result.model_dump(mode="json")
    assert steps == 2 and host["outcome"] == "RECOMMENDED" and host["recommended_option"] == "C"
    with FakeLLMServer() as server:
        judges = []
        for stance, replies in SCRIPT.items():
            server.script(stance, *replies)
            judges.append({"model": stance, "stance": stance, "api_base": server.base_url})
        vendor = moot.decide_sync(QUESTION, OPTIONS, judges=judges, write_files=False).model_dump(mode="json")
    assert comparable(host, host["debate_id"]) == comparable(vendor, vendor["debate_id"])

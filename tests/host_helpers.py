"""Helpers for the host-seat tests: results compared without what may differ (ids, times, model labels,
spend), and a debate driven to its end by scripted host replies."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

# keys whose values may differ between a host run and a vendor run of the same replies: when, how long, what
# it cost, which model answered, where files went
VOLATILE = {
    "debate_id",
    "created_at",
    "finished_at",
    "started_at",
    "spend",
    "models",
    "model",
    "family",  # a model label's family: a host seat plays no model moot knows
    "families",
    "label",
    "answered_by",
    "wall_seconds",
    "latency_s",
    "cost_usd",
    "files",
    "report_files",
    "html_report",
    "proponent",  # challenge's result names its proponent's model there
}


def comparable(data: Any, debate_id: str = "") -> Any:
    """`data` without its volatile keys, its debate id replaced, so two runs can be compared with ==."""
    if isinstance(data, dict):
        return {k: comparable(v, debate_id) for k, v in data.items() if k not in VOLATILE}
    if isinstance(data, list):
        return [comparable(v, debate_id) for v in data]
    if isinstance(data, str) and debate_id:
        return data.replace(debate_id, "<id>").replace(debate_id[:8], "<id>")
    return data


Script = Mapping[str, list[str]]  # seat -> its replies in order


def drive(state: Any, script: Script, submit: Callable[[str, list[dict[str, str]]], Any]) -> tuple[Any, int]:
    """Answer every waiting state from `script` (each seat's next reply) until the debate ends: its result
    and how many steps it took."""
    used = {seat: 0 for seat in script}
    steps = 0
    while getattr(state, "status", None) == "waiting":
        replies = []
        for r in state.requests:
            seat = r["seat"]
            replies.append({"seat": seat, "reply": script[seat][used[seat]]})
            used[seat] += 1
        state = submit(state.debate_id, replies)
        steps += 1
    return state, steps

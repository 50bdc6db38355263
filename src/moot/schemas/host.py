"""The waiting state: a debate with host seats, stopped where a host reply is due.

One JSON shape for the CLI's `--format json`, the MCP tools and the Python API:

    {"debate_id": ..., "protocol": ..., "status": "waiting",
     "requests": [{"request_id", "seat", "role", "round", "phase", "system", "prompt", "schema"}, ...]}

`system` and `prompt` are exactly what moot would send a vendor for that seat at that step, `schema` the
reply schema it would enforce. `request_id` is the call's stable key in the debate (what resume replays by).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

REQUEST_KEYS = ("request_id", "seat", "role", "round", "phase", "system", "prompt", "schema")


class Waiting(BaseModel):
    """A debate waiting for its host seats' replies (what a run, a resume or a submit returns then)."""

    debate_id: str
    protocol: str
    status: Literal["waiting"] = "waiting"
    requests: list[dict[str, Any]] = Field(default_factory=list)

    @property
    def seats(self) -> list[str]:
        return [str(r["seat"]) for r in self.requests]


__all__ = ["REQUEST_KEYS", "Waiting"]

"""A debate waiting for its host seats, as text: which seats owe a reply, and the command that gives it.

`--format json` prints the waiting state itself (`moot.schemas.host.Waiting`), with each request's system
text, prompt and reply schema: what a coding agent reads to answer as the seat.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def is_waiting(data: Mapping[str, Any]) -> bool:
    return data.get("status") == "waiting" and isinstance(data.get("requests"), list)


def waiting_text(data: Mapping[str, Any]) -> str:
    debate_id = data["debate_id"]
    requests = data["requests"]
    lines = [f"Debate {debate_id} ({data['protocol']}): waiting for {len(requests)} host reply(ies)"]
    for r in requests:
        lines.append(f"  {r['seat']} ({r['role']}), round {r['round']}, {r['phase']}: request {r['request_id']}")
    lines.append(f"  the requests (system, prompt, schema): moot show {debate_id} --format json")
    seat = requests[0]["seat"] if requests else "SEAT"
    lines.append(f"  reply with: moot reply {debate_id} --seat {seat} --file REPLY.md  (or on standard input)")
    lines.append(f"  or end it: moot cancel {debate_id}")
    return "\n".join(lines) + "\n"

"""What a scored evaluation knows after each step: plain data, changed only by `Evaluation.absorb`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from moot.protocol import Seat
from moot.protocols.evaluate.locations import same_place
from moot.protocols.evaluate.rules import RESOLVED_STATES, finding_states
from moot.protocols.evaluate.schemas import (
    CriticalFinding,
    CriticalResponse,
    RaisedFinding,
    RoundSummary,
    ScoredPosition,
)


@dataclass
class DebateState:
    active: list[Seat]
    positions: dict[str, list[ScoredPosition]] = field(default_factory=dict)
    texts: dict[str, list[str]] = field(default_factory=dict)
    dropped: dict[str, tuple[int, str]] = field(default_factory=dict)
    answered_by: dict[str, str] = field(default_factory=dict)
    findings: list[CriticalFinding] = field(default_factory=list)
    responses: dict[str, dict[str, CriticalResponse]] = field(default_factory=dict)
    progression: dict[str, RoundSummary] = field(default_factory=dict)
    consensus_at: int | None = None
    notes: list[str] = field(default_factory=list)
    rounds_done: int = 0
    stopped: bool = False  # the budget ended the debate early
    moderated: bool = False  # the moderator's step has run (whatever came of it)
    moderator_reply: dict[str, Any] | None = None
    moderator_error: str = ""

    def latest(self, seat: Seat) -> ScoredPosition:
        return self.positions[seat.id][-1]

    def states(self) -> dict[str, str]:
        return dict(finding_states(self.findings, self.responses, [s.id for s in self.active]))

    def unresolved(self) -> list[CriticalFinding]:
        states = self.states()
        return [f for f in self.findings if states[f.id] not in RESOLVED_STATES]

    def register_findings(self, position: ScoredPosition) -> None:
        """Responses to known CRITICAL findings, and new ones numbered C1, C2, ... in the order raised. A
        finding another judge already raised (the same checked file:line, or the same words) is that one,
        accepted, not a new one."""
        known = {f.id for f in self.findings}
        mine = self.responses.setdefault(position.judge, {})
        for fid, resp in position.critical_responses.items():
            if fid in known:
                mine[fid] = resp
        for raised in position.raised:
            earlier = next((f for f in self.findings if f.raised_by != position.judge and _same(f, raised)), None)
            if earlier is not None:
                mine.setdefault(earlier.id, "accept")
                continue
            # the finding as its judge stated it, numbered and attributed
            number, judge, at = f"C{len(self.findings) + 1}", position.judge, position.round
            self.findings.append(CriticalFinding(**raised.model_dump(), id=number, raised_by=judge, round=at))


def _same(known: CriticalFinding, raised: RaisedFinding) -> bool:
    words = " ".join(raised.finding.lower().split())
    return same_place(known, raised) or words == " ".join(known.finding.lower().split())

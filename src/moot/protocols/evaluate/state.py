"""What a scored evaluation knows after each step: plain data, changed only by `Evaluation.absorb`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from moot.protocol import Seat
from moot.protocols.evaluate.hardening import may_block
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
    grounding: bool = True  # only a grounded finding may block (the judges file's `consensus: {grounding: ...}`)
    unsupported: list[dict[str, object]] = field(default_factory=list)  # changed scores that named no cause
    report_orders: dict[str, list[str]] = field(default_factory=dict)  # call key -> the letters, as read

    def latest(self, seat: Seat) -> ScoredPosition:
        return self.positions[seat.id][-1]

    def states(self) -> dict[str, str]:
        return dict(finding_states(self.findings, self.responses, [s.id for s in self.active]))

    def blocking(self) -> list[CriticalFinding]:
        """The findings that may block: grounded ones (all of them when grounding is off)."""
        return [f for f in self.findings if may_block(f, grounding=self.grounding)]

    def unresolved(self) -> list[CriticalFinding]:
        """The findings every judge must answer: those that may block and are not yet resolved."""
        states = self.states()
        return [f for f in self.blocking() if states[f.id] not in RESOLVED_STATES]

    def register_findings(self, position: ScoredPosition) -> None:
        """Responses to known CRITICAL findings, and new ones numbered C1, C2, ... in the order raised. A
        finding another judge already raised (the same checked file:line, or the same words) is that one,
        accepted, not a new one."""
        known = {f.id for f in self.findings}
        mine = self.responses.setdefault(position.judge, {})
        for fid, resp in position.critical_responses.items():
            if fid in known:
                mine[fid] = resp
        for fid in position.confirmations:
            _confirm(next((f for f in self.findings if f.id == fid), None), position.judge)
        for raised in position.raised:
            earlier = next((f for f in self.findings if f.raised_by != position.judge and _same(f, raised)), None)
            if earlier is not None:
                mine.setdefault(earlier.id, "accept")
                if raised.grounded:
                    _confirm(earlier, position.judge)
                continue
            # the finding as its judge stated it, numbered and attributed
            number, judge, at = f"C{len(self.findings) + 1}", position.judge, position.round
            self.findings.append(CriticalFinding(**raised.model_dump(), id=number, raised_by=judge, round=at))


def _same(known: CriticalFinding, raised: RaisedFinding) -> bool:
    words = " ".join(raised.finding.lower().split())
    return same_place(known, raised) or words == " ".join(known.finding.lower().split())


def _confirm(finding: CriticalFinding | None, judge: str) -> None:
    """Another judge's own grounded quote grounds a finding its raiser did not ground."""
    if finding is not None and not finding.grounded and judge != finding.raised_by:
        finding.grounded, finding.ungrounded_reason, finding.grounded_by = True, None, judge

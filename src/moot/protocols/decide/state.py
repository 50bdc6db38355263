"""What an option-choice debate knows after each round: plain data, changed only by `Decision.absorb`.

Apart from the protocol so that the result builder (`decide_result`) reads it without importing the
round logic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from moot.protocol import Answer, Seat
from moot.protocols.decide.rules import OptionConsensus
from moot.protocols.decide.schemas import ChangeLogEntry, StanceReply


@dataclass
class DecideState:
    active: list[Seat]
    recommendations: dict[str, dict[int, str | None]] = field(default_factory=dict)
    counted: dict[str, StanceReply] = field(default_factory=dict)  # the reply behind each latest recommendation
    texts: dict[str, dict[int, str]] = field(default_factory=dict)
    confidences: dict[str, dict[int, str]] = field(default_factory=dict)  # judge -> round -> stated confidence
    dropped: dict[str, tuple[int, str]] = field(default_factory=dict)
    answered_by: dict[str, str] = field(default_factory=dict)
    tallies: dict[int, OptionConsensus] = field(default_factory=dict)
    change_log: list[ChangeLogEntry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    rounds_done: int = 0
    stopped: bool = False  # the budget ended the debate early

    def latest(self, seat_id: str) -> str | None:
        recs = self.recommendations.get(seat_id, {})
        return recs[max(recs)] if recs else None

    def ungrounded_risks(self, seat_id: str) -> list[str]:
        """The risks of a judge's counted reply whose quote was not found, as the other judges are told of them:
        each counts for nothing, and the next round's prompt says so beside that judge's report."""
        reply = self.counted.get(seat_id)
        risks = reply.risks if reply is not None else []
        return [f"{r.option}: {r.risk} ({r.ungrounded_reason})" for r in risks if not r.grounded]

    @property
    def settled(self) -> bool:
        """The last round reached consensus: nothing more to debate."""
        return bool(self.tallies) and self.tallies[max(self.tallies)].reached


@dataclass
class Judged:
    """A judge's round, as it will count: its recommendation (or None), the reply, and why if not clean.

    A reply that still broke a rule after its clarification is not a drop: the settling rule decides
    what of it counts (`Decision._settle_unparsed`), and the note says so.
    """

    seat: Seat
    answer: Answer[StanceReply]
    recommendation: str | None = None
    reply: StanceReply | None = None
    note: str = ""

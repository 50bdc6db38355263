"""`moot challenge --dry-run`: every call of the position challenge, priced before anything is spent.

    round 1   the opening (proponent), then one challenge per challenger
    round N   the proponent's confrontation, then one rebuttal per dissenter
    final     (no consensus) one assumption statement from the proponent and from each dissenter

The estimate takes the worst path: every challenger dissents in every round. Prompts are the protocol's
own, with earlier replies as placeholders of typical size (the estimate) or of each judge's output bound
(the worst case). The table's rows: a fast exit, consensus after round 1, after round 2, and the full
debate ending in a tradeoff.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from moot.engine.budget import TYPICAL_REPLY_TOKENS, CallCost, Scenario, scenario, tokens_of
from moot.engine.core import Engine
from moot.engine.pricing import Pricing
from moot.judges.base import Seat
from moot.schemas.challenge import ChallengeRequest, Objection, Opening
from moot.schemas.messages import Prompt
from moot.store.db import Store

Size = Callable[[Seat], int]


def _text(tokens: int) -> str:
    return "x" * 4 * max(1, tokens)


class _Planner:
    """The prompts of the worst path, with placeholder replies whose sizes `size` gives per seat."""

    def __init__(self, request: ChallengeRequest, proponent: Seat, challengers: list[Seat], engine: Engine, size: Size):
        from moot.protocols.challenge import PositionChallenge

        self.debate = PositionChallenge(request, proponent, challengers, engine)
        self.proponent, self.challengers, self.size = proponent, challengers, size
        half = size(proponent) // 2
        self.position = _text(half)
        self.opening = Opening(position=self.position, reasoning=_text(half), confidence="MEDIUM")

    def objections(self, round_no: int) -> list[Objection]:
        """One standing objection per challenger, as long as its reply may be, answered by the proponent."""
        share = self.size(self.proponent) // (2 * max(1, len(self.challengers)))
        return [
            Objection(
                id=f"O{n}",
                raised_by=s.id,
                round=round_no,
                text=_text(self.size(s)),
                decision="PARTIAL",
                reason=_text(share),
            )
            for n, s in enumerate(self.challengers, 1)
        ]

    def prompt(self, seat: Seat, round_no: int, phase: str) -> Prompt:
        d, pos = self.debate, self.position
        if phase == "opening":
            return d._prompt("opening", seat, 1, "opening")
        if phase == "challenge":
            return d._prompt("challenge", seat, 1, "challenge", opening=self.opening, version=1)
        objections = self.objections(round_no)
        if phase == "confrontation":
            unanswered = [o.model_copy(update={"decision": None, "reason": ""}) for o in objections]
            return d._prompt(
                "confront", seat, round_no, "confront", objections=unanswered, position=pos, version=round_no, notes=[]
            )
        if phase == "rebuttal":
            return d._prompt(
                "rebuttal",
                seat,
                round_no,
                "rebuttal",
                objections=objections,
                position=pos,
                version=round_no + 1,
                suspicious=False,
            )
        mine = objections if seat is self.proponent else [o for o in objections if o.raised_by == seat.id]
        role = "proponent" if seat is self.proponent else "challenger"
        return d._prompt(
            "assumptions",
            seat,
            0,
            "assumptions",
            role=role,
            rounds=round_no,
            position=pos,
            version=round_no + 1,
            objections=mine,
        )


def _plan(proponent: Seat, challengers: list[Seat], max_rounds: int) -> list[tuple[Seat, int, str]]:
    """The calls of the worst path, in order: (seat, round, phase); the final statements are round 0."""
    plan = [(proponent, 1, "opening"), *((s, 1, "challenge") for s in challengers)]
    for round_no in range(1, max_rounds + 1):
        plan += [(proponent, round_no, "confrontation"), *((s, round_no, "rebuttal") for s in challengers)]
    plan += [(s, 0, "assumptions") for s in [proponent, *challengers]]
    return plan


def estimate_challenge(
    request: ChallengeRequest, proponent: Seat, challengers: list[Seat], pricing: Pricing | None
) -> tuple[list[CallCost], list[Scenario]]:
    """Every call of the worst path (typical and worst case), and the table of ways the debate can end."""
    engine = Engine(Store(":memory:"), "dry-run", pricing=pricing)
    typical = _Planner(request, proponent, challengers, engine, lambda _: TYPICAL_REPLY_TOKENS)
    worst = _Planner(request, proponent, challengers, engine, engine.output_bound)
    calls: list[CallCost] = []
    for seat, round_no, phase in _plan(proponent, challengers, request.max_rounds):
        later = round_no > 1 or phase == "assumptions"
        shown = request.max_rounds if phase == "assumptions" else round_no
        t = engine.call_cost(seat, typical.prompt(seat, shown, phase), round_no, cached_prefix=later)
        w = engine.call_cost(seat, worst.prompt(seat, shown, phase), round_no)
        calls.append(CallCost(seat.id, seat.label, round_no, t.input_tokens, t.typical_usd, w.worst_usd, phase))
    return calls, challenge_scenarios(calls, request.max_rounds)


def challenge_scenarios(calls: list[CallCost], max_rounds: int) -> list[Scenario]:
    """A fast exit; consensus after round 1 and 2; the full debate ending in a tradeoff."""
    first = [c for c in calls if c.round == 1 and c.phase in ("opening", "challenge")]
    rows = [scenario("Fast exit", 1, first)]
    for n in sorted({1, min(2, max_rounds)}):
        rows.append(scenario(f"Round {n} consensus", n, [c for c in calls if 1 <= c.round <= n]))
    rows.append(scenario(f"Round {max_rounds} (max), tradeoff", max_rounds, calls))
    return rows


def challenge_dry_run_data(
    request: ChallengeRequest, proponent: Seat, challengers: list[Seat], pricing: Pricing | None
) -> dict[str, Any]:
    from moot.cli.cost import plan_data

    calls, table = estimate_challenge(request, proponent, challengers, pricing)
    topic = "\n".join([request.topic, *(a.text for a in request.context)])
    return plan_data(
        "challenge",
        seats=[proponent, *challengers],
        rounds_allowed=request.max_rounds,
        calls=calls,
        table=table,
        input_tokens=tokens_of(topic),
        input_name="topic and context",
        skipped=list(request.skipped),
    )

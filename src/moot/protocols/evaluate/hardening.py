"""Rules against herding, as pure functions: which finding may block, how a judge is shown the others'
reports, and which changed score rests on nothing.

Debate amplifies position, verbosity and bandwagon bias: judges follow the majority, a named model, the
report read first. So a judge reads the other judges' reports under a letter and its stance (never a
model), in an order drawn for that judge and that round from the debate's id (the same on a rerun or a
resume, and recorded in the result); and a score that moves must name what moved it: a grounded finding
(`C2`) or another judge's report (`Judge B`). One that names neither is listed, not refused: the judge
may be right, a person should know it gave no reason.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from string import ascii_uppercase

from moot.grounding import drawn_order
from moot.protocols.evaluate.schemas import CriticalFinding

SCORE_EPSILON = 1e-9


def may_block(finding: CriticalFinding, *, grounding: bool) -> bool:
    """Only a grounded finding (its own quote, or another judge's confirming one) can block; all can when
    grounding is turned off."""
    return not grounding or bool(finding.grounded)


def caps_verdict(findings: Sequence[CriticalFinding], states: Mapping[str, str], *, grounding: bool) -> bool:
    """Whether an agreed CRITICAL finding caps the verdict: one that may block and every judge accepted."""
    return any(states.get(f.id) == "agreed" and may_block(f, grounding=grounding) for f in findings)


def letters(seat_ids: Sequence[str]) -> dict[str, str]:
    """Each seat's letter for the debate, in seat order: judge-1 -> A, judge-2 -> B, ..."""
    return {seat: ascii_uppercase[i % 26] * (1 + i // 26) for i, seat in enumerate(seat_ids)}


def order_seed(artifacts: Sequence[tuple[str, str]], task: str) -> str:
    """What the report orders are drawn from: what is judged (so a rerun, a resume, or the same debate run
    through host seats reads the reports in the same orders)."""
    digest = hashlib.sha256(task.encode())
    for path, text in artifacts:
        digest.update(b"\0" + path.encode() + b"\0" + text.encode())
    return digest.hexdigest()


def report_order(seed: str, seat_id: str, round_no: int, seat_ids: Sequence[str], *, shuffled: bool) -> list[str]:
    """The order `seat_id` reads the reports in, in round `round_no`: drawn from `seed` (`order_seed`), the
    seat and the round (so the same on every rerun), or seat order when shuffling is off."""
    return drawn_order(seat_ids, seed, seat_id, round_no) if shuffled else list(seat_ids)


def unsupported(
    before: float, after: float, moved_by: Iterable[str], grounded_ids: Iterable[str], other_letters: Iterable[str]
) -> bool:
    """A changed score that names neither a grounded finding nor another judge's letter."""
    if abs(after - before) <= SCORE_EPSILON:
        return False
    allowed = {*grounded_ids, *other_letters}
    return not any(ref in allowed for ref in moved_by)

"""Judge replies of the scored evaluation -> `ScoredPosition`.

A reply is validated once as `positions.ScoredReading` (every key the declared replies, `replies.py`, give a
field, with their legacy aliases), which makes the judge's position itself. Accepts seed 000's templates for
each round as they stand (`overall_score` in round 1, `new_score` in round 2, `final_score` in round 3) and
seed 003's per-criterion scores. Validation is strict: every score on the 1-5 scale, every criterion scored
in round 1, every open CRITICAL finding answered in later rounds.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Unpack

from moot.parsing.extract import extract_mapping, preview
from moot.parsing.replies import validate_reply
from moot.protocol import ReplyError, reply_parser
from moot.protocols.evaluate.positions import ReplyContext, ScoredReading, reading_keys
from moot.protocols.evaluate.schemas import CriticalResponse, ScoredPosition

__all__ = ["parse_scored_reply", "reading_keys"]


@reply_parser
def parse_scored_reply(text: str, *, ask_for_quotes: bool = False, **debate: Unpack[ReplyContext]) -> ScoredPosition:
    """Validate one reply. Raises ReplyError with a message meant for the judge.

    `debate` is what the reply is read with (`ReplyContext`): the judge, its round, the criteria; `previous`
    is the judge's position from the last round: missing dimension scores (and an unchanged overall score)
    carry over from it. `must_answer` are the open CRITICAL findings this judge must
    accept, reject or (for its own) withdraw. `shown` is what the judges were shown, every quote's check;
    with `ask_for_quotes`, a CRITICAL finding whose quote is not found there is sent back once for a
    verbatim one (the reply is kept as it stands if the judge does not give one: `ReplyError.usable`).
    """
    reading = validate_reply(ScoredReading, extract_mapping(text, required_any=ScoredReading.required_any()))
    position = reading.position(**debate)
    ungrounded = [f for f in position.raised if not f.grounded]
    if ask_for_quotes and ungrounded:
        said = "; ".join(f"{preview(f.finding)} ({f.ungrounded_reason})" for f in ungrounded)
        raise ReplyError(
            "a CRITICAL finding blocks only with a verbatim quote of the artifact in its `quote` (and, with a "
            f"`location`, found at that line); give the exact text it rests on, copied, or drop the finding: {said}",
            usable=position,
        )
    return position


def _responses(data: Mapping[str, Any]) -> dict[str, CriticalResponse]:
    """A reply's answers to the CRITICAL findings, as the parser reads them (`ScoredReading.responses`)."""
    return validate_reply(ScoredReading, data).responses()

"""Judge replies of the option-choice debate -> `StanceReply`.

A reply is YAML or JSON (fenced or not, prose around it allowed) with at least `recommendation: <option
id>` (`recommended_option` is accepted too). Option ids are matched without regard to case, and "Option
A" or the option's label are read as "A". In round 2 and later the seed's rules are enforced here, so that
a reply breaking them is sent back once (by `moot.engine.ask`) with the reason:
- the judge must challenge at least one other judge (`challenges`, each naming the judge);
- a judge that changes its recommendation must say exactly what convinced it (`change_reason`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from moot.parsing.extract import ReplyError, extract_mapping, reply_parser
from moot.parsing.replies import field_keys, validate_reply
from moot.protocols.decide.replies import match_option as match_option
from moot.protocols.decide.replies import reply_model
from moot.protocols.decide.schemas import CounterArgument, DecisionOption, StanceReply


@dataclass(frozen=True)
class ReplyRules:
    """What a reply in a given round must satisfy."""

    judge: str
    round_no: int
    options: Sequence[DecisionOption]
    previous: str | None = None  # the judge's recommendation in the round before (None: it had none)
    others: Sequence[str] = ()  # the judges it must challenge (any one of them), from round 2 on
    require_challenge: bool = False
    require_change_reason: bool = True


@reply_parser
def parse_stance_reply(text: str, rules: ReplyRules) -> StanceReply:
    """Validate one reply with the round's `RecommendationReply`. Raises ReplyError, phrased for the judge,
    when it breaks a rule."""
    ids = [o.id for o in rules.options]
    model = reply_model(tuple(ids), rules.round_no, tuple(rules.others))
    data = extract_mapping(text, required_any=field_keys(model, "recommendation"))
    reply = validate_reply(model, data, context={"options": rules.options, "others": rules.others})
    option = reply.recommendation
    if option is None:
        raise ReplyError(
            f"the reply has no `recommendation` (it must be exactly one of the option ids: {', '.join(ids)})"
        )
    challenges = [CounterArgument(judge=c.judge, argument=c.counter_argument) for c in reply.challenges]
    if rules.round_no > 1 and rules.require_challenge and rules.others and not challenges:
        raise ReplyError(
            "the reply challenges nobody: `challenges` must hold at least one specific counter-argument, "
            "each naming the judge it answers (" + ", ".join(rules.others) + ")"
        )
    changed_from = rules.previous if rules.previous is not None and rules.previous != option else None
    if changed_from is not None and rules.require_change_reason and not reply.change_reason:
        raise ReplyError(
            f"you changed your recommendation from {changed_from} to {option} without `change_reason`: "
            "say exactly what convinced you, or keep your recommendation"
        )
    return StanceReply(
        judge=rules.judge,
        round=rules.round_no,
        recommendation=option,
        confidence=reply.confidence,
        rationale=reply.rationale,
        perspective=reply.perspective or _first_sentence(reply.rationale),
        assessments=reply.assessment.model_dump(exclude_unset=True),
        challenges=challenges if rules.round_no > 1 else [],
        changed_from=changed_from,
        change_reason=reply.change_reason if changed_from is not None else "",
    )


def _first_sentence(text: str) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    m = re.match(r"(.+?[.!?])(\s|$)", line)
    sentence = m.group(1) if m else line
    return sentence if len(sentence) <= 200 else sentence[:197].rstrip() + "..."

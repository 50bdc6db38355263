"""The moderator's synthesis (seed 001's debate-judge): one more call after the last round, whose prose
may replace the engine's. The numbers are never taken from it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from moot.engine.core import Engine
from moot.engine.steps import Call
from moot.judges.base import Seat
from moot.parsing.extract import ReplyError, as_bool, as_list, as_text, extract_mapping, reply_parser
from moot.prompts import Templates
from moot.protocols.evaluate.schemas import (
    ConvergentFinding,
    DivergentFinding,
    EvaluationResult,
    Recommendation,
    SelfCritique,
)
from moot.protocols.evaluate.state import DebateState
from moot.schemas.messages import Message, Prompt
from moot.schemas.reply_schemas import moderator_reply_schema


def moderator_reserve(moderator: Seat, system: str, active: Sequence[Seat]) -> tuple[Seat, int]:
    """What the synthesis will need, held back by the budget before every round: it reads every reply."""
    per_judge = max(Engine.output_bound(s) for s in active)
    return moderator, len(system) // 4 + per_judge * len(active)


def moderator_call(moderator: Seat, base: EvaluationResult, state: DebateState) -> Call[dict[str, Any]]:
    prompt_text = PROMPTS.render(
        "moderator.j2",
        judge_count=len(state.active),
        result=base,  # the facts the engine computed, read by the template under the result's own names
        progression={k: v.model_dump() for k, v in base.round_progression.items()},
        reports=[
            {
                "judge": s.id,
                "stance": s.stance,
                "overall_score": state.latest(s).overall_score,
                "text": state.texts[s.id][-1],
            }
            for s in state.active
        ],
    )
    prompt = Prompt(
        system="You moderate structured debates between LLM judges and write faithful, balanced syntheses.",
        messages=[Message(role="user", content=prompt_text)],
        json_schema=moderator_reply_schema([s.id for s in state.active]),
        meta={"round": 0, "kind": "moderator"},
    )
    return Call(
        moderator,
        prompt,
        "moderator",
        "moderator",
        parse_moderator,
        lambda reason: PROMPTS.render("clarify.j2", reason=reason),
    )


@reply_parser
def parse_moderator(text: str) -> dict[str, Any]:
    data = extract_mapping(text, required_any=("majority_opinion", "recommendations"))
    if not as_text(data.get("majority_opinion")):
        raise ReplyError("majority_opinion is missing")
    return data


def _priority(item: dict[str, Any], allowed: tuple[str, ...], default: str) -> Any:
    prio = as_text(item.get("priority")).upper()
    return prio if prio in allowed else default


def _recommendation(item: dict[str, Any]) -> Recommendation:
    return Recommendation(
        priority=_priority(item, ("MUST", "SHOULD", "COULD"), "SHOULD"),
        action=as_text(item.get("action")),
        rationale=as_text(item.get("rationale")),
    )


def _convergent(item: dict[str, Any]) -> ConvergentFinding:
    return ConvergentFinding(
        finding=as_text(item.get("finding")),
        priority=_priority(item, ("CRITICAL", "HIGH", "MEDIUM", "LOW"), "MEDIUM"),
        action_required=bool(as_bool(item.get("action_required"))),
        source_judges=["all"],
    )


def _divergent(item: dict[str, Any]) -> DivergentFinding:
    raw_positions = item.get("positions")
    positions = raw_positions if isinstance(raw_positions, dict) else {}
    return DivergentFinding(
        finding=as_text(item.get("finding")),
        positions={str(k): as_text(v) for k, v in positions.items()},
        user_decision_needed=as_bool(item.get("user_decision_needed")) is not False,
    )


# a list the moderator wrote: its key, the field an entry is worthless without, and the entry's model
_LISTS: tuple[tuple[str, str, Callable[[dict[str, Any]], BaseModel]], ...] = (
    ("recommendations", "action", _recommendation),
    ("convergent_findings", "finding", _convergent),
    ("divergent_findings", "finding", _divergent),
)

PROMPTS = Templates(Path(__file__).parent / "templates")


def merge_moderator(base: EvaluationResult, data: dict[str, Any], label: str) -> EvaluationResult:
    """The moderator's prose over the engine's synthesis; what it left out stays the engine's."""
    update: dict[str, Any] = {"synthesis_by": f"moderator:{label}"}
    update["majority_opinion"] = as_text(data.get("majority_opinion"))
    if base.minority_judges or as_text(data.get("minority_opinion")):
        update["minority_opinion"] = as_text(data.get("minority_opinion")) or base.minority_opinion
    for key, required, entry in _LISTS:
        items = as_list(data.get(key))
        entries = [entry(item) for item in items if isinstance(item, dict) and as_text(item.get(required))]
        if entries:
            update[key] = entries
    critique = data.get("self_critique")
    if isinstance(critique, dict):
        update["self_critique"] = SelfCritique(
            questions_passed=as_text(critique.get("questions_passed")),
            synthesis_quality=as_text(critique.get("synthesis_quality")),
            potential_bias=as_text(critique.get("potential_bias")),
        )
    return base.model_copy(update=update)

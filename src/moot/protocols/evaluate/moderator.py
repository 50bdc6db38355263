"""The moderator's synthesis (seed 001's debate-judge): one more call after the last round, whose prose
may replace the engine's. The numbers are never taken from it.

The engine's synthesis of a scored evaluation (seed 001's format): convergent and divergent findings,
recommendations, opinions and what needs a person, derived from the judges' structured findings and
scores only. Agreement is never read from prose. A configured moderator may later replace the prose parts.

Each source (critical findings, criteria, the judges' own exchanges) adds to the same three lists, in
that order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from moot.engine.core import Engine
from moot.parsing.extract import as_list, extract_mapping
from moot.protocol import Call, Message, Prompt, ReplyError, Seat, Templates, as_text, reply_parser
from moot.protocols.evaluate.hardening import may_block
from moot.protocols.evaluate.replies import (
    ConvergentEntry,
    CritiqueEntry,
    DivergentEntry,
    RecommendationEntry,
    moderator_example,
    moderator_reply_schema,
)
from moot.protocols.evaluate.schemas import (
    PRIORITY,
    RESPONSES,
    AttentionItem,
    ConvergentFinding,
    CriticalFinding,
    DivergentFinding,
    EvaluationRequest,
    EvaluationResult,
    Recommendation,
    ScoredPosition,
    SelfCritique,
)
from moot.protocols.evaluate.state import DebateState

_PERSON_WEIGHS = "a person should weigh the evidence on both sides; the majority is not correct by vote count alone"


@dataclass
class _Synthesis:
    convergent: list[ConvergentFinding] = field(default_factory=list)
    divergent: list[DivergentFinding] = field(default_factory=list)
    recommendations: list[Recommendation] = field(default_factory=list)


def engine_synthesis(result: EvaluationResult, state: DebateState, request: EvaluationRequest) -> EvaluationResult:
    latest = {s.id: state.latest(s) for s in state.active}
    out = _Synthesis()
    _from_findings(out, state)
    _from_criteria(out, request, latest)
    _from_exchanges(out, latest)
    majority_ids, minority_ids = _sides(result, [s.id for s in state.active])
    return result.model_copy(
        update={
            "convergent_findings": out.convergent,
            "divergent_findings": out.divergent,
            "majority_opinion": _opinion(state, majority_ids),
            "minority_opinion": _opinion(state, minority_ids),
            "recommendations": out.recommendations,
            "user_attention_needed": _attention(result, out.divergent, majority_ids, minority_ids),
            "notes": [*result.notes, *unsupported_notes(result.unsupported_changes)],
        }
    )


def unsupported_notes(changes: Sequence[dict[str, object]]) -> list[str]:
    """The synthesis names every score changed without a stated cause."""
    return [
        f"{c['judge']} changed its score in round {c['round']} from {c['from']} to {c['to']} without naming what "
        "moved it (a grounded finding or another judge): an unsupported change"
        for c in changes
    ]


def _from_findings(out: _Synthesis, state: DebateState) -> None:
    """A critical finding every judge accepted must be resolved; one still disputed or open is a question."""
    states = state.states()
    for f in state.findings:
        where = {"file": f.file, "line": f.line, "location_valid": f.location_valid}
        if not may_block(f, grounding=state.grounding):  # kept visible, caps nothing
            rationale = f"{f.id} is not grounded ({f.ungrounded_reason}): it blocks nothing until its quote is found"
            out.recommendations.append(
                Recommendation(priority="COULD", action=f"Check: {f.finding}", rationale=rationale, **where)
            )
        elif states[f.id] == "agreed":
            out.convergent.append(
                ConvergentFinding(finding=f.finding, priority="CRITICAL", action_required=True, source_judges=["all"])
            )
            rationale = f"{f.id}: critical, accepted by all judges"
            out.recommendations.append(
                Recommendation(priority="MUST", action=f"Resolve: {f.finding}", rationale=rationale, **where)
            )
        elif states[f.id] in ("disputed", "open"):
            out.divergent.append(DivergentFinding(finding=f"{f.id}: {f.finding}", positions=_positions(state, f)))
            action, rationale = f"Decide whether this blocks: {f.finding}", f"{f.id} is disputed between judges"
            out.recommendations.append(Recommendation(priority="SHOULD", action=action, rationale=rationale, **where))


def _positions(state: DebateState, f: CriticalFinding) -> dict[str, str]:
    positions = {f.raised_by: "raised it as CRITICAL"}
    for seat in state.active:
        if seat.id != f.raised_by:
            answer = state.responses.get(seat.id, {}).get(f.id)
            positions[seat.id] = RESPONSES.status(answer or "") or "did not answer"
    return positions


def _from_criteria(out: _Synthesis, request: EvaluationRequest, latest: dict[str, ScoredPosition]) -> None:
    """Per criterion: a spread wider than the consensus range diverges; all high or all low converges; a mean
    under the verdict bars asks for improvement (the stricter bar first, one recommendation per criterion)."""
    thr = request.thresholds
    for c in request.criteria:
        scores = {j: p.dimension_scores[c.key] for j, p in latest.items()}
        lo, hi = min(scores.values()), max(scores.values())
        if hi - lo > request.consensus.dimension_score_range + 1e-9:
            finding = f"'{c.key}' scores range from {lo:g} to {hi:g}"
            out.divergent.append(
                DivergentFinding(finding=finding, positions={j: f"{v:g}/5" for j, v in scores.items()})
            )
        elif lo >= 4:
            finding = f"All judges rate {c.key} {lo:g}/5 or better"
            out.convergent.append(ConvergentFinding(finding=finding, priority="LOW", source_judges=["all"]))
        elif hi <= 2.5:
            finding = f"All judges rate {c.key} {hi:g}/5 or worse"
            out.convergent.append(
                ConvergentFinding(finding=finding, priority="HIGH", action_required=True, source_judges=["all"])
            )
        avg = round(sum(scores.values()) / len(scores), 2)
        bar = next(((p, b) for p, b in (("MUST", thr.conditional_at), ("SHOULD", thr.pass_at)) if avg < b), None)
        if bar is not None:
            rationale = f"mean score {avg:g}/5, below {bar[1]:g}"
            out.recommendations.append(Recommendation(priority=bar[0], action=f"Improve {c.key}", rationale=rationale))


def _from_exchanges(out: _Synthesis, latest: dict[str, ScoredPosition]) -> None:
    """What each judge itself still disputes, and the points it says it agrees on with another judge."""
    for seat_id, position in latest.items():
        for item in position.unresolved:
            # the parser quotes the judge ("mine: ..."); a reader needs to know whose view it is
            said = item.replace("(mine: ", f"({seat_id}'s view: ", 1).replace("; opposing: ", "; opposing view: ", 1)
            out.divergent.append(DivergentFinding(finding=said, positions={seat_id: "maintains this dispute"}))
        for ex in position.agreements:
            if ex.with_judge and ex.on_point:
                out.convergent.append(
                    ConvergentFinding(finding=ex.on_point, priority="MEDIUM", source_judges=[seat_id, ex.with_judge])
                )


def _sides(result: EvaluationResult, active: list[str]) -> tuple[list[str], list[str]]:
    """Whose opinion is the majority's and whose the minority's: everyone is the majority of a consensus,
    and of a forced verdict (which has no majority to speak for)."""
    if not result.consensus_reached and result.majority_judges:
        return result.majority_judges, result.minority_judges
    return active, []


def _attention(
    result: EvaluationResult, divergent: list[DivergentFinding], majority_ids: list[str], minority_ids: list[str]
) -> list[AttentionItem]:
    """Without consensus, every divergence goes to a person with both sides' scores; a forced verdict first."""
    if result.consensus_reached:
        return []
    maj, mino = result.majority_score, result.minority_score
    majority_view = f"majority ({', '.join(majority_ids)}) scores {maj:g}" if maj is not None else "no majority"
    minority_view = f"minority ({', '.join(minority_ids)}) scores {mino:g}" if mino is not None else ""
    attention = [
        AttentionItem(
            issue=d.finding, majority_view=majority_view, minority_view=minority_view, recommendation=_PERSON_WEIGHS
        )
        for d in divergent
    ]
    if result.summary.consensus_method == "forced":
        forced = AttentionItem(
            issue="no majority: the verdict was forced from the median score",
            recommendation="review the judges' reports before acting on this verdict",
        )
        attention.insert(0, forced)
    return attention


def _opinion(state: DebateState, seat_ids: list[str]) -> str:
    parts = []
    for seat in state.active:
        if seat.id in seat_ids:
            p = state.latest(seat)
            statement = p.statement.strip() or "(no statement given)"
            parts.append(f"{seat.id} ({seat.stance}, {p.overall_score:g}/5): {statement}")
    return "\n\n".join(parts)


def moderator_reserve(moderator: Seat, system: str, active: Sequence[Seat]) -> tuple[Seat, int]:
    """What the synthesis will need, held back by the budget before every round: it reads every reply."""
    per_judge = max(Engine.output_bound(s) for s in active)
    return moderator, len(system) // 4 + per_judge * len(active)


def moderator_call(moderator: Seat, base: EvaluationResult, state: DebateState) -> Call[dict[str, Any]]:
    prompt_text = PROMPTS.render(
        "moderator.j2",
        judge_count=len(state.active),
        example=moderator_example(),
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


def _priority(word: str, allowed: tuple[str, ...], default: str) -> Any:
    prio = word.upper()
    return prio if prio in allowed else default


def _recommendation(item: dict[str, Any]) -> Recommendation:
    entry = RecommendationEntry.model_validate(item)
    priority = _priority(entry.priority, ("MUST", "SHOULD", "COULD"), "SHOULD")
    return Recommendation(priority=priority, action=entry.action, rationale=entry.rationale)


def _convergent(item: dict[str, Any]) -> ConvergentFinding:
    entry = ConvergentEntry.model_validate(item)
    return ConvergentFinding(
        finding=entry.finding,
        priority=_priority(entry.priority, PRIORITY.words, "MEDIUM"),
        action_required=bool(entry.action_required),
        source_judges=["all"],
    )


def _divergent(item: dict[str, Any]) -> DivergentFinding:
    """The positions are read as given (by judge): the declared entry names them only once judges are known."""
    entry = DivergentEntry.model_validate(item)
    raw_positions = item.get("positions")
    positions = raw_positions if isinstance(raw_positions, dict) else {}
    return DivergentFinding(
        finding=entry.finding,
        positions={str(k): as_text(v) for k, v in positions.items()},
        user_decision_needed=entry.user_decision_needed is not False,
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
        update["self_critique"] = SelfCritique(**CritiqueEntry.model_validate(critique).model_dump())
    return base.model_copy(update=update)

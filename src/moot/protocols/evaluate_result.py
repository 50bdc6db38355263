"""The synthesis of a scored evaluation: findings, opinions and recommendations (seed 001's format).

The engine writes one from the judges' own structured findings and scores; a configured moderator
(seed 001's debate-judge) may replace the prose parts. Numbers always come from the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from moot.engine import Engine, ask
from moot.parsing.extract import ReplyError, as_bool, as_list, as_text, extract_mapping
from moot.prompts import render
from moot.schemas.evaluate import (
    AttentionItem,
    ConvergentFinding,
    DivergentFinding,
    EvaluationRequest,
    EvaluationResult,
    Recommendation,
    SelfCritique,
)
from moot.schemas.messages import Message, Prompt
from moot.schemas.reply_schemas import moderator_reply_schema

if TYPE_CHECKING:
    from moot.judges.base import Seat
    from moot.protocols.evaluate import DebateState


def _opinion(state: DebateState, seat_ids: list[str]) -> str:
    parts = []
    for seat in state.active:
        if seat.id in seat_ids:
            p = state.latest(seat)
            statement = p.statement.strip() or "(no statement given)"
            parts.append(f"{seat.id} ({seat.stance}, {p.overall_score:g}/5): {statement}")
    return "\n\n".join(parts)


def engine_synthesis(result: EvaluationResult, state: DebateState, request: EvaluationRequest) -> EvaluationResult:
    """Findings and recommendations derived from structured data only (no reading of prose for agreement)."""
    active = [s.id for s in state.active]
    latest = {s.id: state.latest(s) for s in state.active}
    states = state.states()
    convergent: list[ConvergentFinding] = []
    divergent: list[DivergentFinding] = []
    recs: list[Recommendation] = []

    for f in state.findings:
        s = states[f.id]
        if s == "agreed":
            convergent.append(
                ConvergentFinding(finding=f.finding, priority="CRITICAL", action_required=True, source_judges=["all"])
            )
            recs.append(
                Recommendation(
                    priority="MUST",
                    action=f"Resolve: {f.finding}",
                    rationale=f"{f.id}: critical, accepted by all judges",
                )
            )
        elif s in ("disputed", "open"):
            positions = {f.raised_by: "raised it as CRITICAL"}
            for j in active:
                resp = state.responses.get(j, {}).get(f.id)
                if j != f.raised_by:
                    positions[j] = {"accept": "accepts it", "reject": "rejects it"}.get(resp or "", "did not answer")
            divergent.append(DivergentFinding(finding=f"{f.id}: {f.finding}", positions=positions))
            recs.append(
                Recommendation(
                    priority="SHOULD",
                    action=f"Decide whether this blocks: {f.finding}",
                    rationale=f"{f.id} is disputed between judges",
                )
            )

    for c in request.criteria:
        scores = {j: latest[j].dimension_scores[c.key] for j in active}
        lo, hi = min(scores.values()), max(scores.values())
        avg = round(sum(scores.values()) / len(scores), 2)
        if hi - lo > request.consensus.dimension_score_range + 1e-9:
            divergent.append(
                DivergentFinding(
                    finding=f"'{c.key}' scores range from {lo:g} to {hi:g}",
                    positions={j: f"{v:g}/5" for j, v in scores.items()},
                )
            )
        elif lo >= 4:
            convergent.append(
                ConvergentFinding(
                    finding=f"All judges rate {c.key} {lo:g}/5 or better",
                    priority="LOW",
                    source_judges=["all"],
                )
            )
        elif hi <= 2.5:
            convergent.append(
                ConvergentFinding(
                    finding=f"All judges rate {c.key} {hi:g}/5 or worse",
                    priority="HIGH",
                    action_required=True,
                    source_judges=["all"],
                )
            )
        if avg < request.thresholds.conditional_at:
            recs.append(
                Recommendation(
                    priority="MUST",
                    action=f"Improve {c.key}",
                    rationale=f"mean score {avg:g}/5, below {request.thresholds.conditional_at:g}",
                )
            )
        elif avg < request.thresholds.pass_at:
            recs.append(
                Recommendation(
                    priority="SHOULD",
                    action=f"Improve {c.key}",
                    rationale=f"mean score {avg:g}/5, below {request.thresholds.pass_at:g}",
                )
            )

    for seat in state.active:
        for item in latest[seat.id].unresolved:
            divergent.append(DivergentFinding(finding=item, positions={seat.id: "maintains this dispute"}))
        for ex in latest[seat.id].agreements:
            if ex.with_judge and ex.on_point:
                convergent.append(
                    ConvergentFinding(finding=ex.on_point, priority="MEDIUM", source_judges=[seat.id, ex.with_judge])
                )

    if result.consensus_reached:
        majority_ids, minority_ids = active, []
    elif result.majority_judges:
        majority_ids, minority_ids = result.majority_judges, result.minority_judges
    else:
        majority_ids, minority_ids = active, []

    attention: list[AttentionItem] = []
    if not result.consensus_reached:
        maj = result.majority_score
        for d in divergent:
            attention.append(
                AttentionItem(
                    issue=d.finding,
                    majority_view=f"majority ({', '.join(majority_ids)}) scores {maj:g}"
                    if maj is not None
                    else "no majority",
                    minority_view=f"minority ({', '.join(minority_ids)}) scores {result.minority_score:g}"
                    if result.minority_score is not None
                    else "",
                    recommendation="a person should weigh the evidence on both sides; "
                    "the majority is not correct by vote count alone",
                )
            )
        if result.summary.consensus_method == "forced":
            attention.insert(
                0,
                AttentionItem(
                    issue="no majority: the verdict was forced from the median score",
                    recommendation="review the judges' reports before acting on this verdict",
                ),
            )

    return result.model_copy(
        update={
            "convergent_findings": convergent,
            "divergent_findings": divergent,
            "majority_opinion": _opinion(state, majority_ids),
            "minority_opinion": _opinion(state, minority_ids),
            "recommendations": recs,
            "user_attention_needed": attention,
        }
    )


def _parse_moderator(text: str) -> dict[str, Any]:
    data = extract_mapping(text, required_any=("majority_opinion", "recommendations"))
    if not as_text(data.get("majority_opinion")):
        raise ReplyError("majority_opinion is missing")
    return data


async def moderator_synthesis(
    base: EvaluationResult, state: DebateState, request: EvaluationRequest, moderator: Seat, engine: Engine
) -> EvaluationResult:
    prompt_text = render(
        "evaluate/moderator.j2",
        judge_count=len(state.active),
        artifact=base.artifact_evaluated,
        rounds_completed=base.rounds_completed,
        verdict=base.summary.final_verdict,
        score=base.summary.consensus_score,
        method=base.summary.consensus_method,
        verdict_type=base.verdict_type,
        majority_judges=base.majority_judges,
        minority_judges=base.minority_judges,
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
    answer = await ask(
        engine,
        moderator,
        prompt,
        _parse_moderator,
        key="moderator",
        round_no=0,
        kind="moderator",
        clarify=lambda reason: render("evaluate/clarify.j2", reason=reason),
    )
    if answer.value is None:
        return base.model_copy(
            update={"notes": [*base.notes, f"moderator failed ({answer.reason}); synthesis written by the engine"]}
        )
    data = answer.value
    update: dict[str, Any] = {"synthesis_by": f"moderator:{moderator.label}"}
    update["majority_opinion"] = as_text(data.get("majority_opinion"))
    if base.minority_judges or as_text(data.get("minority_opinion")):
        update["minority_opinion"] = as_text(data.get("minority_opinion")) or base.minority_opinion
    recs = []
    for item in as_list(data.get("recommendations")):
        if isinstance(item, dict) and as_text(item.get("action")):
            prio = as_text(item.get("priority")).upper()
            recs.append(
                Recommendation(
                    priority=prio if prio in ("MUST", "SHOULD", "COULD") else "SHOULD",
                    action=as_text(item.get("action")),
                    rationale=as_text(item.get("rationale")),
                )
            )
    if recs:
        update["recommendations"] = recs
    conv = []
    for item in as_list(data.get("convergent_findings")):
        if isinstance(item, dict) and as_text(item.get("finding")):
            prio = as_text(item.get("priority")).upper()
            conv.append(
                ConvergentFinding(
                    finding=as_text(item.get("finding")),
                    priority=prio if prio in ("CRITICAL", "HIGH", "MEDIUM", "LOW") else "MEDIUM",
                    action_required=bool(as_bool(item.get("action_required"))),
                    source_judges=["all"],
                )
            )
    if conv:
        update["convergent_findings"] = conv
    div = []
    for item in as_list(data.get("divergent_findings")):
        if isinstance(item, dict) and as_text(item.get("finding")):
            raw_positions = item.get("positions")
            positions = raw_positions if isinstance(raw_positions, dict) else {}
            div.append(
                DivergentFinding(
                    finding=as_text(item.get("finding")),
                    positions={str(k): as_text(v) for k, v in positions.items()},
                    user_decision_needed=as_bool(item.get("user_decision_needed")) is not False,
                )
            )
    if div:
        update["divergent_findings"] = div
    critique = data.get("self_critique")
    if isinstance(critique, dict):
        update["self_critique"] = SelfCritique(
            questions_passed=as_text(critique.get("questions_passed")),
            synthesis_quality=as_text(critique.get("synthesis_quality")),
            potential_bias=as_text(critique.get("potential_bias")),
        )
    return base.model_copy(update=update)

"""Plain-text rendering of results for a terminal (what `--format text` prints)."""

from __future__ import annotations

from moot.reports.cost_table import cost_table
from moot.reports.markdown import score_table
from moot.schemas.evaluate import EvaluationResult


def evaluation_text(result: EvaluationResult) -> str:
    s = result.summary
    out = [
        f"Verdict: {s.final_verdict}  score {s.consensus_score:g}/5  ({s.consensus_method}, confidence {s.confidence})",
        f"Debate {result.debate_id}: {result.rounds_completed} round(s), "
        + (f"consensus in round {result.consensus_reached_at}" if result.consensus_reached else "no consensus"),
        "",
    ]
    judges = {j.judge: j for j in result.judges}
    out += [f"  {j.judge}: {j.model} ({j.stance}) — {j.status}" for j in judges.values()]
    out.append("")
    out += score_table(result)
    out.append("")
    for name, r in result.round_progression.items():
        tail = "consensus" if r.consensus else "; ".join(r.reasons)
        out.append(f"{name}: {', '.join(f'{x:g}' for x in r.scores)} (range {r.range:g}) {tail}")
    if result.majority_judges and not result.consensus_reached:
        out.append(
            f"majority {', '.join(result.majority_judges)} at {result.majority_score:g}; "
            f"minority {', '.join(result.minority_judges)}"
            + (f" at {result.minority_score:g}" if result.minority_score is not None else "")
        )
    if result.critical_findings:
        out += ["", "CRITICAL findings:"]
        for f in result.critical_findings:
            out.append(f"  {f['id']} [{f['state']}] {f['finding']} (raised by {f['raised_by']})")
    if result.minority_opinion:
        out += ["", "Minority opinion:", result.minority_opinion]
    if result.divergent_findings:
        out += ["", "Divergent findings:"] + [f"  - {d.finding}" for d in result.divergent_findings]
    if result.recommendations:
        out += ["", "Recommendations:"] + [f"  {r.priority:6} {r.action}" for r in result.recommendations]
    if result.user_attention_needed:
        out += ["", "Needs your attention:"] + [f"  - {a.issue}" for a in result.user_attention_needed]
    if result.notes:
        out += ["", "Notes:"] + [f"  - {n}" for n in result.notes]
    sp = result.spend
    out += [
        "",
        f"Spent: {sp.calls} calls ({sp.clarifications} clarifications, {sp.retries} retries), "
        f"{sp.input_tokens}+{sp.output_tokens} tokens, ${sp.cost_usd:.4f}, {sp.wall_seconds:.1f}s",
    ]
    if sp.calls:
        out += ["", *cost_table(sp)]
    if result.reports:
        out += ["Reports:"] + [f"  {p}" for p in result.reports]
    return "\n".join(out) + "\n"

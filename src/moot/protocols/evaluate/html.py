"""The HTML view of a scored evaluation (seeds 000, 001, 003): the verdict and score, each judge's score
per round as a chart, and the tables behind it (criterion scores, findings, recommendations)."""

from __future__ import annotations

from typing import Any

from moot.protocols.evaluate.follow_up import change_line
from moot.protocols.evaluate.locations import apart
from moot.protocols.evaluate.schemas import VERDICT
from moot.protocols.evaluate.settings import VerdictThresholds
from moot.render import html_common as h
from moot.render.html_chart import Chart, Rule, build_chart
from moot.render.html_common import JUDGE_COLUMNS, Columns, DebateRecord, Section, Table, VerdictBox, View
from moot.render.html_effect import effect_section
from moot.render.html_page import make_view

UNGROUNDED_TITLE = "Not grounded (their quote is not in the artifact; they block nothing)"

CriterionRow = tuple[int, str, dict[str, float], float]

PROGRESSION_COLUMNS: Columns = [
    ("Round", "name"),
    ("Scores", lambda p: ", ".join(h.num(x) for x in h.as_list(p.get("scores")))),
    ("Range", lambda p: h.num(p.get("range"))),
    ("Consensus", lambda p: h.num(p.get("consensus"))),
    ("Why not", lambda p: h.joined(p.get("reasons"), "; ")),
]
DIVERGENT_COLUMNS: Columns = [
    ("Finding", "finding"),
    ("Positions", lambda d: h.text(h.as_dict(d.get("positions")))),
    ("Needs your decision", lambda d: h.num(d.get("user_decision_needed"))),
]
RECOMMENDATION_COLUMNS: Columns = [("Priority", "priority"), ("Action", "action"), ("Rationale", "rationale")]


def criterion_scores(record: DebateRecord) -> list[CriterionRow]:
    """(round, judge, per-criterion scores, overall) for every judge still on the panel in each round.

    Read from the round records. A debate recorded before those carried the criterion scores shows each
    judge's final scores only: re-reading the replies would need the protocol's parser, which a report
    does not depend on.
    """
    stored = [
        (n, judge, {k: float(v) for k, v in dims.items()}, float(data["by_judge"][judge]))
        for n, data in sorted(record.rounds.items())
        for judge, dims in h.as_dict(data.get("dimension_scores")).items()
        if judge in h.as_dict(data.get("by_judge"))
    ]
    if stored:
        return stored
    r = record.result or {}
    last = r["rounds_completed"] if isinstance(r.get("rounds_completed"), int) else 0
    return [
        (
            int(j["dropped_in_round"]) - 1 if j.get("dropped_in_round") else last,
            h.text(j.get("judge")),
            {k: float(v) for k, v in h.as_dict(j.get("final_scores")).items()},
            float(j["final_score"]),
        )
        for j in h.records(r.get("judges"))
        if j.get("final_scores") and isinstance(j.get("final_score"), int | float)
    ]


def evaluate_view(record: DebateRecord) -> View:
    r = record.result or {}
    s = h.as_dict(r.get("summary"))
    v = h.envelope_verdict(r)
    word = str(v.get("answer") or record.status.upper())
    facts = [
        ("Score", f"{h.num(s.get('consensus_score'))}/5" if s.get("consensus_score") is not None else "-"),
        h.fact("Method", s.get("consensus_method")),
        h.fact("Confidence", v.get("confidence")),
        h.rounds_fact(r),
        ("Artifact", h.text(r.get("artifact_evaluated"))),
        *h.facts_if_any(r, {"task": "Task"}),
        *([("Follow-up", h.text(change_line(h.as_dict(r["follow_up"]))))] if r.get("follow_up") else []),
    ]
    verdict = VerdictBox(word, VERDICT.html_tone(word), facts, h.text(r.get("majority_opinion")))
    chart, caption = _chart(record)
    return make_view(record, verdict, _sections(record), chart=chart, chart_caption=caption)


def thresholds(record: DebateRecord) -> list[Rule]:
    """The verdict thresholds the debate was judged by (its request holds them), else the defaults."""
    try:
        t = VerdictThresholds.model_validate(h.as_dict(record.request.get("thresholds")))
    except ValueError:
        t = VerdictThresholds()
    return [
        Rule(f"PASS ≥ {t.pass_at:g}", t.pass_at, "#1a7f37"),
        Rule(f"CONDITIONAL ≥ {t.conditional_at:g}", t.conditional_at, "#9a6700"),
    ]


def _overall_scores(record: DebateRecord) -> dict[str, dict[int, float]]:
    """judge -> round -> overall score, from the result, or from the round records of an unfinished debate."""
    per_judge: dict[str, dict[int, float]] = {}
    progression = h.as_dict((record.result or {}).get("round_progression"))
    for name, summary in (progression or {f"round_{k}": v for k, v in record.rounds.items()}).items():
        n = h.round_no(name)
        for judge, score in h.as_dict(h.as_dict(summary).get("by_judge")).items():
            if n is not None and isinstance(score, int | float):
                per_judge.setdefault(judge, {})[n] = float(score)
    return per_judge


def _chart(record: DebateRecord) -> tuple[Chart | None, str]:
    r = record.result or {}
    width = h.as_dict(record.request.get("consensus")).get("overall_score_range")
    final = h.as_dict(r.get("summary")).get("consensus_score")
    band = None
    if r.get("consensus_reached") and isinstance(width, int | float) and isinstance(final, int | float):
        band = (final - width / 2, final + width / 2)
    stances = {h.text(j.get("judge")): h.text(j.get("stance")) for j in h.records(r.get("judges"))}
    chart = build_chart(
        _overall_scores(record), band=band, y_label="overall score", rules=thresholds(record), notes=stances
    )
    caption = "Each judge's overall score per round, with its stance in the legend" + (
        f"; the shaded band is the consensus range ({h.num(width)}) around the final score" if band else ""
    )
    return chart, caption + "; the dashed lines are the verdict thresholds"


def _criterion_section(record: DebateRecord) -> Section | None:
    rows = criterion_scores(record)
    if not rows:
        return None
    keys = list(dict.fromkeys(k for _, _, dims, _ in rows for k in dims))
    cells = [[str(n), j, *[h.num(d.get(k)) for k in keys], h.num(o)] for n, j, d, o in rows]
    return Section("Scores per criterion, judge and round", table=Table(["Round", "Judge", *keys, "Overall"], cells))


def _convergent(f: Any) -> str:
    d = h.as_dict(f)
    sources = f" ({h.joined(d.get('source_judges'))})" if d.get("source_judges") else ""
    return f"[{h.text(d.get('priority')) or '-'}] {h.text(d.get('finding'))}{sources}"


def _attention(a: Any) -> str:
    d = h.as_dict(a)
    return h.text(d.get("issue")) + (f": {h.text(d.get('recommendation'))}" if d.get("recommendation") else "")


def _majority(r: dict[str, Any]) -> Section | None:
    if not r.get("majority_judges") or r.get("consensus_reached"):
        return None
    return Section(
        "Majority and minority",
        text=f"Majority ({h.joined(r.get('majority_judges'))}): {h.num(r.get('majority_score'))}; "
        f"minority ({h.joined(r.get('minority_judges'))}): {h.num(r.get('minority_score'))}",
    )


def _sections(record: DebateRecord) -> list[Section]:
    r = record.result or {}
    final_score: Columns = [("Final score", lambda j: h.num(j.get("final_score")))]
    grounded, ungrounded = apart(h.as_list(r.get("critical_findings")))
    return h.present(
        effect_section(r),
        _criterion_section(record),
        h.records_section("Round progression", h.named(r.get("round_progression")), PROGRESSION_COLUMNS),
        h.records_section("Judges", r.get("judges"), [*JUDGE_COLUMNS, *final_score]),
        h.records_section("Critical findings", grounded),
        h.records_section(UNGROUNDED_TITLE, ungrounded),
        h.records_section("Unsupported score changes", r.get("unsupported_changes")),
        h.items_section("Convergent findings", r.get("convergent_findings"), _convergent),
        h.records_section("Divergent findings", r.get("divergent_findings"), DIVERGENT_COLUMNS),
        _majority(r),
        h.text_section("Minority opinion", r.get("minority_opinion"), markdown=True),
        h.records_section("Recommendations", r.get("recommendations"), RECOMMENDATION_COLUMNS),
        h.items_section("Needs human review", r.get("user_attention_needed"), _attention),
        h.items_section("Notes", r.get("notes")),
    )

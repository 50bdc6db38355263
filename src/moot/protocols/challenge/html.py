"""The HTML view of a position challenge (seed 004): the outcome and final position, where each
challenger stands per round as a chart, and the tables behind it (position history, objections,
assumptions, rounds)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from moot.protocols.challenge.replies import REBUTTAL_WORDS, VERDICT_WORDS
from moot.protocols.challenge.schemas import OUTCOME_WORDS, VERDICT
from moot.render import html_common as h
from moot.render.html_chart import Chart, build_chart
from moot.render.html_common import Columns, DebateRecord, Section, VerdictBox, View
from moot.render.html_effect import effect_section
from moot.render.html_page import make_view
from moot.schemas.envelope import headline

STANCE_LEVELS = ["objects", "partly agrees", "agrees"]  # y axis of the challenge chart, low to high


def _level(word: str) -> int | None:
    """A challenger's stance on the chart, from its verdict or its rebuttal word (their declared meanings)."""
    return VERDICT_WORDS.level(word.lower()) if word.lower() in VERDICT_WORDS.words else REBUTTAL_WORDS.level(word)


def _why_changed(v: dict[str, Any]) -> str:
    reasons = "\n".join(
        f"{h.text(c.get('decision'))} {h.text(c.get('objection_id'))} ({h.text(c.get('raised_by'))}): "
        + h.text(c.get("objection"))
        for c in h.records(v.get("changed_because"))
    )
    if reasons:
        return reasons
    if not v.get("round"):
        return "opening"
    return "changed (no objection named as the reason)" if v.get("changed") else "unchanged"


def _replies(x: dict[str, Any]) -> str:
    return "\n".join(
        f"{h.text(y.get('seat'))} {h.text(y.get('kind'))}: {h.text(y.get('verdict')) or h.text(y.get('status'))}"
        + (f" (read as {h.text(y.get('treated_as'))})" if y.get("treated_as") else "")
        for y in h.records(x.get("replies"))
    )


HISTORY_COLUMNS: Columns = [
    ("Version", lambda v: f"v{h.num(v.get('version'))}"),
    ("After round", lambda v: h.num(v.get("round"))),
    ("Confidence", "confidence"),
    ("Position", "position"),
    ("Changed because", _why_changed),
]
ASSUMPTION_COLUMNS: Columns = [("Assumption", "assumption"), ("Held by", "held_by"), ("Supports", "supports")]
STATEMENT_COLUMNS: Columns = [
    ("Party", "seat"),
    ("Why", "why_disagree"),
    ("What would change its mind", "what_would_change_my_mind"),
]
OBJECTION_COLUMNS: Columns = [
    ("Id", "id"),
    ("Raised by", "raised_by"),
    ("Round", lambda o: h.num(o.get("round"))),
    ("Strength", "strength"),
    ("Objection", "text"),
    ("Answer", lambda o: h.text(o.get("decision")) or "-"),
    ("Reason", "reason"),
]
ROUND_COLUMNS: Columns = [
    ("Round", lambda x: h.num(x.get("round"))),
    ("Replies", _replies),
    ("Decision", "decision"),
    ("Why", lambda x: h.joined(x.get("reasons"), "; ")),
]
CHALLENGER_COLUMNS: Columns = [
    ("Seat", "seat"),
    ("Model", "model"),
    ("Kind", "kind"),
    ("Answered by", "answered_by"),
    ("Status", "status"),
]


def challenge_view(record: DebateRecord) -> View:
    r = record.result or {}
    v = h.envelope_verdict(r)
    outcome = headline(r, OUTCOME_WORDS) or record.status.upper()
    tone = VERDICT.html_tone(headline(r, OUTCOME_WORDS))
    facts = [
        h.fact("Confidence", v.get("confidence")),
        ("Rounds", h.num(r.get("rounds_completed")) + (" (fast exit)" if r.get("fast_exit") else "")),
        h.fact("Proponent", r.get("proponent")),
        ("Topic", h.text(r.get("topic"))),
    ]
    return make_view(
        record,
        VerdictBox(outcome, tone, facts, h.text(r.get("final_position"))),
        _sections(r),
        chart=_chart(r),
        chart_title="Challengers per round",
        chart_caption="Where each challenger stands at the end of each round (its last verdict or rebuttal)",
    )


def _chart(r: Mapping[str, Any]) -> Chart | None:
    per_seat: dict[str, dict[int, float]] = {}
    rounds = 0
    for rec in h.records(r.get("round_log")):
        n = rec.get("round")
        if not isinstance(n, int) or n < 1:
            continue
        rounds = max(rounds, n)
        for reply in h.records(rec.get("replies")):
            level = _level(str(reply.get("treated_as") or reply.get("verdict") or "").upper())
            if reply.get("status", "ok") == "ok" and level is not None:
                per_seat.setdefault(str(reply.get("seat")), {})[n] = float(level)
    for per in per_seat.values():  # a challenger not asked again keeps where it stood
        last = None
        for n in range(1, rounds + 1):
            last = per.get(n, last)
            if last is not None:
                per[n] = last
    return build_chart(per_seat, y_labels=STANCE_LEVELS, y_label="challenger stance")


def _sections(r: Mapping[str, Any]) -> list[Section]:
    return h.present(
        effect_section(r),
        h.records_section("Position history", r.get("position_history"), HISTORY_COLUMNS),
        h.items_section("What changed", r.get("what_changed")),
        h.text_section("Core disagreement", r.get("core_disagreement"), markdown=True),
        h.records_section("Assumptions exposed", r.get("assumptions"), ASSUMPTION_COLUMNS),
        h.records_section("Why they disagree", r.get("statements"), STATEMENT_COLUMNS),
        h.records_section("Objections", r.get("objections"), OBJECTION_COLUMNS),
        h.records_section("Rounds", r.get("round_log"), ROUND_COLUMNS),
        h.records_section("Challengers", r.get("challengers"), CHALLENGER_COLUMNS),
        h.items_section("Skepticism rule", r.get("skepticism")),
        h.items_section("Skipped", r.get("skipped_challengers")),
        h.items_section("Notes", r.get("notes")),
    )

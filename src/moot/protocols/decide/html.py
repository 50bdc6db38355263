"""The HTML view of an option choice (seed 002): the option chosen (or that the judges disagreed), the
option each judge recommends per round as a chart, and the tables behind it (options, perspectives,
recommendations per round, the change log)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from moot.protocols.decide.schemas import OUTCOME_WORDS, VERDICT
from moot.render import html_common as h
from moot.render.html_chart import Chart, build_chart
from moot.render.html_common import JUDGE_COLUMNS, Cell, Columns, DebateRecord, Section, VerdictBox, View
from moot.render.html_effect import effect_section
from moot.render.html_page import make_view
from moot.schemas.envelope import headline as envelope_headline

CHANGE_COLUMNS: Columns = [
    ("Judge", "judge"),
    ("Round", lambda c: h.num(c.get("round"))),
    ("From", "from"),
    ("To", "to"),
    ("What convinced it", "reason"),
]


def decide_view(record: DebateRecord) -> View:
    r = record.result or {}
    options = h.records(r.get("options"))
    labels = {str(o.get("id")): h.text(o.get("label")) for o in options}
    v = h.envelope_verdict(r)
    chosen, kind = v.get("answer"), v.get("kind")
    if chosen:
        headline = f"Option {chosen}" + (f": {labels[str(chosen)]}" if labels.get(str(chosen)) else "")
    else:
        headline = envelope_headline(r, OUTCOME_WORDS) or record.status.upper()
    # its outcome word's tone (`VERDICT`); no option and no dispute: nothing to colour
    tone = VERDICT.html_tone(envelope_headline(r, OUTCOME_WORDS)) if chosen or kind == "contested" else "neutral"
    facts = [
        h.fact("Outcome", envelope_headline(r, OUTCOME_WORDS)),
        h.fact("Confidence", v.get("confidence")),
        h.rounds_fact(r),
        ("Threshold", h.num(r.get("consensus_threshold"))),
        *h.facts_if_any(r, {"decided_by": "Decided by"}),
    ]
    summary = h.text(r.get("question")) + ("\n\n" + h.text(r.get("message")) if r.get("message") else "")
    return make_view(
        record,
        VerdictBox(headline, tone, facts, summary),
        _sections(r, options),
        chart=_chart(r, [str(o.get("id")) for o in options]),
        chart_title="Recommendations per round",
        chart_caption=(
            "The option each judge recommends per round; judges on the same option are drawn side by side, "
            "each with its own colour and marker"
        ),
    )


def _chart(r: Mapping[str, Any], option_ids: list[str]) -> Chart | None:
    index = {o: k for k, o in enumerate(option_ids, 1)}
    per_judge: dict[str, dict[int, float]] = {}
    for name, tally in h.as_dict(r.get("rounds")).items():
        n = h.round_no(name)
        for judge, option in h.as_dict(h.as_dict(tally).get("recommendations")).items():
            if n is not None and option in index:
                per_judge.setdefault(judge, {})[n] = float(index[option])
    return build_chart(per_judge, y_labels=option_ids, y_label="recommended option") if option_ids else None


def _consensus(t: dict[str, Any]) -> str:
    share = t.get("share")
    return (f"yes: {h.text(t.get('option'))}" if t.get("consensus") else "no") + (
        f" ({share:.0%})" if isinstance(share, int | float) else ""
    )


def _round_columns(rounds: list[dict[str, Any]]) -> Columns:
    """One column per judge that recommended anything, in first-seen order."""
    judges = list(dict.fromkeys(j for t in rounds for j in h.as_dict(t.get("recommendations"))))

    def judge_cell(judge: str) -> Cell:
        return lambda t: h.text(h.as_dict(t.get("recommendations")).get(judge)) or "-"

    return [("Round", "name"), *[(j, judge_cell(j)) for j in judges], ("Consensus", _consensus)]


def _for_a_person(r: Mapping[str, Any]) -> Section | None:
    """A contested result, said as a statement: the engine's `user_prompt` asks the person at the
    terminal which option to take, a question that a static page cannot take an answer to."""
    if r.get("consensus") or not (r.get("user_prompt") or r.get("outcome") == "CONTESTED"):
        return None
    if r.get("user_choice"):
        return Section(
            "Decided by a person", text=f"The judges did not agree; a person chose option {r['user_choice']}."
        )
    return Section(
        "A person must decide",
        text="The judges did not agree on one option. A person must choose between the options above, "
        "weighing each judge's perspective; the judges' debate does not decide it.",
    )


def _sections(r: Mapping[str, Any], options: list[dict[str, Any]]) -> list[Section]:
    distribution = h.as_dict(r.get("distribution"))
    option_columns: Columns = [
        ("Option", "id"),
        ("Label", "label"),
        ("Description", "description"),
        ("Recommended by (last round)", lambda o: h.joined(distribution.get(str(o.get("id"))))),
    ]
    perspectives = [{"judge": k, "perspective": v} for k, v in h.as_dict(r.get("perspectives")).items()]
    rounds = h.named(r.get("rounds"))
    return h.present(
        effect_section(r),
        h.records_section("Options", options, option_columns),
        h.records_section("Perspectives", perspectives, [("Judge", "judge"), ("Perspective", "perspective")]),
        h.records_section("Recommendations per round", rounds, _round_columns(rounds)),
        h.records_section("Change log", r.get("change_log"), CHANGE_COLUMNS),
        h.records_section("Judges", r.get("judges"), JUDGE_COLUMNS),
        h.items_section("No usable recommendation", r.get("no_recommendation")),
        _for_a_person(r),
        h.items_section("Notes", r.get("notes")),
    )

"""The page around a protocol's own part: title, cost and the full transcript are built the same way for
every protocol, so a protocol's view builder supplies only its verdict, chart and sections.

What the HTML report shows of a protocol without a view of its own: `generic_view`, a `View` built from
a debate's stored record, tolerant of missing keys (a debate that failed halfway, or a result written by
an older version). Each protocol's own view is its `ProtocolSpec.html_view`, chosen above the protocols
(`moot.api.report.build_view`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from moot.render import html_common as h
from moot.render.html_chart import Chart
from moot.render.html_common import DebateRecord, Figure, Section, Table, TranscriptEntry, VerdictBox, View
from moot.render.html_cost import cost_sections
from moot.schemas.envelope import headline
from moot.store.db import CallRecord

__all__ = ["DebateRecord", "View", "generic_sections", "generic_view"]

# the envelope's keys a generic page shows in its verdict box, not again as sections
ENVELOPE_SHOWN = {"debate_id", "protocol", "spend", "verdict", "status"}


def _generic_section(title: str, value: Any) -> Section | None:
    """Lists of mappings as tables, other lists as items, flat mappings as two columns, the rest as text."""
    if isinstance(value, list) and all(isinstance(v, Mapping) for v in value):
        return h.records_section(title, value)
    if isinstance(value, list):
        return h.items_section(title, value)
    if isinstance(value, Mapping) and all(not isinstance(v, Mapping | list) for v in value.values()):
        return Section(title, table=Table(["", ""], [[str(k), h.text(v)] for k, v in value.items()]))
    return Section(title, text=h.text(value))


def generic_sections(result: Mapping[str, Any], skip: set[str]) -> list[Section]:
    """Any keys of a result that no builder knows, shown plainly."""
    return h.present(
        *(
            _generic_section(key.replace("_", " ").capitalize(), value)
            for key, value in result.items()
            if key not in skip and value not in (None, "", [], {})
        )
    )


def generic_view(record: DebateRecord, tones: Mapping[str, str] | None = None) -> View:
    """A protocol without a builder of its own: its envelope's verdict on top, its other keys plainly.
    `tones`: the protocol's verdict words and their tones (`VerdictSpec.words`), for the verdict's colour."""
    r = record.result or {}
    v = h.envelope_verdict(r)
    word = headline(r, None) or h.text(v.get("answer"))
    facts = [h.fact("Kind", v.get("kind")), h.fact("Confidence", v.get("confidence"))] if v else []
    verdict = VerdictBox(word or record.status.upper(), h.tone_of(word, tones), facts)
    return make_view(record, verdict, generic_sections(r, ENVELOPE_SHOWN))


def transcripts(calls: Sequence[CallRecord]) -> dict[int, list[TranscriptEntry]]:
    """Every reply (or failure) per round, in call order: the full text behind the report."""
    out: dict[int, list[TranscriptEntry]] = {}
    for c in calls:
        who = c.answered_by or c.model
        body = c.reply if c.reply is not None else f"({c.status}) {c.error or 'no reply'}"
        out.setdefault(c.round, []).append(TranscriptEntry(c.seat, who, c.kind, c.status, body))
    return dict(sorted(out.items()))


_STATUS_TONES = {"failed": "fail", "interrupted": "conditional"}  # the viewer's status colours (view.css)


def make_view(
    record: DebateRecord,
    verdict: VerdictBox,
    sections: list[Section],
    *,
    chart: Chart | None = None,
    chart_title: str = "Scores per round",
    chart_caption: str = "",
) -> View:
    """A debate's error replaces the summary: it says why the result is what it is. With no result, the
    headline (the status, FAILED or INTERRUPTED) takes the status's colour, as the viewer shows it."""
    if record.error:
        verdict.summary, verdict.markdown = record.error, False
    if record.result is None:
        verdict.tone = _STATUS_TONES.get(record.status, verdict.tone)
    figure = Figure(chart, chart_title, chart_caption) if chart is not None else None
    return View(
        record,
        verdict,
        figure,
        sections,
        cost=cost_sections(record.result or {}, record.calls, record.final_name),
        transcripts=transcripts(record.calls),
    )

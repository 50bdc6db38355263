"""The page around a protocol's own part: title, cost and the full transcript are built the same way for
every protocol, so a protocol's view builder supplies only its verdict, chart and sections."""

from __future__ import annotations

from collections.abc import Sequence

from moot.reports.html_chart import Chart
from moot.reports.html_common import DebateRecord, Figure, Section, TranscriptEntry, VerdictBox, View
from moot.reports.html_cost import cost_sections
from moot.store.db import CallRecord


def transcripts(calls: Sequence[CallRecord]) -> dict[int, list[TranscriptEntry]]:
    """Every reply (or failure) per round, in call order: the full text behind the report."""
    out: dict[int, list[TranscriptEntry]] = {}
    for c in calls:
        who = c.answered_by or c.model
        body = c.reply if c.reply is not None else f"({c.status}) {c.error or 'no reply'}"
        out.setdefault(c.round, []).append(TranscriptEntry(c.seat, who, c.kind, c.status, body))
    return dict(sorted(out.items()))


def make_view(
    record: DebateRecord,
    verdict: VerdictBox,
    sections: list[Section],
    *,
    chart: Chart | None = None,
    chart_title: str = "Scores per round",
    chart_caption: str = "",
) -> View:
    """A debate's error replaces the summary: it says why the result is what it is."""
    if record.error:
        verdict.summary, verdict.markdown = record.error, False
    figure = Figure(chart, chart_title, chart_caption) if chart is not None else None
    return View(
        record,
        verdict,
        figure,
        sections,
        cost=cost_sections(record.result or {}, record.calls, record.final_name),
        transcripts=transcripts(record.calls),
    )

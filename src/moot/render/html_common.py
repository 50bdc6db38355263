"""The pieces every protocol's HTML view is made of: the view's plain-data shape, readers for untyped result
dicts, and section builders that take a list of records and a column spec.

The stored result is read as a dict, not through the protocol's model, so that a debate that failed
halfway, or a result written by an older version, still renders what it has. Every string here is raw:
the template escapes it, so nothing from an artifact or a judge can become markup.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from moot.render.html_chart import Chart
from moot.store.db import CallRecord


@dataclass(frozen=True)
class DebateRecord:
    """Everything the store holds about one debate: the input of every report builder."""

    debate_id: str
    protocol: str
    title: str
    status: str
    created_at: str
    request: dict[str, Any]
    result: dict[str, Any] | None
    error: str | None
    calls: list[CallRecord]
    rounds: dict[int, dict[str, Any]] = field(default_factory=dict)
    final_name: str = "synthesis"  # what its protocol calls round 0 (`ProtocolSpec.final_name`)


@dataclass
class Table:
    columns: list[str]
    rows: list[list[str]]


@dataclass
class Section:
    title: str
    table: Table | None = None
    items: list[str] = field(default_factory=list)
    text: str = ""
    markdown: bool = False  # `text` is a judge's prose, shown as rendered (escaped) Markdown
    open: bool = True  # shown expanded


@dataclass
class VerdictBox:
    headline: str
    tone: str  # "pass" | "fail" | "conditional" | "neutral"
    facts: list[tuple[str, str]] = field(default_factory=list)
    summary: str = ""
    markdown: bool = True  # the summary is a judge's prose; an error message is shown as written


@dataclass
class TranscriptEntry:
    seat: str
    who: str
    kind: str
    status: str
    text: str


@dataclass
class Figure:
    """A chart with the heading above it and the caption under it (the caption is also its accessible label)."""

    chart: Chart
    title: str = "Scores per round"
    caption: str = ""


@dataclass
class View:
    """One debate's page. The debate's id, protocol, time and status are read from its record, not copied."""

    record: DebateRecord
    verdict: VerdictBox
    figure: Figure | None = None
    sections: list[Section] = field(default_factory=list)
    cost: list[Section] = field(default_factory=list)
    transcripts: dict[int, list[TranscriptEntry]] = field(default_factory=dict)

    @property
    def title(self) -> str:
        return self.record.title or f"{self.record.protocol} {self.record.debate_id}"

    @property
    def chart(self) -> Chart | None:
        return self.figure.chart if self.figure else None


# readers for untyped result dicts


def num(value: Any, digits: int = 2) -> str:
    if isinstance(value, bool) or value is None:
        return "-" if value is None else ("yes" if value else "no")
    if isinstance(value, int | float):
        return f"{round(float(value), digits):g}"
    return str(value)


def text(value: Any) -> str:
    """Any JSON value as readable text (lists joined, mappings as `key: value` lines)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return num(value)
    if isinstance(value, Mapping):
        return "\n".join(f"{k}: {text(v)}" for k, v in value.items())
    if isinstance(value, Sequence):
        return "; ".join(text(v) for v in value)
    return json.dumps(value, default=str)


def as_dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple) else []


def records(value: Any) -> list[dict[str, Any]]:
    """A JSON list of objects as dicts; anything that is not an object becomes an empty record."""
    return [as_dict(x) for x in as_list(value)]


def named(value: Any) -> list[dict[str, Any]]:
    """A `{"round_1": {...}}` mapping as records whose `name` is the key ("round 1")."""
    return [{**as_dict(v), "name": str(k).replace("_", " ")} for k, v in as_dict(value).items()]


def joined(values: Any, sep: str = ", ") -> str:
    return sep.join(text(v) for v in as_list(values))


def round_no(name: str) -> int | None:
    tail = name.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else None


def fact(label: str, value: Any) -> tuple[str, str]:
    """A verdict fact; "-" says the result has no such value (an empty cell would look like a glitch)."""
    return (label, text(value) or "-")


def facts_if_any(r: Mapping[str, Any], labels: Mapping[str, str]) -> list[tuple[str, str]]:
    """Facts that only some results have: a "-" for each would crowd the verdict box."""
    return [(label, text(r[key])) for key, label in labels.items() if r.get(key)]


def envelope_verdict(r: Mapping[str, Any]) -> dict[str, Any]:
    """The result envelope's `verdict` {kind, answer, confidence, needs_human}; {} when there is none."""
    return as_dict(r.get("verdict"))


def rounds_fact(r: Mapping[str, Any]) -> tuple[str, str]:
    at = r.get("consensus_reached_at")
    return ("Rounds", num(r.get("rounds_completed")) + (f" (consensus in round {at})" if at else ""))


# the verdict box's tone (view.css) by a verdict word's tone; the words and their tones are the protocols'
# own (`ProtocolSpec.verdict`), passed down by the protocol's view or the caller
TONE_CLASSES = {"good": "pass", "warn": "conditional", "bad": "fail"}


def tone_of(word: str, tones: Mapping[str, str] | None = None) -> str:
    """The verdict box's tone for `word`, given the protocol's words and their tones; "neutral" for a
    word it does not give."""
    return TONE_CLASSES.get((tones or {}).get(word.upper(), ""), "neutral")


# sections

Cell = str | Callable[[dict[str, Any]], str]
Columns = Sequence[tuple[str, Cell]]


def judge_status(j: Mapping[str, Any]) -> str:
    """The envelope's judge status with its reason: `ok`, `dropped: timeout after 120 s`."""
    status, reason = text(j.get("status")), text(j.get("reason"))
    return f"{status}: {reason}" if reason else status


JUDGE_COLUMNS: list[tuple[str, Cell]] = [
    ("Seat", "seat"),
    ("Model", "model"),
    ("Answered by", "answered_by"),
    ("Stance", "stance"),
    ("Status", judge_status),
]


def auto_columns(rows: Iterable[Mapping[str, Any]]) -> list[tuple[str, Cell]]:
    """Every key any record has, in first-seen order, as a column of that key's text."""
    return [(k.replace("_", " "), k) for k in dict.fromkeys(k for row in rows for k in row)]


def records_section(title: str, rows: Any, columns: Columns | None = None) -> Section | None:
    """A table with one row per record (a dict) and one column per (header, key or cell function); every
    cell is escaped text. Without `columns`, one column per key. None when there are no records, so that
    empty sections are left out."""
    recs = records(rows)
    if not recs:
        return None
    cols = columns if columns is not None else auto_columns(recs)
    cells = [[cell(rec) if callable(cell) else text(rec.get(cell)) for _, cell in cols] for rec in recs]
    return Section(title, table=Table([header for header, _ in cols], cells))


def items_section(title: str, values: Any, item: Callable[[Any], str] = text) -> Section | None:
    """A bulleted list, one item per value; None when there are none."""
    found = as_list(values)
    return Section(title, items=[item(v) for v in found]) if found else None


def text_section(title: str, value: Any, *, markdown: bool = False) -> Section | None:
    return Section(title, text=text(value), markdown=markdown) if value else None


def present(*sections: Section | None) -> list[Section]:
    return [s for s in sections if s is not None]

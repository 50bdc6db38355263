"""What the pages show beyond the lists: a debate's report (from the HTML report's own renderer), its calls
with their prompts on demand, and the reports' style sheets.

A debate's page is the very document `moot report` writes (`moot.api.report.render_html`), its `<body>` set
inside the viewer's layout: one renderer for both, so the page shows everything the report shows. Its text
is escaped by that renderer's autoescape, so the first `<body>` and the last `</body>` are the template's own:
a judge's `</body>` arrives as `&lt;/body&gt;`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from markupsafe import Markup

from moot.api.report import load_record, render_html
from moot.reports.bench_html import render_bench_html
from moot.reports.html import TEMPLATES as REPORT_TEMPLATES
from moot.schemas.bench import BenchResult
from moot.store.db import CallRecord
from moot.view.envelope import ResultFacts, outcome
from moot.view.reader import ReadOnlyStore


def body_of(document: str) -> Markup:
    """The inside of a rendered report's `<body>`."""
    tag = document.find("<body")
    start = document.find(">", tag) + 1 if tag >= 0 else 0
    end = document.rfind("</body>")
    if tag < 0 or end < start:
        raise ValueError("not a rendered report")
    return Markup(document[start:end])  # noqa: S704 - the report renderer escaped its text


@lru_cache(maxsize=4)
def report_css(template: str) -> str:
    """The style sheet inside one of the reports' templates (`report.html.j2`, `bench.html.j2`), served as a
    file so that the viewer's pages need no inline `<style>`."""
    text = (REPORT_TEMPLATES / template).read_text(encoding="utf-8")
    start, end = text.find("<style>"), text.find("</style>")
    return text[start + len("<style>") : end] if 0 <= start < end else ""


@dataclass(frozen=True)
class DebatePage:
    id: str
    title: str
    protocol: str
    status: str
    created_at: str
    outcome: ResultFacts
    report: Markup
    calls: list[CallRecord]
    batch: tuple[str, str] | None  # (batch id, item id)
    twin: str | None  # the debate of the same item in the other order (a bench's `~swapped` item)


def debate_page(store: ReadOnlyStore, debate_id: str, *, batches: bool) -> DebatePage | None:
    """The page of one debate, by its exact id; None when there is none."""
    row = store.get_debate(debate_id)
    if row is None or row.id != debate_id:
        return None
    record = load_record(store, row.id)
    place = _batch_item(store, row.id) if batches else None
    return DebatePage(
        id=row.id,
        title=row.title or f"{row.protocol} {row.id}",
        protocol=row.protocol,
        status=row.status,
        created_at=row.created_at,
        outcome=_facts(outcome(row.protocol, row.status, row.result), record.calls),
        report=body_of(render_html(record)),
        calls=store.attempts(row.id, prompts=False),
        batch=place,
        twin=_twin(store, place) if place else None,
    )


def _facts(facts: ResultFacts, calls: list[CallRecord]) -> ResultFacts:
    """The header's facts. A debate with no result (it failed, or is still running) takes its judges and
    spend from its calls, as the report's own cost tables below do, rather than showing `-` above them."""
    if facts.judges or not calls:
        return facts
    judges = tuple(dict.fromkeys(f"{c.seat} ({c.answered_by or c.model})" for c in calls))
    return replace(facts, judges=judges, spend=sum(c.cost_usd or 0.0 for c in calls))


def _batch_item(store: ReadOnlyStore, debate_id: str) -> tuple[str, str] | None:
    rows = store.execute("SELECT batch_id, item_id FROM batch_items WHERE debate_id = ? LIMIT 1", (debate_id,))
    return (rows[0]["batch_id"], rows[0]["item_id"]) if rows else None


SWAPPED = "~swapped"  # a bench's item judged in the other order (moot.bench.plan.SWAPPED)


def _twin(store: ReadOnlyStore, place: tuple[str, str]) -> str | None:
    batch_id, item_id = place
    other = item_id.removesuffix(SWAPPED) if item_id.endswith(SWAPPED) else item_id + SWAPPED
    rows = store.execute(
        "SELECT debate_id FROM batch_items WHERE batch_id = ? AND item_id = ? AND debate_id IS NOT NULL",
        (batch_id, other),
    )
    return rows[0]["debate_id"] if rows else None


@dataclass(frozen=True)
class PromptMessage:
    role: str
    text: str


@dataclass(frozen=True)
class CallPage:
    debate_id: str
    number: int
    call: CallRecord
    messages: list[PromptMessage]


def call_page(store: ReadOnlyStore, debate_id: str, number: str) -> CallPage | None:
    """The `number`th attempt (1-based, in the order sent) of a debate, with its prompt unpacked."""
    if not number.isdigit() or int(number) < 1:
        return None
    rows = store.execute(
        "SELECT call_key, attempt FROM calls WHERE debate_id = ? ORDER BY id LIMIT 1 OFFSET ?",
        (debate_id, int(number) - 1),
    )
    if not rows:
        return None
    key, attempt = rows[0]["call_key"], rows[0]["attempt"]
    call = next(c for c in store.attempts_of(debate_id, key) if c.attempt == attempt)
    return CallPage(debate_id, int(number), call, messages(call.prompt_json))


def messages(prompt_json: str) -> list[PromptMessage]:
    """A stored prompt (`schemas.messages.Prompt`) as what was sent: its system text, then each message."""
    try:
        data: Any = json.loads(prompt_json)
    except ValueError:
        return [PromptMessage("prompt", prompt_json)]
    if not isinstance(data, dict):
        return [PromptMessage("prompt", json.dumps(data, indent=1, ensure_ascii=False))]
    out = [PromptMessage("system", str(data["system"]))] if data.get("system") else []
    for m in data.get("messages") or []:
        content = m.get("content") if isinstance(m, dict) else m
        text = content if isinstance(content, str) else json.dumps(content, indent=1, ensure_ascii=False)
        out.append(PromptMessage(str(m.get("role", "")) if isinstance(m, dict) else "", text))
    return out


def bench_body(result: BenchResult) -> Markup:
    """The bench's page as `moot bench --html` writes it, its `<body>` only."""
    return body_of(render_bench_html(result))

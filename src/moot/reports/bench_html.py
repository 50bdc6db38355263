"""`moot bench --html`: one self-contained page (inline CSS and SVG, no script, nothing fetched) rendered
from a `BenchResult` alone: accuracy against cost per strategy as a chart, the figures, what the debate
changed, position consistency, a breakdown per source, and every item.

Judge names, item ids and sources come from the user's files and reach the page only through Jinja's
autoescape; the chart's geometry here is numbers only. The page's Content-Security-Policy allows no script.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import jinja2

from moot.errors import UsageError
from moot.render.html_chart import COLOURS, MARKERS, LegendEntry, Tick, marker_path
from moot.render.html_common import Section, Table
from moot.reports.bench_reliability import Reliability, reliability
from moot.reports.bench_text import (
    CALIBRATION_COLUMNS,
    DIFFERENCE_COLUMNS,
    JUDGE_COLUMNS,
    POSITION_COLUMNS,
    STRATEGY_COLUMNS,
    aggregate_rows,
    calibration_rows,
    difference_rows,
    flip_rows,
    judge_rows,
    panel_facts,
    pct,
    position_rows,
    strategy_label,
    strategy_rows,
    usd,
)
from moot.schemas.bench import AnyFigures, BenchResult, DebateFigures, SingleFigures

TEMPLATES = Path(__file__).parent / "templates"
WIDTH, HEIGHT = 960, 320
LEFT, RIGHT, TOP, BOTTOM = 64, 230, 16, 48


@dataclass(frozen=True)
class Dot:
    """One strategy: its accuracy (y) with its 95% interval (a vertical bar), at its cost (x)."""

    name: str
    colour: str
    marker: str  # the SVG path of its marker
    x: float
    y: float
    y_low: float
    y_high: float
    label: str  # its figures, in words (the marker's tooltip)


@dataclass(frozen=True)
class Scatter:
    dots: list[Dot]
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    x_label: str
    legend: list[LegendEntry]
    width: int = WIDTH
    height: int = HEIGHT
    plot: tuple[float, float, float, float] = (LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM)


@dataclass
class BenchPage:
    title: str
    verdict: str
    facts: list[tuple[str, str]]
    chart: Scatter | None
    chart_caption: str
    sections: list[Section] = field(default_factory=list)
    reliability: Reliability | None = None


def _step(span: float) -> float:
    """A round tick step giving at most about six ticks over `span`."""
    raw = span / 6 if span > 0 else 1.0
    power = 10.0 ** math.floor(math.log10(raw))
    return float(next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw))


def _ticks(lo: float, hi: float, step: float) -> list[float]:
    return [round(lo + k * step, 10) for k in range(round((hi - lo) / step) + 1)]


@dataclass(frozen=True)
class _Axes:
    """Where a cost (x) and an accuracy (y) land in pixels."""

    x_hi: float
    y_lo: float
    box: tuple[float, float, float, float] = (LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM)

    def x(self, v: float) -> float:
        x0, _, x1, _ = self.box
        return x0 + (x1 - x0) * v / self.x_hi

    def y(self, v: float) -> float:
        _, y0, _, y1 = self.box
        return y1 - (y1 - y0) * (v - self.y_lo) / (1.0 - self.y_lo)


def _dot(i: int, name: str, f: AnyFigures, cost: float, by_cost: bool, axes: _Axes) -> Dot:
    x, y = axes.x(cost), axes.y(f.accuracy)
    spent = usd(f.cost_per_item) if by_cost else f"{f.calls_per_item:.2f} calls"
    label = f"{strategy_label(name, f)}: {pct(f.accuracy)} right (95% {pct(f.ci95[0])} to {pct(f.ci95[1])})"
    shape = MARKERS[i % len(MARKERS)]
    return Dot(
        strategy_label(name, f),
        COLOURS[i % len(COLOURS)],
        marker_path(shape, x, y, 6.0),
        x,
        y,
        axes.y(f.ci95[0]),
        axes.y(f.ci95[1]),
        f"{label}, {spent} per item",
    )


def _legend(result: BenchResult, dots: list[Dot]) -> list[LegendEntry]:
    x, top = WIDTH - RIGHT + 22, TOP + 10
    return [
        LegendEntry(
            d.name, d.colour, top + 20 * i, pct(f.accuracy), marker_path(MARKERS[i % len(MARKERS)], x, top + 20 * i - 3)
        )
        for i, (d, f) in enumerate(zip(dots, result.strategies.values(), strict=True))
    ]


def accuracy_cost_chart(result: BenchResult) -> Scatter:
    """Accuracy against USD per item, or against calls per item when a price is unknown."""
    figures = result.strategies
    by_cost = all(f.cost_per_item is not None for f in figures.values())
    xs = {n: float((f.cost_per_item if by_cost else f.calls_per_item) or 0.0) for n, f in figures.items()}
    x_step = _step(max(xs.values()) * 1.1)
    axes = _Axes(
        x_hi=x_step * math.ceil(max(xs.values()) * 1.1 / x_step) or 1.0,
        y_lo=min(0.5, math.floor(min(f.ci95[0] for f in figures.values()) * 10) / 10),
    )
    dots = [_dot(i, name, f, xs[name], by_cost, axes) for i, (name, f) in enumerate(figures.items())]
    bottom = axes.box[3]
    x_ticks = [Tick(f"${v:.4g}" if by_cost else f"{v:g}", axes.x(v), bottom + 18) for v in _ticks(0, axes.x_hi, x_step)]
    y_ticks = [Tick(f"{v:.0%}", axes.box[0] - 6, axes.y(v)) for v in _ticks(axes.y_lo, 1.0, 0.1)]
    x_label = "USD per item" if by_cost else "calls per item (a price is unknown)"
    return Scatter(dots, x_ticks, y_ticks, x_label, _legend(result, dots))


def _table(title: str, columns: list[str], rows: list[list[str]], text: str = "") -> Section:
    return Section(title, Table(columns, rows), text=text)


def _consistency(result: BenchResult) -> Section:
    if result.swap_consistency is None:
        return Section(
            "Position consistency", text="The pairs were judged in one order only (--no-swap, or scored items)."
        )
    rows = [[strategy_label(n, f), pct(f.swap_consistency)] for n, f in result.strategies.items()]
    single = result.strategies.get("single")
    if isinstance(single, SingleFigures):
        rows += [[f"judge {seat}", pct(f.swap_consistency)] for seat, f in single.judges.items()]
    text = (
        "The share of pairs whose winner is the same when the two responses swap places. "
        "A judge that always picks the first response scores 0%."
    )
    return _table("Position consistency", ["Who", "Same both orders"], rows, text)


def _sources(result: BenchResult) -> Section | None:
    if not result.by_source:
        return None
    names = list(result.strategies)
    rows = [[s, str(f.items), *(pct(f.accuracy.get(n)) for n in names)] for s, f in result.by_source.items()]
    return _table("Accuracy per source", ["Source", "Items", *names], rows)


def _items(result: BenchResult) -> Section:
    names = list(result.strategies)
    seats = list(result.per_item[0].judges) if result.per_item else []
    rows = [
        [
            p.id,
            p.source or "",
            p.gold,
            *(p.answers.get(n) or "none" for n in names),
            *(p.judges.get(s) or "none" for s in seats),
        ]
        for p in result.per_item
    ]
    return _table("Every item", ["Item", "Source", "Gold", *names, *seats], rows)


def _statistics(result: BenchResult) -> list[Section]:
    """The paired differences, position bias and calibration tables, each when the run has them."""
    out = []
    if result.differences:
        text = (
            "First minus second, in accuracy points, on the same items: Tango's score interval and the mid-p "
            f"McNemar test. The verdict calls two strategies equivalent only when the 90% interval lies within "
            f"±{result.margin * 100:g} points (TOST)."
        )
        out.append(_table("Paired differences", DIFFERENCE_COLUMNS, difference_rows(result), text))
    rows = position_rows(result)
    if rows:
        text = "Over every judgment in both orders: 50% picks of the first-shown response means no position bias."
        out.append(_table("Position bias", POSITION_COLUMNS, rows, text))
    rows = calibration_rows(result)
    if rows:
        text = (
            "Accuracy of the answers stated at each confidence (given order); the expected calibration error "
            "reads HIGH as 0.9, MEDIUM as 0.7 and LOW as 0.5."
        )
        out.append(_table("Calibration", CALIBRATION_COLUMNS, rows, text))
    return out


def _round1_vs_final(debate: DebateFigures) -> Section | None:
    t = debate.round1_vs_final
    if not t:
        return None
    rows = [
        ["Round 1 right", str(t.get("right_to_right", 0)), str(t.get("right_to_wrong", 0))],
        ["Round 1 wrong", str(t.get("wrong_to_right", 0)), str(t.get("wrong_to_wrong", 0))],
    ]
    return _table("Round 1 against final", ["", "Final right", "Final wrong"], rows)


def bench_page(result: BenchResult) -> BenchPage:
    sections = [_table("Figures per strategy", STRATEGY_COLUMNS, strategy_rows(result))]
    single = result.strategies.get("single")
    if isinstance(single, SingleFigures):
        sections.append(_table("Each judge alone", JUDGE_COLUMNS, judge_rows(single, strong=False)))
    debate = result.strategies.get("debate")
    if isinstance(debate, DebateFigures):
        sections.append(_table("What the debate changed", ["", "Debates"], flip_rows(debate), debate.note))
        table = _round1_vs_final(debate)
        sections += [table] if table is not None else []
    sections += _statistics(result)
    sections.append(_consistency(result))
    by_source = _sources(result)
    sections += [by_source] if by_source is not None else []
    if result.notes:
        sections.append(Section("Notes", items=list(result.notes)))
    sections.append(_items(result))
    facts = [("Items", str(result.items)), ("Kind", result.kind), ("Seed", str(result.seed))]
    if result.both_orders:
        facts.append(("Accuracy", "JudgeBench's: right in both orders"))
    if result.swap_consistency is not None:
        facts.append(("Position consistency", pct(result.swap_consistency)))
    facts += [("Effective judges", line.split(": ", 1)[1]) for line in panel_facts(result)]
    if result.aggregates:
        columns = ["Aggregate", "Round 1", "Round 1 95% CI", "Final", "Final 95% CI"]
        sections.insert(1, _table("Score aggregates", columns, aggregate_rows(result)))
    caption = (
        "Each strategy's accuracy against gold (bars: 95% Wilson interval; the mean judge's, a bootstrap) and what "
        "it spent per item."
    )
    return BenchPage(
        f"moot bench: {result.suite}",
        result.verdict,
        facts,
        accuracy_cost_chart(result),
        caption,
        sections,
        reliability(result),
    )


@lru_cache(maxsize=1)
def _env() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def render_bench_html(result: BenchResult) -> str:
    """The bench's page as a complete HTML document."""
    return _env().get_template("bench.html.j2").render(page=bench_page(result))


def write_bench_html(result: BenchResult, path: str | Path) -> Path:
    """Render `result` to `path` (written atomically)."""
    from moot.render.serialize import atomic_write

    target = Path(path)
    try:
        atomic_write(target, render_bench_html(result))
    except OSError as e:
        raise UsageError(f"cannot write {target}: {e.strerror or e}") from None
    return target

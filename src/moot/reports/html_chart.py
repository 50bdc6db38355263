"""The score-per-round chart of the HTML report, as plain geometry for an inline SVG.

Pure functions: series of (round, score) per judge in, pixel coordinates out. The template draws them, so
no JavaScript and nothing fetched: the report opens offline. Judge names never reach an attribute here;
the template escapes them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

WIDTH = 960
HEIGHT = 260
LEFT = 44
RIGHT = 190  # room for the legend
TOP = 16
BOTTOM = 34
COLOURS = ("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#be185d", "#4d7c0f")


@dataclass(frozen=True)
class Point:
    round: int
    score: float
    x: float
    y: float
    label: str = ""  # what the point means: the score, or the category's name


@dataclass(frozen=True)
class Series:
    name: str
    colour: str
    points: list[Point]

    @property
    def polyline(self) -> str:
        """The `points` attribute of the series' <polyline> (numbers only)."""
        return " ".join(f"{p.x:.1f},{p.y:.1f}" for p in self.points)


@dataclass(frozen=True)
class Tick:
    label: str
    x: float
    y: float


@dataclass(frozen=True)
class Chart:
    """An inline SVG line chart: one series per judge, rounds on x, scores on y."""

    series: list[Series]
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    band: tuple[float, float] | None = None  # y pixels of the consensus band, top and bottom
    width: int = WIDTH
    height: int = HEIGHT
    plot: tuple[float, float, float, float] = (LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM)
    y_label: str = "score"
    legend: list[tuple[str, str, float]] = field(default_factory=list)  # name, colour, y


def build_chart(
    scores: Mapping[str, Mapping[int, float]],
    *,
    y_range: tuple[float, float] = (1.0, 5.0),
    y_label: str = "score",
    band: tuple[float, float] | None = None,
    y_labels: Sequence[str] | None = None,
) -> Chart | None:
    """Chart of `scores[judge][round]`; None when there is nothing to draw.

    `band` is an optional (low, high) score interval drawn behind the lines (where the panel agreed).
    `y_labels` makes the y axis categorical (value k is `y_labels[k - 1]`, e.g. the option a judge
    recommends); judges on the same category are then drawn a few pixels apart so every line shows.
    """
    if y_labels:
        y_range = (1.0, float(max(len(y_labels), 2)))
    rounds = sorted({r for per in scores.values() for r in per})
    if not rounds:
        return None
    lo, hi = y_range
    values = [v for per in scores.values() for v in per.values()]
    lo, hi = min(lo, *values), max(hi, *values)
    if hi == lo:
        hi = lo + 1.0
    left = max(LEFT, 16 + 7 * max(len(_short(t)) for t in y_labels)) if y_labels else LEFT
    x0, y0, x1, y1 = float(left), float(TOP), float(WIDTH - RIGHT), float(HEIGHT - BOTTOM)

    def x_of(r: int) -> float:
        if len(rounds) == 1:
            return (x0 + x1) / 2
        return x0 + (x1 - x0) * rounds.index(r) / (len(rounds) - 1)

    def y_of(v: float) -> float:
        return y1 - (y1 - y0) * (v - lo) / (hi - lo)

    def label_of(v: float) -> str:
        return y_labels[int(v) - 1] if y_labels and 1 <= int(v) <= len(y_labels) else f"{v:g}"

    def nudge(i: int) -> float:
        return (i - (len(scores) - 1) / 2) * 4.0 if y_labels else 0.0

    series = [
        Series(
            name=name,
            colour=COLOURS[i % len(COLOURS)],
            points=[Point(r, v, x_of(r), y_of(v) + nudge(i), label_of(v)) for r, v in sorted(per.items())],
        )
        for i, (name, per) in enumerate(scores.items())
    ]
    y_ticks = []
    if y_labels:
        y_ticks = [Tick(_short(label), x0 - 6, y_of(k)) for k, label in enumerate(y_labels, 1)]
    else:
        step = _tick_step(hi - lo)
        v = lo
        while v <= hi + 1e-9:
            y_ticks.append(Tick(f"{v:g}", x0 - 6, y_of(v)))
            v = round(v + step, 6)
    x_ticks = [Tick(f"round {r}", x_of(r), y1 + 18) for r in rounds]
    legend = [(s.name, s.colour, y0 + 8 + 18 * i) for i, s in enumerate(series)]
    band_px = (y_of(band[1]), y_of(band[0])) if band else None
    return Chart(
        series,
        x_ticks,
        y_ticks,
        band=band_px,
        plot=(x0, y0, x1, y1),
        y_label="" if y_labels else y_label,  # category names label the axis themselves
        legend=legend,
    )


def _short(label: str, limit: int = 14) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def _tick_step(span: float) -> float:
    for step in (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 25.0, 50.0):
        if span / step <= 8:
            return step
    return span / 4


def scores_by_judge(rows: Sequence[tuple[str, int, float]]) -> dict[str, dict[int, float]]:
    """(judge, round, score) rows -> {judge: {round: score}}, judges in first-seen order."""
    out: dict[str, dict[int, float]] = {}
    for judge, round_no, score in rows:
        out.setdefault(judge, {})[round_no] = score
    return out

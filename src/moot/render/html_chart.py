"""The per-round chart of the HTML report, as plain geometry for an inline SVG.

Pure functions: series of (round, value) per judge in, pixel coordinates out. The template draws them, so
no JavaScript and nothing fetched: the report opens offline. Judge names never reach an attribute here;
the template escapes them. Each judge has its own colour and marker shape, so judges stay apart in print
and for readers who do not tell the colours apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

WIDTH = 960
HEIGHT = 260
LEFT = 44
RIGHT = 200  # room for the legend
TOP = 16
BOTTOM = 34
COLOURS = ("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#be185d", "#4d7c0f")
MARKERS = ("circle", "square", "diamond", "triangle")
MARKER_R = 4.5  # a marker's half-width in pixels
SPREAD = 12.0  # pixels between the markers of judges on the same category in the same round


@dataclass(frozen=True)
class Point:
    round: int
    score: float
    x: float
    y: float
    label: str = ""  # what the point means: the score, or the category's name
    marker: str = ""  # the SVG path of its marker


@dataclass(frozen=True)
class Series:
    name: str
    colour: str
    points: list[Point]
    marker: str = "circle"

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
class Rule:
    """A horizontal line across the plot at a value that means something (a verdict threshold)."""

    label: str
    value: float
    colour: str
    y: float = 0.0


@dataclass(frozen=True)
class LegendEntry:
    name: str
    colour: str
    y: float
    note: str = ""  # shown muted after the name (a judge's stance)
    marker: str = ""  # the SVG path of the series' marker; empty for a rule, drawn as a dashed line


@dataclass(frozen=True)
class Chart:
    """An inline SVG line chart: one series per judge, rounds on x, scores (or categories) on y."""

    series: list[Series]
    x_ticks: list[Tick]
    y_ticks: list[Tick]
    band: tuple[float, float] | None = None  # y pixels of the consensus band, top and bottom
    width: int = WIDTH
    height: int = HEIGHT
    plot: tuple[float, float, float, float] = (LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM)
    y_label: str = "score"
    legend: list[LegendEntry] = field(default_factory=list)
    rules: list[Rule] = field(default_factory=list)


def marker_path(shape: str, x: float, y: float, r: float = MARKER_R) -> str:
    """The `d` of a marker centred on (x, y); shapes other than a circle are sized to look as large."""
    if shape == "square":
        s = r * 0.9
        return f"M{x - s:.1f},{y - s:.1f}h{2 * s:.1f}v{2 * s:.1f}h{-2 * s:.1f}Z"
    if shape == "diamond":
        d = r * 1.25
        return f"M{x:.1f},{y - d:.1f}L{x + d:.1f},{y:.1f}L{x:.1f},{y + d:.1f}L{x - d:.1f},{y:.1f}Z"
    if shape == "triangle":
        return f"M{x:.1f},{y - r * 1.2:.1f}L{x + r * 1.15:.1f},{y + r * 0.8:.1f}L{x - r * 1.15:.1f},{y + r * 0.8:.1f}Z"
    return f"M{x - r:.1f},{y:.1f}a{r:g},{r:g} 0 1,0 {2 * r:g},0a{r:g},{r:g} 0 1,0 {-2 * r:g},0Z"


@dataclass(frozen=True)
class _Frame:
    """Where rounds and values land in pixels."""

    rounds: list[int]
    lo: float
    hi: float
    box: tuple[float, float, float, float]  # x0, y0, x1, y1 of the plot
    inset: float = 0.0  # keeps the outermost offset markers inside the plot

    def x(self, r: int) -> float:
        x0, _, x1, _ = self.box
        x0, x1 = x0 + self.inset, x1 - self.inset
        if len(self.rounds) == 1:
            return (x0 + x1) / 2
        return x0 + (x1 - x0) * self.rounds.index(r) / (len(self.rounds) - 1)

    def y(self, v: float) -> float:
        _, y0, _, y1 = self.box
        return y1 - (y1 - y0) * (v - self.lo) / (self.hi - self.lo)


def _frame(
    scores: Mapping[str, Mapping[int, float]],
    y_range: tuple[float, float],
    y_labels: Sequence[str] | None,
    rules: Sequence[Rule],
) -> _Frame | None:
    rounds = sorted({r for per in scores.values() for r in per})
    if not rounds:
        return None
    values = [v for per in scores.values() for v in per.values()] + [rule.value for rule in rules]
    lo, hi = min(y_range[0], *values), max(y_range[1], *values)
    left = max(LEFT, 16 + 7 * max(len(_short(t)) for t in y_labels)) if y_labels else LEFT
    inset = (SPREAD * (len(scores) - 1) / 2 + MARKER_R) if y_labels else 0.0
    box = (float(left), float(TOP), float(WIDTH - RIGHT), float(HEIGHT - BOTTOM))
    return _Frame(rounds, lo, hi if hi > lo else lo + 1.0, box, inset)


def _series(
    i: int, name: str, per: Mapping[int, float], frame: _Frame, y_labels: Sequence[str] | None, n: int
) -> Series:
    """On a categorical axis judges that agree would hide each other, so each judge is drawn a fixed
    step aside (mostly across, a little down): markers side by side, lines parallel."""
    offset = (i - (n - 1) / 2) * SPREAD if y_labels else 0.0
    shape = MARKERS[i % len(MARKERS)]
    points = []
    for r, v in sorted(per.items()):
        x, y = frame.x(r) + offset, frame.y(v) + offset / 3
        label = y_labels[int(v) - 1] if y_labels and 1 <= int(v) <= len(y_labels) else f"{v:g}"
        points.append(Point(r, v, x, y, label, marker_path(shape, x, y)))
    return Series(name, COLOURS[i % len(COLOURS)], points, shape)


def _y_ticks(frame: _Frame, y_labels: Sequence[str] | None) -> list[Tick]:
    x = frame.box[0] - 6
    if y_labels:
        return [Tick(_short(label), x, frame.y(k)) for k, label in enumerate(y_labels, 1)]
    ticks, step, v = [], _tick_step(frame.hi - frame.lo), frame.lo
    while v <= frame.hi + 1e-9:
        ticks.append(Tick(f"{v:g}", x, frame.y(v)))
        v = round(v + step, 6)
    return ticks


def _legend(series: list[Series], rules: list[Rule], notes: Mapping[str, str], frame: _Frame) -> list[LegendEntry]:
    x, top = frame.box[2] + 22, frame.box[1] + 8
    out = [
        LegendEntry(s.name, s.colour, top + 18 * i, notes.get(s.name, ""), marker_path(s.marker, x, top + 18 * i - 3))
        for i, s in enumerate(series)
    ]
    return out + [LegendEntry(r.label, r.colour, top + 18 * (len(out) + i)) for i, r in enumerate(rules)]


def build_chart(
    scores: Mapping[str, Mapping[int, float]],
    *,
    y_range: tuple[float, float] = (1.0, 5.0),
    y_label: str = "score",
    band: tuple[float, float] | None = None,
    y_labels: Sequence[str] | None = None,
    rules: Sequence[Rule] = (),
    notes: Mapping[str, str] | None = None,
) -> Chart | None:
    """Chart of `scores[judge][round]`; None when there is nothing to draw.

    `band` is an optional (low, high) score interval drawn behind the lines (where the panel agreed);
    `rules` are values marked by a dashed line and named in the legend, as are the judges, each with
    its `notes` entry (a stance). `y_labels` makes the y axis categorical (value k is `y_labels[k - 1]`,
    e.g. the option a judge recommends).
    """
    if y_labels:
        y_range = (1.0, float(max(len(y_labels), 2)))
    frame = _frame(scores, y_range, y_labels, rules)
    if frame is None:
        return None
    series = [_series(i, name, per, frame, y_labels, len(scores)) for i, (name, per) in enumerate(scores.items())]
    drawn = [Rule(r.label, r.value, r.colour, frame.y(r.value)) for r in rules]
    return Chart(
        series,
        [Tick(f"round {r}", frame.x(r), frame.box[3] + 18) for r in frame.rounds],
        _y_ticks(frame, y_labels),
        band=(frame.y(band[1]), frame.y(band[0])) if band else None,
        plot=frame.box,
        y_label="" if y_labels else y_label,  # category names label the axis themselves
        legend=_legend(series, drawn, notes or {}, frame),
        rules=drawn,
    )


def _short(label: str, limit: int = 14) -> str:
    return label if len(label) <= limit else label[: limit - 1] + "…"


def _tick_step(span: float) -> float:
    for step in (0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 25.0, 50.0):
        if span / step <= 8:
            return step
    return span / 4

"""The bench page's reliability diagram: for each strategy or judge whose answers state a confidence, the
accuracy observed at each level (with its 95% interval) against the probability the level stands for
(LOW 0.5, MEDIUM 0.7, HIGH 0.9). Points on the diagonal are calibrated; above it, the level undersells
the answers; below it, it oversells them. Numbers only: names reach the page through Jinja's autoescape.
"""

from __future__ import annotations

from dataclasses import dataclass

from moot.render.html_chart import COLOURS
from moot.reports.bench_text import LEVELS, named_figures, pct
from moot.schemas.bench import BenchResult

STATED = {"HIGH": 0.9, "MEDIUM": 0.7, "LOW": 0.5}  # as moot.bench.calibration reads the levels
SIZE, PAD = 300, 44


@dataclass(frozen=True)
class ReliabilityPoint:
    x: float
    y: float
    y_low: float
    y_high: float
    label: str


@dataclass(frozen=True)
class ReliabilitySeries:
    name: str
    colour: str
    points: list[ReliabilityPoint]


@dataclass(frozen=True)
class Reliability:
    series: list[ReliabilitySeries]
    size: int = SIZE
    pad: int = PAD

    def px(self, v: float) -> float:
        """A probability (0.4 to 1.0 on the x axis, 0 to 1 on y) as a pixel."""
        return self.pad + (self.size - 2 * self.pad) * (v - 0.4) / 0.6

    def py(self, v: float) -> float:
        return self.size - self.pad - (self.size - 2 * self.pad) * v

    @property
    def diagonal(self) -> tuple[float, float, float, float]:
        return (self.px(0.4), self.py(0.4), self.px(1.0), self.py(1.0))


def reliability(result: BenchResult) -> Reliability | None:
    """The diagram, or None when no answer stated a confidence."""
    series: list[ReliabilitySeries] = []
    for i, (name, f) in enumerate(named_figures(result)):
        if f.calibration is None:
            continue
        d = Reliability([])
        dx = (len(series) % 5 - 2) * 4.0  # each series a little apart, so that points at one level do not hide
        points = []
        for level in LEVELS:
            b = f.calibration.get(level)
            if b is None or not b.n or b.accuracy is None or b.ci95 is None:
                continue
            points.append(
                ReliabilityPoint(
                    d.px(STATED[level]) + dx,
                    d.py(b.accuracy),
                    d.py(b.ci95[0]),
                    d.py(b.ci95[1]),
                    f"{name}: {level}, {pct(b.accuracy)} right of {b.n} (stated {STATED[level]:.0%})",
                )
            )
        series.append(ReliabilitySeries(name, COLOURS[i % len(COLOURS)], points))
    return Reliability(series) if series else None

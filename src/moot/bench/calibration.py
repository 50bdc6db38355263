"""Whether a stated confidence can be trusted: the accuracy of the answers given at each level.

Every reply of decide states HIGH, MEDIUM or LOW. For a judge, a vote and a debate, `calibration` maps
each level to how many answers were stated at it, the share of them that were right and that share's
Wilson interval. A confidence worth reading is right more often at HIGH than at LOW. The expected
calibration error (`ece`) reads the levels as stated probabilities, HIGH 0.9, MEDIUM 0.7, LOW 0.5 (a
pair's coin flip), and is the answer-weighted mean gap between each level's accuracy and that figure:
0 when every level is as often right as it says. The counts are over the given order's answers.
"""

from __future__ import annotations

from collections.abc import Sequence

from moot.bench.stats import calibration_error, wilson
from moot.schemas.bench import CalibrationBin

STATED = {"HIGH": 0.9, "MEDIUM": 0.7, "LOW": 0.5}


def calibration(
    confidence: Sequence[str | None], correct: Sequence[bool]
) -> tuple[dict[str, CalibrationBin] | None, float | None]:
    """Each level's `{n, accuracy, ci95}` and the ECE; (None, None) when no answer stated a level."""
    if not any(c in STATED for c in confidence):
        return None, None
    bins: dict[str, CalibrationBin] = {}
    for level in STATED:
        right = [ok for c, ok in zip(confidence, correct, strict=True) if c == level]
        n = len(right)
        bins[level] = CalibrationBin(
            n=n, accuracy=sum(right) / n if n else None, ci95=wilson(sum(right), n) if n else None
        )
    ece = calibration_error([(b.n, b.accuracy or 0.0, STATED[level]) for level, b in bins.items()])
    return bins, ece


def better_calibrated(first: float | None, final: float | None) -> str:
    """The verdict's sentence on whether the debate's final confidence is better calibrated than round 1's."""
    if first is None or final is None:
        return ""
    if abs(final - first) < 0.005:
        return f"The debate's final confidence is as well calibrated as round 1's (ECE {final:.3f} and {first:.3f})."
    word = "better" if final < first else "worse"
    return (
        f"The debate's final confidence is {word} calibrated than round 1's "
        f"(expected calibration error {final:.3f} against {first:.3f}; descriptive, no test)."
    )

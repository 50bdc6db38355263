"""How independent a panel's votes are, checked before round 1 and written into the result (issue 30).

`panel_report` names each seat's model and family and warns, by a fixed key:
- `same_model`: two or more seats on one model (their votes share one model's errors);
- `same_family`: every seat in one family (the panel agreeing says less than its seat count suggests);
- `author_on_panel`: a seat on the model that wrote the artifact (it grades its own work).

The runner shows each warning once, as a note before round 1; the dry run lists them; the result carries
the report as `panel`; and a one-family panel's HIGH confidence becomes MEDIUM, with the reason in its
notes (`temper`). Protocols opt in by deriving their result from `PanelRecorded` (its `panel` field and
`cap_confidence`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from moot.judges.base import Seat
from moot.judges.families import bare_model, family_of, model_name
from moot.schemas.events import Event
from moot.schemas.panel import PanelReport, PanelSeat, PanelWarning

# the key a debate's `--author-model` is stored under, beside its request, so that resume warns the same
STORED_AUTHOR_KEY = "author_model"
ONE_FAMILY_REASON = "confidence capped at MEDIUM: every seat of the panel is in the {family} family (same_family)"


@runtime_checkable
class Tempered(Protocol):
    """A result whose confidence a one-family panel caps (every built-in protocol's)."""

    def cap_confidence(self, reason: str) -> None: ...


def panel_report(seats: Sequence[Seat], author_model: str | None = None) -> PanelReport:
    """The panel of `seats` (each by the judge that takes the seat first) and its warnings."""
    rows = [
        PanelSeat(seat=s.id, model=model_name(s.judge.model), family=family_of(s.judge.model, s.judge.provider))
        for s in seats
    ]
    models = list(dict.fromkeys(r.model for r in rows))
    families = list(dict.fromkeys(r.family for r in rows if r.family))
    warnings: list[PanelWarning] = []
    by_model: dict[str, list[PanelSeat]] = {}
    for r in rows:
        if r.family:  # a stand-in judge (scripted, a function) that plays no known model is no model at all
            by_model.setdefault(bare_model(r.model), []).append(r)
    for group in by_model.values():
        if len(group) > 1:
            who = ", ".join(r.seat for r in group)
            message = f"{who} all run {group[0].model}: their votes share one model's errors"
            warnings.append(PanelWarning(key="same_model", message=message))
    if len(rows) > 1 and len(families) == 1 and all(r.family for r in rows):
        message = (
            f"every seat runs a model of the {families[0]} family ({', '.join(models)}): "
            "their agreement is not independent, so confidence is at most MEDIUM"
        )
        warnings.append(PanelWarning(key="same_family", message=message))
    if author_model:
        author = bare_model(author_model)
        graders = [r.seat for r in rows if r.family and bare_model(r.model) == author]
        if graders:
            verb = "runs" if len(graders) == 1 else "run"
            message = f"{', '.join(graders)} {verb} {author_model}, the model that wrote the artifact"
            warnings.append(PanelWarning(key="author_on_panel", message=message))
    return PanelReport(seats=rows, models=models, families=families, author_model=author_model, warnings=warnings)


def stored_author(stored: Any) -> str | None:
    """The author model a stored request was started with (None: none given, or stored before it was kept)."""
    value = stored.get(STORED_AUTHOR_KEY) if hasattr(stored, "get") else None
    return value if isinstance(value, str) and value.strip() else None


def warning_lines(report: PanelReport) -> list[str]:
    """Each warning as one line naming its key, as the text output and the dry run print it."""
    return [f"panel warning ({w.key}): {w.message}" for w in report.warnings]


def announce(report: PanelReport, emit: Any) -> None:
    """Each warning once, before round 1, as a progress note (the live view and the plain lines show notes)."""
    for line in warning_lines(report):
        emit(Event("note", 0, data={"text": line, "panel_warning": True}))


def temper(result: Any, report: PanelReport) -> Any:
    """The result with its panel recorded and, for a one-family panel, its HIGH confidence capped."""
    if "panel" in getattr(type(result), "model_fields", {}):
        result.panel = report
    if report.one_family and isinstance(result, Tempered):
        result.cap_confidence(ONE_FAMILY_REASON.format(family=report.families[0]))
    return result

"""Who sat on a panel, and why its votes may be worth fewer than its seats (issue 30): the envelope's `panel`.

Judges of one model share its blind spots, and judges of one family (gpt-5.2 and gpt-5-mini) share much of
them; a judge of the model that wrote the artifact grades its own work. Three such seats agreeing is not
three independent votes, so the panel says so: `warnings` name each of these by a fixed key
(`same_model`, `same_family`, `author_on_panel`), and a panel whose seats all share one family never
reports HIGH confidence. The families come from the provider table (`moot.judges.families`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

PanelWarningKey = Literal["same_model", "same_family", "author_on_panel"]

__all__ = ["PanelReport", "PanelSeat", "PanelWarning", "PanelWarningKey"]


class PanelSeat(BaseModel):
    """One seat: its id, the model that sits there (as sent to its provider) and that model's family."""

    seat: str
    model: str
    family: str


class PanelWarning(BaseModel):
    """Why the panel's votes are not independent: a fixed `key` and a sentence naming the seats."""

    key: PanelWarningKey
    message: str


class PanelReport(BaseModel):
    """The panel as a reader weighs it: its seats, the distinct models and families, and its warnings."""

    seats: list[PanelSeat] = Field(default_factory=list)
    models: list[str] = Field(default_factory=list)  # distinct, in seat order
    families: list[str] = Field(default_factory=list)  # distinct, in seat order
    author_model: str | None = None  # the model that wrote the artifact, when it was given
    warnings: list[PanelWarning] = Field(default_factory=list)

    def has(self, key: PanelWarningKey) -> bool:
        return any(w.key == key for w in self.warnings)

    @property
    def one_family(self) -> bool:
        """Every seat in one family: its agreement says less than its seat count suggests."""
        return self.has("same_family")

"""The seed's three stances of the option-choice debate (seed 002), as the prompts and the API use them.

Apart from the protocol so that the API (default panel, stance prompts), the protocol (prompts, notes)
and anything else can read them without importing the round logic.
"""

from __future__ import annotations

from dataclasses import dataclass

from moot.protocol import Seat


@dataclass(frozen=True)
class Stance:
    title: str
    temperament: str
    focus: str
    goal: str
    rule: str
    prompt: str


STANCES: dict[str, Stance] = {
    "risk": Stance(
        "Risk",
        "SKEPTICAL",
        "evaluate each option for risks",
        "MINIMIZES RISK",
        "Always challenge optimism.",
        "Skeptical: find what can go wrong with each option (technical, delivery, user and business risk) "
        "and recommend the option that minimises risk.",
    ),
    "value": Stance(
        "Value",
        "OPTIMISTIC",
        "evaluate each option for user value",
        "MAXIMIZES VALUE",
        "Always push for more.",
        "Optimistic: find what each option gives users and the business, and recommend the option that "
        "maximises user value.",
    ),
    "effort": Stance(
        "Effort",
        "PRAGMATIC",
        "evaluate each option for ROI",
        "OPTIMIZES ROI",
        "Always ground in reality.",
        "Pragmatic: weigh each option's value against its cost, time and complexity, and recommend the "
        "option with the best return on investment.",
    ),
}
STANCE_PROMPTS = {k: s.prompt for k, s in STANCES.items()}
DEFAULT_STANCES = ("risk", "value", "effort")
DEFAULT_MODEL = "sonnet"
DEFAULT_JUDGES = [{"model": DEFAULT_MODEL, "stance": s} for s in DEFAULT_STANCES]


def stance_of(seat: Seat) -> Stance:
    """The seed's stance for a seat, or a generic one for a stance the user named."""
    known = STANCES.get(seat.stance.lower())
    if known is not None:
        return known
    return Stance(seat.stance.capitalize(), "", "evaluate each option from your stance", "your stance favours", "", "")

"""The rules of the position challenge (seed 004), as pure functions on plain data.

    fast exit      every answering challenger agrees, or every one is partial with minor objections
    confrontation  any disagree, any strong objection, or mixed verdicts
    skepticism     a round-1 agreement without substantive reasoning is read as partial, and blocks the
                   fast exit (the seed: "if suspicious, treat as partial and continue")
    resolution     after a rebuttal, a dissenter is resolved only by ACCEPT; MAINTAIN and ESCALATE keep
                   the debate going until max rounds, then assumptions are extracted (tradeoff)

Failed challengers are not votes: the rules see only the challengers that answered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from moot.protocols.challenge.replies import PositionConfidence, RebuttalResponse
from moot.protocols.challenge.schemas import Challenge
from moot.schemas.words import CONFIDENCE

MIN_SUBSTANTIVE_WORDS = 15
_WORD = re.compile(r"[A-Za-z0-9][\w'-]*")


def word_count(text: str) -> int:
    return len(_WORD.findall(text))


def is_substantive(challenge: Challenge, *, min_words: int = MIN_SUBSTANTIVE_WORDS) -> bool:
    """Whether an agreement engages with the position: enough reasoning to show it was read and weighed."""
    return word_count(challenge.reasoning) >= min_words


@dataclass(frozen=True)
class Reading:
    """How the rules read one challenger's reply."""

    verdict: str  # effective: agree | partial | disagree
    strength: str  # minor | strong
    suspicious: bool = False  # an agreement the skepticism rule did not believe


def read_challenge(challenge: Challenge, *, round_no: int, min_words: int = MIN_SUBSTANTIVE_WORDS) -> Reading:
    if round_no == 1 and challenge.verdict == "agree" and not is_substantive(challenge, min_words=min_words):
        return Reading("partial", "minor", suspicious=True)
    return Reading(challenge.verdict, challenge.objection_strength)


@dataclass
class RoundCheck:
    decision: Literal["fast_exit", "confront"]
    reasons: list[str] = field(default_factory=list)
    dissenters: list[str] = field(default_factory=list)  # seats that go on to confrontation/rebuttal
    all_agree: bool = False


def check_challenges(readings: Mapping[str, Reading]) -> RoundCheck:
    """Seed 004's consensus tables over the challengers that answered (at least one must have)."""
    if not readings:
        raise ValueError("no challenger answered")
    verdicts = {r.verdict for r in readings.values()}
    dissenters = [seat for seat, r in readings.items() if r.verdict != "agree"]
    suspicious = [seat for seat, r in readings.items() if r.suspicious]
    if suspicious:
        return RoundCheck(
            "confront",
            [f"agreement without substantive reasoning from {', '.join(suspicious)}: treated as partial"],
            dissenters,
        )
    if verdicts == {"agree"}:
        return RoundCheck("fast_exit", ["all challengers agree"], [], all_agree=True)
    strong = [seat for seat, r in readings.items() if r.strength == "strong"]
    if verdicts == {"partial"} and not strong:
        return RoundCheck("fast_exit", ["all challengers partial with minor objections"], dissenters)
    reasons = []
    if "disagree" in verdicts:
        reasons.append("disagreement from " + ", ".join(s for s, r in readings.items() if r.verdict == "disagree"))
    if strong:
        reasons.append("strong objections from " + ", ".join(strong))
    if len(verdicts) > 1:
        reasons.append("mixed verdicts: " + ", ".join(f"{s} {r.verdict}" for s, r in readings.items()))
    return RoundCheck("confront", reasons, dissenters)


def unresolved(responses: Mapping[str, RebuttalResponse]) -> list[str]:
    """The dissenters who did not ACCEPT the proponent's answer."""
    return [seat for seat, resp in responses.items() if resp != "ACCEPT"]


def next_step(
    responses: Mapping[str, RebuttalResponse], *, round_no: int, max_rounds: int
) -> Literal["consensus", "continue", "tradeoff"]:
    """Phase 6: all resolved -> consensus; otherwise another round, until max rounds."""
    if not unresolved(responses):
        return "consensus"
    return "continue" if round_no < max_rounds else "tradeoff"


def final_confidence(
    proponent: PositionConfidence, *, outcome: Literal["CONSENSUS", "TRADEOFF"], all_agreed_at_once: bool
) -> PositionConfidence:
    """HIGH for a unanimous substantive agreement (the seed's fast exit); the proponent's own confidence
    after a consensus reached by argument; at most MEDIUM for a contested (tradeoff) position."""
    if outcome == "CONSENSUS":
        return "HIGH" if all_agreed_at_once else proponent
    return proponent if CONFIDENCE.rank(proponent) <= CONFIDENCE.rank("MEDIUM") else "MEDIUM"


def is_changed(previous: str, current: str, decisions: Sequence[str]) -> bool:
    """A version differs from the last when an objection was (partly) accepted or its text changed."""
    norm = " ".join(previous.split()) != " ".join(current.split())
    return norm or any(d in ("ACCEPT", "PARTIAL") for d in decisions)

"""Pure rules of the option-choice debate (seed 002): who recommends what, and whether that is consensus.

Rules, each explicit:
- Only judges that answered count. A judge that timed out or failed is left out before the check (seed:
  "continue_without"); a judge that answered without a usable recommendation still counts, as a voice for
  no option (seed: "treat_as_no_recommendation"), so an unreadable reply can never make a minority look
  like a majority.
- Consensus: the share of answering judges on one option meets the threshold. Thresholds are written to
  two decimals, so a share is compared with a tolerance of half a hundredth: 0.67 is two thirds.
- At least two judges must agree: one voice is never consensus, whatever the threshold.
- A tie for the most votes is never consensus (possible only with thresholds of one half or below).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from moot.protocols.decide.schemas import ChangeLogEntry

THRESHOLD_TOLERANCE = 0.005
MIN_AGREEING = 2


@dataclass(frozen=True)
class OptionConsensus:
    reached: bool
    option: str | None  # the option with the most votes, when it is the only one with that many
    votes: int
    answered: int
    share: float
    distribution: dict[str, list[str]] = field(default_factory=dict)
    no_recommendation: list[str] = field(default_factory=list)

    def describe(self, threshold: float) -> str:
        """One line for people: what the round came to."""
        spread = "; ".join(f"{o}: {', '.join(js)}" for o, js in self.distribution.items()) or "no recommendations"
        if self.reached:
            return f"consensus on {self.option} ({self.votes} of {self.answered})"
        return f"no option reached {threshold:.0%} of {self.answered} judges ({spread})"


def distribution(recommendations: Mapping[str, str | None], option_ids: Sequence[str]) -> dict[str, list[str]]:
    """Option id -> judges recommending it, in the options' order; options nobody chose are left out."""
    out: dict[str, list[str]] = {}
    for option in option_ids:
        judges = [j for j, rec in recommendations.items() if rec == option]
        if judges:
            out[option] = judges
    return out


def meets_threshold(votes: int, answered: int, threshold: float) -> bool:
    if answered <= 0:
        return False
    return votes / answered + THRESHOLD_TOLERANCE >= threshold


def check_consensus(
    recommendations: Mapping[str, str | None], option_ids: Sequence[str], threshold: float
) -> OptionConsensus:
    """`recommendations`: every judge that answered -> its option id, or None for no usable recommendation."""
    dist = distribution(recommendations, option_ids)
    answered = len(recommendations)
    abstained = [j for j, rec in recommendations.items() if rec is None]
    if not dist:
        return OptionConsensus(False, None, 0, answered, 0.0, dist, abstained)
    counts = sorted((len(js) for js in dist.values()), reverse=True)
    top = counts[0]
    leaders = [o for o, js in dist.items() if len(js) == top]
    option = leaders[0] if len(leaders) == 1 else None
    share = round(top / answered, 4) if answered else 0.0
    reached = option is not None and top >= MIN_AGREEING and meets_threshold(top, answered, threshold)
    return OptionConsensus(reached, option, top, answered, share, dist, abstained)


def changes(
    previous: Mapping[str, str | None],
    current: Mapping[str, str | None],
    reasons: Mapping[str, str],
    round_no: int,
) -> list[ChangeLogEntry]:
    """Change-log entries for judges whose recommendation went from one option to another.

    A judge that had no recommendation before and has one now has not changed its mind; nor has one that
    lost its recommendation (its earlier one is not taken back by an unreadable reply).
    """
    out = []
    for judge, now in current.items():
        before = previous.get(judge)
        if before is not None and now is not None and before != now:
            out.append(ChangeLogEntry(judge=judge, round=round_no, from_=before, to=now, reason=reasons.get(judge, "")))
    return out

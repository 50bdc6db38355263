"""The words a protocol's results end in, declared once in its spec (`ProtocolSpec.verdict`): their
ranking, best first, for `--require`; their tone, for the terminal's colours and the HTML report's verdict
box; what `--require` accepts and what `--fail-under` needs. The gate (`moot.api.gate`), the CLI's colours
(`moot.cli.output`) and the HTML tones read them from here, so no kernel table names a protocol's word and
a new protocol's words are coloured and gated like the built-in ones.

`moot.render` sits below the protocols and cannot read a spec: the callers hand it the tones
(`VerdictSpec.words`, or the union over the registry for a listing of every protocol's debates).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from moot.render.html_common import tone_of

__all__ = ["VerdictSpec", "VerdictTone", "all_words"]

VerdictTone = Literal["good", "warn", "bad"]


@dataclass(frozen=True)
class VerdictSpec:
    """A protocol's verdict words and what the gate makes of them."""

    # every word a result of the protocol can end in, best first, each with its tone
    words: Mapping[str, VerdictTone] = field(default_factory=dict)
    # what `--require` accepts: a result passes when its word ranks at least as high as the one required
    require: tuple[str, ...] = ()
    # with one word for `--require`: when the gate fails, for the CLI's help ("the decision is contested")
    require_fails: str = ""
    scored: bool = False  # its result has a score (`summary.consensus_score`): the command takes `--fail-under`
    # the one word a list shows for a result, by its verdict's kind (RECOMMENDED, CONSENSUS, ...); None: the
    # verdict's answer itself (PASS/CONDITIONAL/FAIL), which the gate then calls the verdict, not the outcome
    outcome_words: Mapping[str, str] | None = None

    def rank(self, word: str) -> int | None:
        """How good `word` is: 0 for the best; None for a word the protocol does not use."""
        ranked = list(self.words)
        return ranked.index(word) if word in ranked else None

    def at_least(self, word: str, required: str) -> bool:
        """Whether `word` is as good as `required` or better (a word outside the ranking only matches itself)."""
        have, need = self.rank(word), self.rank(required)
        if have is None or need is None:
            return word == required
        return have <= need

    def tone(self, word: str) -> VerdictTone | None:
        return self.words.get(word.upper())

    def html_tone(self, word: str) -> str:
        """The HTML verdict box's tone for `word`: pass, conditional, fail, or neutral for an unknown word."""
        return tone_of(word, self.words)


def all_words(verdicts: Iterable[VerdictSpec]) -> dict[str, VerdictTone]:
    """Every word of several protocols with its tone (the first protocol's, should two disagree): what a
    terminal colours in output that may show any protocol's words (`moot list`, a judge's prose)."""
    out: dict[str, VerdictTone] = {}
    for verdict in verdicts:
        for word, tone in verdict.words.items():
            out.setdefault(word, tone)
    return out

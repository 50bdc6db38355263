"""A set of words a judge's reply may give, declared once (`Words`): the words themselves (a `Literal`, so
that the type checker knows them and the reply schema's enum is the same list), what else judges write
for each (synonyms), and what each means where the debate is shown (`Meaning`: the status it gives a
judge's position, its level on a chart or in a ranking). A table keyed by a word elsewhere would drop a word
added later without a sound; read from here, a word without its meaning is refused where it is declared.

The confidence every protocol asks of its judges (HIGH, MEDIUM, LOW) is one of these sets, `CONFIDENCE`:
the kernel's panel check, the reply schemas and every protocol read it from here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar, get_args

W = TypeVar("W", bound=str)


@dataclass(frozen=True)
class Meaning:
    """What a word means where a debate is shown."""

    status: str = ""  # the status it gives a judge's position (`agreed`), where the protocol shows one
    level: int | None = None  # its height on the protocol's chart or ranking (higher: closer to agreement)


@dataclass(frozen=True)
class Words(Generic[W]):
    """A word set: its words in order, the synonyms read as each, and each word's meaning (all of them, or
    none where the protocol gives the words no meaning). `upper`: the words are read upper-case (else
    lower-case), whatever case a judge writes them in."""

    words: tuple[W, ...]
    synonyms: Mapping[str, W] = field(default_factory=dict)
    meanings: Mapping[W, Meaning] = field(default_factory=dict)
    upper: bool = True

    def __post_init__(self) -> None:
        strays = [s for s, w in self.synonyms.items() if w not in self.words]
        if strays:
            raise ValueError(f"synonyms of no word of {self.words}: {strays}")
        if self.meanings and set(self.meanings) != set(self.words):
            missing = [w for w in self.words if w not in self.meanings]
            raise ValueError(f"every word needs its meaning: none for {missing or sorted(self.meanings)}")

    @classmethod
    def of(
        cls,
        literal: Any,
        synonyms: Mapping[str, W] | None = None,
        meanings: Mapping[W, Meaning] | None = None,
        *,
        upper: bool = True,
    ) -> Words[W]:
        """The set of a `Literal`'s words (its order), with their synonyms and meanings."""
        return cls(tuple(get_args(literal)), dict(synonyms or {}), dict(meanings or {}), upper)

    @property
    def table(self) -> dict[str, W]:
        """Every word a reply may give (the set's own and the synonyms, in the case they are read in) -> the
        set's word."""
        return {**{w: w for w in self.words}, **self.synonyms}

    def read(self, value: str) -> W | None:
        """The set's word for what a judge wrote (spaces and underscores alike, any case), or None."""
        key = " ".join(value.replace("_", " ").split())
        return self.table.get(key.upper() if self.upper else key.lower())

    def meaning(self, word: str) -> Meaning:
        """The meaning of one of the words (a plain one for a word outside the set)."""
        return next((m for w, m in self.meanings.items() if w == word), Meaning())

    def status(self, word: str) -> str:
        return self.meaning(word).status

    def level(self, word: str) -> int | None:
        return self.meaning(word).level

    def rank(self, word: str) -> int:
        """The level of one of the words, for ranking them (KeyError for a word without one)."""
        level = self.level(word)
        if level is None:
            raise KeyError(word)
        return level


Confidence = Literal["HIGH", "MEDIUM", "LOW"]
# the confidence a judge (or a result) states, best first; its level ranks it
CONFIDENCE: Words[Confidence] = Words.of(
    Confidence,
    {"MED": "MEDIUM"},
    {"HIGH": Meaning(level=2), "MEDIUM": Meaning(level=1), "LOW": Meaning(level=0)},
)

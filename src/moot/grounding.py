"""Whether a judge's finding quotes what the judges were shown: the one check that lets a finding block.

A judge's word is not evidence. A finding carries a `quote`, and moot looks for it, verbatim, in the exact
texts the judge was shown (the artifacts, a diff's new side, the context, the position): whitespace does
not count (a quote may re-wrap or re-indent a line), nothing else is forgiven (no fuzzy match, no
ellipsis). When the finding also names a place (`file:line`), the quote must be found there: in that file,
on a span of lines that includes that line.

Pure functions over plain data: the protocols call them while reading a reply, so a rerun or a resumed
debate decides the same way. Beside them, `drawn_order`: the one way the protocols shuffle what a judge reads
side by side (reports, options), reproducibly.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from moot.diffs import shown_lines
from moot.schemas.config import Artifact

_T = TypeVar("_T")
NO_QUOTE = "no quote"
NOT_FOUND = "quote not found"
WRONG_PLACE = "location does not hold the quote"
# a quote shorter than this (whitespace aside) proves nothing: "=" or "if" is found in any code
MIN_QUOTE_CHARS = 8
_SPACE = re.compile(r"\s+")
_DIFF_LINE = re.compile(r"^ *(\d+) [ +] ?(.*)$")


@dataclass(frozen=True)
class Source:
    """One text a judge was shown: its name (an artifact's path; "context", "position", "task") and its lines,
    each with the number a judge would cite (a diff's new-file number)."""

    name: str
    lines: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class Grounding:
    grounded: bool
    reason: str | None = None  # NO_QUOTE, NOT_FOUND or WRONG_PLACE when not grounded

    def fields(self) -> dict[str, object]:
        """The keys a finding carries in the result."""
        return {"grounded": self.grounded, "ungrounded_reason": self.reason}


def _squeeze(text: str) -> str:
    return _SPACE.sub("", text)


def source_of(name: str, text: str) -> Source:
    """A text as shown: a diff artifact built by `moot.diffs` by its new side's numbered lines (removed lines
    are no part of it), any other text line by line from 1."""
    if shown_lines(text) is None:
        return Source(name.removeprefix("./"), tuple(enumerate(text.splitlines(), start=1)))
    numbered: dict[int, str] = {}
    for raw in text.splitlines():
        m = _DIFF_LINE.match(raw)
        if m:
            numbered.setdefault(int(m.group(1)), m.group(2))
    return Source(name.removeprefix("./"), tuple(sorted(numbered.items())))


def sources(artifacts: Sequence[Artifact], **texts: str) -> list[Source]:
    """What the judges were shown: each artifact, then each named text given (`task=...`, `context=...`)."""
    shown = [source_of(a.path, a.text) for a in artifacts]
    return shown + [source_of(name, text) for name, text in texts.items() if text.strip()]


def _spans(quote: str, source: Source) -> Iterable[tuple[int, int]]:
    """The (first, last) line numbers of each place `quote` is found in `source`, whitespace aside."""
    joined: list[str] = []
    owner: list[int] = []
    for number, text in source.lines:
        squeezed = _squeeze(text)
        joined.append(squeezed)
        owner.extend([number] * len(squeezed))
    haystack = "".join(joined)
    start = haystack.find(quote)
    while start >= 0:
        yield owner[start], owner[start + len(quote) - 1]
        start = haystack.find(quote, start + 1)


def ground(quote: str, shown: Sequence[Source], *, file: str | None = None, line: int | None = None) -> Grounding:
    """Whether `quote` is found in what was shown and, when the finding names a place, there."""
    wanted = _squeeze(quote or "")
    if len(wanted) < MIN_QUOTE_CHARS:
        return Grounding(False, NO_QUOTE)
    found = [(s.name, span) for s in shown for span in _spans(wanted, s)]
    if not found:
        return Grounding(False, NOT_FOUND)
    if file is None:
        return Grounding(True)
    name = file.removeprefix("./")
    at_file = [span for where, span in found if where == name]
    if not at_file or (line is not None and not any(a <= line <= b for a, b in at_file)):
        return Grounding(False, WRONG_PLACE)
    return Grounding(True)


def drawn_order(items: Sequence[_T], *key: object) -> list[_T]:
    """`items` in an order drawn from `key` (what is judged, the seat, the round): the same key gives the same
    order on every run, so a rerun or a resumed debate shows each judge what it was shown before. Used where
    a judge reads several things side by side (other judges' reports, the options), so no one is always first."""
    order = list(items)
    random.Random(hashlib.sha256("/".join(map(str, key)).encode()).digest()).shuffle(order)
    return order

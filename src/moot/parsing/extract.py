"""Find the YAML or JSON mapping in a judge's reply, tolerating fences and prose around it.

Replies are untrusted text: they are parsed with `json.loads` and a safe YAML loader only, never
evaluated, and every way such text can fail to load ends as a `ReplyError` (see `reply_parser`): one
strange reply must cost its judge a clarification, never the whole debate a traceback.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
import reprlib
from collections.abc import Callable, Iterator
from typing import Any, NamedTuple, ParamSpec, TypeVar

import yaml
from pydantic import ValidationError

from moot.parsing.yaml_safe import (
    MAX_DEPTH,
    MAX_NODES,
    TOO_DEEP,
    TOO_LARGE,
    compose_and_construct,
)
from moot.parsing.yaml_safe import (
    ReplyError as ReplyError,  # raised by every parser: its home for importers
)

P = ParamSpec("P")
T = TypeVar("T")

# A fence opens with a run of 3+ backticks or tildes, then a language tag and at most 200 more characters
# on its line (past 200: prose). The run is found first and the rest matched from its end, so that each
# run is read once: a search for the whole opener would read a long run again from each of its characters.
_RUN = re.compile(r"`{3,}+|~{3,}+")
_OPEN_TAIL = re.compile(r"[ \t]*+([A-Za-z0-9_+-]*+)[^\n]{0,200}+\n")
_MAX_FENCES = 32  # models fence one or two blocks; a reply of thousands must not cost a YAML parse each
_MAX_REPLY = 2_000_000
_MAX_INT_BITS = 4096  # beyond this, str() of an int raises (Python's 4,300-digit limit) and float() overflows
_TOO_BIG_NUMBER = "it holds a number too large to read"
# what bad data can raise from code that reads it (a NameError or an AssertionError is a bug instead)
_DATA_ERRORS = (ValueError, TypeError, LookupError, AttributeError, ArithmeticError)
_PREVIEW = reprlib.Repr()
_PREVIEW.maxstring = _PREVIEW.maxother = 60


def reply_parser(parse: Callable[P, T]) -> Callable[P, T]:
    """Hold `parse` to the engine's contract: an unusable reply raises ReplyError, nothing else.

    The parsers check shapes field by field, but untrusted text still reaches corners they do not name
    (a pydantic constraint, a value of an unexpected type); anything else escaping would end the
    whole debate instead of costing one judge a clarification. Only errors that bad data can cause
    are turned into ReplyError: a NameError or an AssertionError stays a bug and is raised as such.
    """

    @functools.wraps(parse)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return parse(*args, **kwargs)
        except ReplyError:
            raise
        except (*_DATA_ERRORS, RecursionError, yaml.YAMLError) as e:
            raise ReplyError(_describe(e)) from e

    return guarded


def _describe(error: Exception) -> str:
    """One line for the judge: what was wrong, without a traceback or the reply quoted back at length."""
    if isinstance(error, RecursionError):
        return f"the reply could not be read: {TOO_DEEP}"
    if isinstance(error, ValidationError) and error.errors():
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"the reply's {where or 'content'} is invalid: {_clip(first['msg'])}"
    return f"the reply could not be read ({type(error).__name__}: {_clip(str(error))})"


def _clip(text: str, limit: int = 120) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def preview(value: Any) -> str:
    """A value from a reply, short enough to quote in a ReplyError."""
    return _clip(_PREVIEW.repr(value), 80)


class _Fence(NamedTuple):
    start: int
    lang: str
    body: str


class _Runs:
    """The longest run of each fence character from any position on: one pass over the text, then a
    binary search per question, so that finding a closer never reads the rest of the reply again."""

    def __init__(self, text: str) -> None:
        self.starts: dict[str, list[int]] = {"`": [], "~": []}
        lengths: dict[str, list[int]] = {"`": [], "~": []}
        for m in _RUN.finditer(text):
            self.starts[m.group()[0]].append(m.start())
            lengths[m.group()[0]].append(len(m.group()))
        self.longest: dict[str, list[int]] = {}
        for ch, runs in lengths.items():
            tail = [0] * (len(runs) + 1)
            for i in range(len(runs) - 1, -1, -1):
                tail[i] = max(runs[i], tail[i + 1])
            self.longest[ch] = tail

    def longest_from(self, ch: str, pos: int) -> int:
        """The longest run of `ch` that starts at `pos` or later (0 if none)."""
        return self.longest[ch][bisect.bisect_left(self.starts[ch], pos)]


def _fences(text: str) -> list[_Fence]:
    """The blocks fenced with ``` or ~~~ (the closing run may sit mid-line), in linear time.

    An opening run of R characters closes at the first later run at least as long; failing that, its
    last R-1, R-2, ... characters are tried as the opener (the line after them is the same), so the
    fence is the longest L <= R for which a run of L follows: `_Runs` says which at once. A character
    whose runs of some length found no closer is never looked up again at that length or longer.
    """
    out: list[_Fence] = []
    runs: _Runs | None = None  # built only once a closer is missing: most replies never need it
    unclosed: dict[str, int] = {}  # fence character -> shortest run with no closer after it
    pos = 0
    while run := _RUN.search(text, pos):
        start, stop = run.span()
        tail = _OPEN_TAIL.match(text, stop)
        if tail is None:  # every suffix of the run has this same line after it: none opens a fence
            pos = stop
            continue
        ch, body_at = text[start], tail.end()
        fit = min(stop - start, unclosed.get(ch, len(text) + 1) - 1)
        end = text.find(ch * fit, body_at) if runs is None and fit >= 3 else -1
        if end < 0 and fit >= 3:
            runs = runs or _Runs(text)
            fit = min(fit, runs.longest_from(ch, body_at))
            end = text.find(ch * fit, body_at) if fit >= 3 else -1
        if fit < stop - start:  # the longer openers of this run were tried, in effect, and found no closer
            unclosed[ch] = min(unclosed.get(ch, len(text) + 1), max(fit + 1, 3))
        if end < 0:
            pos = stop
            continue
        body = text[body_at:end]
        out.append(_Fence(stop - fit, tail.group(1), body[:-1] if body.endswith("\n") else body))
        pos = end + fit
    return out


def _candidates(text: str) -> Iterator[str]:
    # Prefer fences marked yaml/json, then any fence, last one first (models put the answer at the end).
    fenced = sorted(_fences(text), key=lambda f: (f.lang.lower() not in ("yaml", "yml", "json"), -f.start))
    for f in fenced[:_MAX_FENCES]:
        yield f.body
    stripped = text.strip()
    yield stripped
    start, end = stripped.find("{"), stripped.rfind("}")
    if 0 <= start < end:
        yield stripped[start : end + 1]
    # YAML after a line of prose: from the first line that looks like "key: value".
    line = re.search(r"^[A-Za-z_][\w-]*:\s", stripped, re.MULTILINE)
    if line and line.start() > 0:
        yield stripped[line.start() :]


def _load(block: str) -> Any:
    """The value `block` holds as JSON or YAML; None when it is neither.

    Raises ReplyError when it is data but cannot be used (nested too deeply, too large, a number
    too large, a date that does not exist), with the reason for the judge.
    """
    block = block.strip()
    if not block:
        return None
    try:
        if block[0] in "{[":
            try:
                return json.loads(block)
            except RecursionError:
                raise
            except ValueError:
                pass
        return compose_and_construct(block)
    except ReplyError:
        raise
    except RecursionError:
        raise ReplyError(TOO_DEEP) from None
    except yaml.YAMLError:
        return None
    except UnicodeError:
        raise ReplyError("it holds text that is not valid Unicode") from None
    except _DATA_ERRORS as e:
        # a scalar that is not what its form or tag says: 10**5000, 2024-13-45, !!bool maybe, !!int x
        if "digits" in str(e):
            raise ReplyError(_TOO_BIG_NUMBER) from None
        raise ReplyError(f"a value in it could not be read as its YAML type ({_clip(str(e), 60)})") from None


def _check_size(data: Any) -> None:
    """Bound what later walks over `data` (as_text, str of keys) may cost.

    Aliases make the loaded value a graph: `[*a, *a, ...]` nine times nine levels deep is a small
    reply and a billion strings to print, and `&a [*a]` is a list inside itself. Sizes are counted as
    a walk would meet them, each shared object measured once.
    """
    nodes, chars, _ = _measure(data, 0, {})
    if nodes > MAX_NODES or chars > _MAX_REPLY:
        raise ReplyError(TOO_LARGE)


def _measure(value: Any, depth: int, seen: dict[int, tuple[int, int, int]]) -> tuple[int, int, int]:
    """(nodes, characters, height) of `value` once expanded; raises ReplyError past a limit."""
    if isinstance(value, str | bytes):
        return 1, len(value), 0
    if isinstance(value, int) and value.bit_length() > _MAX_INT_BITS:
        raise ReplyError(_TOO_BIG_NUMBER)
    if not isinstance(value, dict | list | tuple | set | frozenset):
        return 1, 0, 0
    if depth >= MAX_DEPTH:
        raise ReplyError(TOO_DEEP)
    known = seen.get(id(value))
    if known is None:
        nodes, chars, height = 1, 0, 0
        for item in [*value, *value.values()] if isinstance(value, dict) else value:
            n, c, h = _measure(item, depth + 1, seen)
            nodes, chars, height = nodes + n, chars + c, max(height, h + 1)
            if nodes > MAX_NODES:
                raise ReplyError(TOO_LARGE)
        known = seen[id(value)] = (nodes, chars, height)
    if depth + known[2] > MAX_DEPTH:
        raise ReplyError(TOO_DEEP)
    return known


def extract_mapping(text: str, *, required_any: tuple[str, ...] = ()) -> dict[str, Any]:
    """The first mapping found in `text` (that has one of `required_any`, when given).

    Raises ReplyError when the reply holds no YAML or JSON mapping at all, or only ones that cannot be
    used safely (nested too deeply, too large once aliases are expanded): then the message says why.
    """
    if len(text) > _MAX_REPLY:
        text = text[:_MAX_REPLY]
    first: dict[str, Any] | None = None
    problem = ""
    for block in _candidates(text):
        try:
            data = _load(block)
            if not isinstance(data, dict) or not data:
                continue
            _check_size(data)
        except ReplyError as e:
            problem = problem or str(e)
            continue
        data = {str(k).strip().lower(): v for k, v in data.items()}
        if not required_any or any(k in data for k in required_any):
            return data
        if first is None:
            first = data
    if first is not None:
        return first
    if not text.strip():
        raise ReplyError("the reply was empty")
    reason = f": {problem}" if problem else ""
    raise ReplyError(f"the reply has no YAML or JSON block that could be read{reason}")


def as_text(value: Any) -> str:
    """A field that should be prose, whatever shape the model gave it."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    if isinstance(value, list):
        return "\n".join(f"- {as_text(v)}" for v in value)
    if isinstance(value, dict):
        return "\n".join(f"{k}: {as_text(v)}" for k, v in value.items())
    return str(value)


def as_list(value: Any) -> list[Any]:
    if value is None or value == "":
        return []
    if isinstance(value, list):
        return value
    return [value]


_NUMBER = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*(?:/\s*5(?:\.0)?)?\s*$")


def as_score(value: Any, what: str) -> float:
    """A 1-5 score. Accepts 4, 4.5, "4.5", "4/5". Raises ReplyError naming `what` otherwise."""
    if isinstance(value, bool):
        raise ReplyError(f"{what} must be a number from 1 to 5, not {preview(value)}")
    if isinstance(value, int | float):
        try:
            score = float(value)
        except OverflowError:
            raise ReplyError(f"{what} must be a number from 1 to 5, not {preview(value)}") from None
    elif isinstance(value, str) and (m := _NUMBER.match(value)):
        score = float(m.group(1))
    else:
        raise ReplyError(f"{what} must be a number from 1 to 5, not {preview(value)}")
    if not 1.0 <= score <= 5.0:
        raise ReplyError(f"{what} is {score:g}, outside the 1-5 scale")
    return score


def as_bool(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        v = value.strip().lower()
        if v in ("true", "yes", "y"):
            return True
        if v in ("false", "no", "n"):
            return False
    return None

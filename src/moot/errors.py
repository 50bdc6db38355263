"""The exceptions moot raises, as one small tree.

    MootError
    ├── UsageError          bad input: the CLI prints one line and exits 2, before any LLM call
    │   ├── MissingExtra    an optional vendor SDK is not installed (message carries the pip hint)
    │   └── NotUsableHere   a judge the debate needs cannot run here (no key, SDK, agent CLI or login)
    ├── DebateAborted       the debate cannot go on (too few judges left, no challengers): exit 3
    │   ├── ContextOverflow a step mid-debate does not fit a judge's context window: resumable, exit 4
    │   └── DebateCancelled cancelled (`moot cancel`) while it ran: no further call, exit 3
    ├── Interrupted         Ctrl-C: the debate is resumable (exit 130)
    └── JudgeError          one call to one judge failed; the engine turns it into an outcome
        ├── TransientJudgeError   worth retrying (429, 5xx, connection reset); may carry Retry-After
        └── JudgeTimeout          the call ran past its timeout

A JudgeError never escapes the engine: a failed judge is an outcome of the debate, not a crash.
Every message is redacted as the error is made (`moot.schemas.safe_text`): a vendor's text may echo a key,
and a message is stored, written to RESULTS.jsonl and printed.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from moot.schemas.safe_text import redact


def shown_path(path: str | os.PathLike[str]) -> str:
    """A path as a message shows it: relative to the working folder when inside it, `~/...` under the home
    folder, else as given. A tool error read by an LLM, or a CI log, need not carry the user's layout."""
    given = Path(path)
    if not given.is_absolute():
        return str(given)
    try:
        cwd: Path | None = Path.cwd()
    except OSError:  # the working folder was removed
        cwd = None
    if cwd is not None and given != cwd and given.is_relative_to(cwd):
        return str(given.relative_to(cwd))
    home = Path("~").expanduser()
    if home.is_absolute() and home != Path("/") and given != home and given.is_relative_to(home):
        return "~/" + str(given.relative_to(home))
    return str(given)


class MootError(Exception):
    """Base of every error moot raises on purpose."""

    def __init__(self, *args: Any) -> None:
        super().__init__(*(redact(a) if isinstance(a, str) else a for a in args))


class UsageError(MootError):
    """The user's input cannot be used as given. The message names the problem in one line."""


class MissingExtra(UsageError):
    """An optional dependency is missing; the message says which extra installs it."""

    def __init__(self, package: str, extra: str) -> None:
        super().__init__(f"the '{package}' package is not installed: pip install 'moot[{extra}]'")
        self.package = package
        self.extra = extra


class NotUsableHere(UsageError):
    """A judge the debate cannot do without is not usable here (its key, SDK, agent CLI or login is missing):
    found before any call, so it is bad input (exit 2) whichever protocol, pointing at `moot doctor`."""


class DebateAborted(MootError):
    """The debate stopped because it could not reach a trustworthy end (CLI exit code 3)."""


class ContextOverflow(DebateAborted):
    """A step after round 1 began does not fit a judge's context window (the check before round 1 estimated
    it would): nothing of that step was sent, the debate is kept and resumable (CLI exit code 4)."""


class DebateCancelled(DebateAborted):
    """The debate was cancelled (`moot cancel`, MCP `cancel_debate` or `tasks/cancel`) while it ran, perhaps from
    another process: the engine found it so before a call and sends nothing more. Its status stays cancelled."""

    def __init__(self, debate_id: str) -> None:
        super().__init__(f"debate {debate_id} was cancelled: no further call was made; what it paid for is kept")
        self.debate_id = debate_id


class Interrupted(MootError):
    """The user interrupted a debate (Ctrl-C). It is resumable: the message says how (exit 130)."""

    def __init__(self, debate_id: str | None) -> None:
        where = f"moot resume {debate_id}" if debate_id else "moot resume DEBATE_ID (see 'moot list')"
        super().__init__(f"interrupted; nothing that completed is lost: continue with '{where}'")
        self.debate_id = debate_id


class JudgeError(MootError):
    """A call to a judge failed for good (bad credentials, bad request, a CLI that exited non-zero)."""

    kind: str = "error"


class TransientJudgeError(JudgeError):
    """A call failed in a way that a later identical call may not (rate limit, server error)."""

    kind = "transient"

    def __init__(self, message: str, *, retry_after: float | None = None, status: int | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after
        self.status = status


class JudgeTimeout(JudgeError):
    """The judge did not answer within its timeout."""

    kind = "timeout"


# the names the docs send users to (tests/test_public_surface.py pins them)
__all__ = [
    "DebateAborted",
    "Interrupted",
    "JudgeError",
    "JudgeTimeout",
    "MissingExtra",
    "MootError",
    "NotUsableHere",
    "TransientJudgeError",
    "UsageError",
]

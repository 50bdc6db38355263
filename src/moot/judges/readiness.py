"""What a planned panel still lacks here, in words: the warnings of a dry run.

A dry run sends nothing, so it needs no key, no vendor SDK and no agent CLI. It names, as a warning,
every judge (a fallback included) that a real run could not call on this machine: a missing credential
(the variable to set), a missing SDK (the pip extra), an agent CLI not on PATH. The same rule holds for
`evaluate`, `decide`, `challenge` and `moot bench`, so a plan reads the same whichever made it.

Nothing here probes a model or runs a CLI: only the environment, importlib's finder and PATH are read.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from moot.judges.agent_cli import which
from moot.judges.base import Seat
from moot.judges.factory import KeylessJudge
from moot.judges.providers import PROVIDERS, sdk_missing


def judge_problem(judge: object) -> str | None:
    """Why a real run could not call this judge here, or None when nothing is seen missing."""
    if isinstance(judge, KeylessJudge):
        return judge.missing
    provider = getattr(judge, "provider", "")
    if provider == "cli":
        argv = getattr(judge, "argv", None) or [getattr(judge, "model", "?")]
        if which(str(argv[0])) is None:
            return f"agent CLI '{argv[0]}' not found on PATH"
        return None
    known = PROVIDERS.get(str(provider))
    return sdk_missing(known.wire) if known is not None else None


def plan_warnings(seats: Iterable[Seat]) -> list[str]:
    """One line per judge a real run could not call here, naming its seat and what is missing."""
    warnings: list[str] = []
    for seat in seats:
        for n, judge in enumerate(seat.judges):
            problem = judge_problem(judge)
            if problem is None:
                continue
            model = getattr(judge, "model", "?")
            who = f"{seat.id} ({seat.label})" if n == 0 else f"{seat.id}'s fallback {model}"
            warnings.append(f"{who}: {problem}")
    return warnings


def merge_warnings(*groups: Sequence[str]) -> list[str]:
    """Several sources' warnings, each line once, in order."""
    return list(dict.fromkeys(w for group in groups for w in group))

"""The CI gate's rule: `--fail-under SCORE` and `--require WORD` against a result's JSON (public API).

`--require` takes each protocol's own words, its spec's `require_words`: PASS or CONDITIONAL for `evaluate`,
RECOMMENDED for `decide` (a contested decision fails), CONSENSUS for `challenge` (a tradeoff fails).
`--fail-under` is for the scored protocols only (a spec's `scored`: `evaluate`).

`gate_failure` is a pure function of the result's JSON, so every protocol's command, the tests and users'
scripts share it. It lived in `moot.cli.gate`, which still re-exports it; this is its public home.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from moot.api.results import verdict_word
from moot.errors import UsageError

__all__ = ["VERDICT_RANK", "check_gate_options", "gate_failure"]

# how good each verdict is: --require X passes any verdict at least as good as X
VERDICT_RANK = {"FAIL": 0, "CONDITIONAL": 1, "PASS": 2}


def check_gate_options(fail_under: float | None, require: str | None, protocol: str) -> str | None:
    """Validate the gate options before any call; returns `require` upper-cased. What each protocol accepts
    is its spec's (`scored`, `require_words`)."""
    from moot.protocols import spec_for, specs

    spec = spec_for(protocol)
    if fail_under is not None and not spec.scored:
        scored = ", ".join(f"moot {s.name}" for s in specs() if s.scored)
        raise UsageError(f"--fail-under applies to scored evaluations ({scored}) only")
    if fail_under is not None and not 1.0 <= fail_under <= 5.0:
        raise UsageError(f"--fail-under must be a score between 1 and 5 (got {fail_under:g})")
    if require is None:
        return None
    word = require.strip().upper()
    allowed = spec.require_words
    if word not in allowed:
        raise UsageError(f"--require must be {' or '.join(allowed)} (got {require!r})")
    return word


def gate_failure(
    result: Mapping[str, Any], *, fail_under: float | None = None, require: str | None = None
) -> str | None:
    """Why the result falls short of the gate, or None when it passes (or no gate is set).

    The verdict is read from the result envelope (`verdict.answer` for PASS/CONDITIONAL, the outcome word
    `headline` derives from `verdict.kind` for RECOMMENDED/CONSENSUS); `fail_under` from evaluate's own
    `summary.consensus_score`, the one fact the envelope does not carry.
    `fail_under`: the panel's final score must be at least this. `require`: the verdict must be at least
    this good (PASS > CONDITIONAL > FAIL), or the outcome must be that word (RECOMMENDED, CONSENSUS). A
    result without a score or a verdict fails a gate that asks for one: a gate must never pass by accident.
    """
    if require is not None and require not in VERDICT_RANK:
        outcome = verdict_word(result)
        return None if outcome == require else f"outcome {outcome or 'unknown'} is not --require {require}"
    summary = result.get("summary") if isinstance(result.get("summary"), Mapping) else {}
    verdict = result.get("verdict") if isinstance(result.get("verdict"), Mapping) else {}
    reasons = []
    if fail_under is not None:
        score = summary.get("consensus_score") if summary else None
        if not isinstance(score, int | float) or isinstance(score, bool):
            reasons.append(f"no score to compare with --fail-under {fail_under:g}")
        elif score < fail_under:
            reasons.append(f"score {score:g} is under --fail-under {fail_under:g}")
    if require is not None:
        answer = str(verdict.get("answer") or "") if verdict else ""
        if answer not in VERDICT_RANK:
            reasons.append(f"no verdict to compare with --require {require}")
        elif VERDICT_RANK[answer] < VERDICT_RANK[require]:
            reasons.append(f"verdict {answer} is below --require {require}")
    return "; ".join(reasons) or None

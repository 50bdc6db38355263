"""The CI gate's rule: `--fail-under SCORE` and `--require WORD` against a result's JSON (public API).

`--require` takes each protocol's own words, its spec's `verdict.require`: PASS or CONDITIONAL for
`evaluate`, RECOMMENDED for `decide` (a contested decision fails), CONSENSUS for `challenge` (a tradeoff
fails). A result passes when its word ranks at least as high as the one required, in its spec's ranking
(`VerdictSpec.words`, best first). `--fail-under` is for the scored protocols only (`verdict.scored`:
`evaluate`).

`gate_failure` is a function of the result's JSON and its protocol's spec, so every protocol's command, the
tests and users' scripts share it. It lived in `moot.cli.gate`, which still re-exports it; this is its
public home.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from moot.api.results import protocol_of, verdict_word
from moot.errors import UsageError
from moot.protocol.verdict import VerdictSpec

__all__ = ["check_gate_options", "gate_failure"]


def check_gate_options(fail_under: float | None, require: str | None, protocol: str) -> str | None:
    """Validate the gate options before any call; returns `require` upper-cased. What each protocol accepts
    is its spec's (`verdict.scored`, `verdict.require`)."""
    from moot.protocols import spec_for, specs

    verdict = spec_for(protocol).verdict
    if fail_under is not None and not verdict.scored:
        scored = ", ".join(f"moot {s.name}" for s in specs() if s.verdict.scored)
        raise UsageError(f"--fail-under applies to scored evaluations ({scored}) only")
    if fail_under is not None and not 1.0 <= fail_under <= 5.0:
        raise UsageError(f"--fail-under must be a score between 1 and 5 (got {fail_under:g})")
    if require is None:
        return None
    word = require.strip().upper()
    allowed = verdict.require
    if word not in allowed:
        raise UsageError(f"--require must be {' or '.join(allowed)} (got {require!r})")
    return word


def _verdict_spec(result: Mapping[str, Any]) -> VerdictSpec:
    """The verdict words of the result's protocol; none for a protocol that is not registered."""
    from moot.protocols import entry, spec_for

    name = protocol_of(result)
    return spec_for(name).verdict if name and entry(name) is not None else VerdictSpec()


def gate_failure(
    result: Mapping[str, Any], *, fail_under: float | None = None, require: str | None = None
) -> str | None:
    """Why the result falls short of the gate, or None when it passes (or no gate is set).

    The verdict is read from the result envelope: `verdict.answer` for a protocol whose words are its
    verdict's answers (PASS/CONDITIONAL/FAIL), else the outcome word its spec's `outcome_words` derives from
    `verdict.kind` (RECOMMENDED/CONSENSUS); `fail_under` from evaluate's own `summary.consensus_score`, the
    one fact the envelope does not carry.
    `fail_under`: the panel's final score must be at least this. `require`: the verdict must rank at least
    as high as this in the protocol's words (PASS > CONDITIONAL > FAIL). A result without a score or a
    verdict fails a gate that asks for one: a gate must never pass by accident.
    """
    spec = _verdict_spec(result)
    if require is not None and (spec.outcome_words is not None or spec.rank(require) is None):
        outcome = verdict_word(result)
        passes = bool(outcome) and spec.at_least(outcome, require)
        return None if passes else f"outcome {outcome or 'unknown'} is not --require {require}"
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
        if spec.rank(answer) is None:
            reasons.append(f"no verdict to compare with --require {require}")
        elif not spec.at_least(answer, require):
            reasons.append(f"verdict {answer} is below --require {require}")
    return "; ".join(reasons) or None

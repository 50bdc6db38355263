"""The CI gate: `--fail-under SCORE` and `--require WORD` turn a verdict into exit code 1 or 0, and
`--html PATH` leaves the HTML report beside the job's other artifacts.

`--require` takes each protocol's own word: PASS or CONDITIONAL for `evaluate`, RECOMMENDED for `decide`
(a contested decision fails), CONSENSUS for `challenge` (a tradeoff fails). `--fail-under` is for the
scored evaluation only.

The rule (`gate_failure`) is a pure function of the result's JSON, so every protocol's command and the
tests share it; the command modules only add the options and call `finish`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from moot.errors import UsageError

# how good each verdict is: --require X passes any verdict at least as good as X
VERDICT_RANK = {"FAIL": 0, "CONDITIONAL": 1, "PASS": 2}
# what --require accepts per protocol; for decide and challenge, the one outcome that passes
REQUIRE_WORDS = {"evaluate": ("PASS", "CONDITIONAL"), "decide": ("RECOMMENDED",), "challenge": ("CONSENSUS",)}
GATE_EXIT = 1


def check_gate_options(fail_under: float | None, require: str | None, protocol: str = "evaluate") -> str | None:
    """Validate the gate options before any call; returns `require` upper-cased."""
    if fail_under is not None and protocol != "evaluate":
        raise UsageError("--fail-under applies to scored evaluations (moot evaluate) only")
    if fail_under is not None and not 1.0 <= fail_under <= 5.0:
        raise UsageError(f"--fail-under must be a score between 1 and 5 (got {fail_under:g})")
    if require is None:
        return None
    word = require.strip().upper()
    allowed = REQUIRE_WORDS.get(protocol, ())
    if word not in allowed:
        raise UsageError(f"--require must be {' or '.join(allowed)} (got {require!r})")
    return word


def gate_failure(
    result: Mapping[str, Any], *, fail_under: float | None = None, require: str | None = None
) -> str | None:
    """Why the result falls short of the gate, or None when it passes (or no gate is set).

    `fail_under`: the panel's final score must be at least this. `require`: the verdict must be at least
    this good (PASS > CONDITIONAL > FAIL), or the outcome must be that word (RECOMMENDED, CONSENSUS). A
    result without a score or a verdict fails a gate that asks for one: a gate must never pass by accident.
    """
    if require is not None and require not in VERDICT_RANK:
        outcome = str(result.get("outcome") or "")
        return None if outcome == require else f"outcome {outcome or 'unknown'} is not --require {require}"
    summary = result.get("summary") if isinstance(result.get("summary"), Mapping) else {}
    reasons = []
    if fail_under is not None:
        score = summary.get("consensus_score") if summary else None
        if not isinstance(score, int | float) or isinstance(score, bool):
            reasons.append(f"no score to compare with --fail-under {fail_under:g}")
        elif score < fail_under:
            reasons.append(f"score {score:g} is under --fail-under {fail_under:g}")
    if require is not None:
        verdict = str(summary.get("final_verdict") or "") if summary else ""
        if verdict not in VERDICT_RANK:
            reasons.append(f"no verdict to compare with --require {require}")
        elif VERDICT_RANK[verdict] < VERDICT_RANK[require]:
            reasons.append(f"verdict {verdict} is below --require {require}")
    return "; ".join(reasons) or None


def finish(
    result: Mapping[str, Any],
    *,
    fail_under: float | None = None,
    require: str | None = None,
    html: str | None = None,
) -> int:
    """After the result is printed: write the HTML report if asked, then apply the gate. Returns the exit code."""
    if html:
        from moot.reports.html import write_html_report
        from moot.store import Store

        path = write_html_report(Store.open_default(), str(result["debate_id"]), html)
        sys.stderr.write(f"moot: HTML report written to {path}\n")
    why = gate_failure(result, fail_under=fail_under, require=require)
    if why is None:
        return 0
    from moot.cli.output import say

    say(f"moot: gate failed: {why}")
    return GATE_EXIT


GATE_FORMATS = ("text", "json", "yaml", "github")


def render(protocol: str, result: Any, fmt: str) -> str:
    """`render_result` plus `--format github` (Markdown for a job summary or a pull-request comment)."""
    from pydantic import BaseModel

    from moot.cli.output import render_result

    if fmt != "github":
        return render_result(protocol, result, fmt)
    from moot.reports.github import github_markdown

    data = result.model_dump(mode="json") if isinstance(result, BaseModel) else dict(result)
    return github_markdown({"protocol": protocol, **data})

"""`moot bench planted-findings|position|verbosity|bandwagon`: do grounded findings and the anti-herding rules
change what a panel concludes, and at what cost?

Each suite runs every item twice, with the rules on (moot's default) and off (the judges-file switches), on
the same panel and the same round cap. For each measure it reports the rate in each arm with its 95% Wilson
interval, the paired difference on minus off with Tango's interval ("inconclusive" when it spans 0), and
the calls and tokens per debate in each arm, so that the two arms are compared at their actual cost.
The debates themselves are `moot.bench.probes`'.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from moot.bench.probes import ProbeOutcome, ProbeRun, bandwagon, planted_findings, position, verbosity
from moot.bench.stats import paired_difference, wilson
from moot.errors import DebateAborted, UsageError
from moot.store import Store

Probe = Callable[[ProbeRun, int, bool], ProbeOutcome]


@dataclass(frozen=True)
class SuiteSpec:
    question: str
    probe: Probe
    measures: dict[str, str]  # key -> what a hit means, in words
    rules: str  # which rules the on and off arms differ by


SUITES: dict[str, SuiteSpec] = {
    "planted-findings": SuiteSpec(
        "an artifact with one real defect; one judge raises a CRITICAL finding: does it cap the verdict?",
        planted_findings,
        {"invented_caps": "an invented finding caps the verdict", "real_caps": "the real finding caps the verdict"},
        "grounding (and the anonymised, shuffled reports and the unsupported-change rule)",
    ),
    "position": SuiteSpec(
        "the same two options in both orders: does the panel's choice follow the order?",
        position,
        {"follows_order": "the choice follows the order"},
        "per-judge option order",
    ),
    "verbosity": SuiteSpec(
        "a short right answer against a padded wrong one: does the padded one win?",
        verbosity,
        {"padded_wins": "the padded wrong answer wins"},
        "per-judge option order",
    ),
    "bandwagon": SuiteSpec(
        "two planted judges push a wrong low score: does the judge under test flip?",
        bandwagon,
        {"flips": "the judge under test flips", "flip_unsupported": "its flip is listed as unsupported"},
        "anonymised, shuffled reports and the unsupported-change rule (and grounding)",
    ),
}
DEFAULT_ITEMS = 20


def hardening_suites(name: str) -> tuple[str, ...] | None:
    """The hardening suites `name` names (one, or several comma-separated), or None when it names none of them
    (an ordinary suite or a gold file). A list that mixes them with other suites is bad input."""
    names = [n.strip() for n in name.split(",") if n.strip()]
    known = [n for n in names if n in SUITES]
    if not known:
        return None
    if len(known) != len(names):
        other = next(n for n in names if n not in SUITES)
        raise UsageError(f"unknown hardening suite {other!r} (known: {', '.join(SUITES)}; one bench at a time)")
    return tuple(dict.fromkeys(known))


@dataclass
class Arm:
    """One arm's outcomes, item by item, and its spend."""

    hits: dict[str, list[bool]] = field(default_factory=dict)
    calls: int = 0
    tokens: int = 0
    debates: int = 0

    def add(self, outcome: ProbeOutcome) -> None:
        for key, hit in outcome.hits.items():
            self.hits.setdefault(key, []).append(hit)
        self.calls += outcome.calls
        self.tokens += outcome.tokens
        self.debates += outcome.debates

    def cost(self) -> dict[str, float]:
        n = max(1, self.debates)
        return {"debates": self.debates, "calls_per_debate": self.calls / n, "tokens_per_debate": self.tokens / n}


def _rate(hits: Sequence[bool]) -> dict[str, Any]:
    n, k = len(hits), sum(hits)
    return {"hits": k, "n": n, "rate": k / n if n else 0.0, "ci95": list(wilson(k, n)) if n else [0.0, 1.0]}


def _measure(key: str, what: str, on: Arm, off: Arm) -> dict[str, Any]:
    if not on.hits.get(key):  # no item finished in both arms
        return {"measure": key, "what": what, "on": None, "off": None, "difference": None}
    diff = paired_difference(on.hits[key], off.hits[key])
    low, high = diff.ci95
    return {
        "measure": key,
        "what": what,
        "on": _rate(on.hits[key]),
        "off": _rate(off.hits[key]),
        "difference": {
            "estimate": diff.estimate,
            "ci95": [low, high],
            "p_value": diff.p_value,
            "inconclusive": low <= 0.0 <= high,
            "test": diff.test,
        },
    }


def run_suite(name: str, items: int, run: ProbeRun, progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Every item of suite `name` with the rules on and off: the suite's figures."""
    spec = SUITES[name]
    on, off = Arm(), Arm()
    failures: list[str] = []
    for k in range(items):
        try:  # an item counts only when both arms finished: the difference is paired
            both = spec.probe(run, k, True), spec.probe(run, k, False)
        except DebateAborted as e:  # too few usable replies, say: the item is left out, and named
            failures.append(f"item {k + 1}: {e}")
        else:
            on.add(both[0])
            off.add(both[1])
        if progress is not None:
            progress(f"{name}: item {k + 1} of {items}")
    return {
        "suite": name,
        "question": spec.question,
        "rules": spec.rules,
        "items": items,
        "failed": failures,
        "measures": [_measure(key, what, on, off) for key, what in spec.measures.items()],
        "cost": {"on": on.cost(), "off": off.cost()},
    }


def run_hardening(
    suites: Sequence[str],
    *,
    items: int = DEFAULT_ITEMS,
    seed: int = 0,
    tested: dict[str, Any] | None = None,
    tested_label: str = "scripted",
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """The figures of each suite, its debates run in a temporary folder and store (nothing kept)."""
    if items < 1:
        raise UsageError(f"--limit must be at least 1 (got {items})")
    with tempfile.TemporaryDirectory(prefix="moot-bench-hardening-") as tmp:
        store = Store(Path(tmp) / "moot.db")
        try:
            run = ProbeRun(Path(tmp), store, tested, seed)
            figures = [run_suite(name, items, run, progress) for name in suites]
        finally:
            store.close()
    return {"kind": "hardening", "tested": tested_label, "items": items, "seed": seed, "suites": figures}


def _interval(r: dict[str, Any]) -> str:
    lo, hi = r["ci95"]
    return f"{r['hits']:>3}/{r['n']:<3} = {r['rate']:.2f} [{lo:.2f}, {hi:.2f}]"


def _difference(d: dict[str, Any]) -> str:
    lo, hi = d["ci95"]
    said = "inconclusive" if d["inconclusive"] else ("lower with the rules" if hi < 0 else "higher with the rules")
    return f"{d['estimate']:+.2f} [{lo:+.2f}, {hi:+.2f}] {said}"


def hardening_text(result: dict[str, Any]) -> str:
    """The figures for a person: per suite, each measure on and off with intervals, the difference, the cost."""
    who = "scripted (the figures check the mechanics)" if result["tested"] == "scripted" else result["tested"]
    lines = [f"moot bench: hardening on and off, {result['items']} item(s) per suite; judge under test: {who}", ""]
    for s in result["suites"]:
        lines += [f"{s['suite']}: {s['question']}", f"  rules compared: {s['rules']}"]
        lines += [f"  left out: {f}" for f in s["failed"]]
        for m in s["measures"]:
            if m["difference"] is None:
                lines.append(f"  {m['what']}: no item finished with the rules both on and off")
                continue
            lines += [
                f"  {m['what']}",
                f"    rules on   {_interval(m['on'])}",
                f"    rules off  {_interval(m['off'])}",
                f"    on - off   {_difference(m['difference'])}",
            ]
        on, off = s["cost"]["on"], s["cost"]["off"]
        lines.append(
            f"  cost per debate: on {on['calls_per_debate']:.1f} calls, {on['tokens_per_debate']:.0f} tokens; "
            f"off {off['calls_per_debate']:.1f} calls, {off['tokens_per_debate']:.0f} tokens "
            "(same panel, same round cap)"
        )
        lines.append("")
    lines.append("Rates: share of items with 95% Wilson intervals; on - off: paired, Tango's 95% interval.")
    return "\n".join(lines) + "\n"


def tested_judge(judges: str) -> tuple[dict[str, Any], str]:
    """The first judge of the user's judges file, for the seat under test, and its label; bad input raises."""
    from moot.protocol.panel import Panelist, judge_spec, load_panel

    if not Path(judges).is_file():
        raise UsageError(f"no such judges file: {judges}")
    _, listed = load_panel(judges)
    if not listed:
        raise UsageError(f"judges file {judges}: no judges listed (the first one goes in the seat under test)")
    first = listed[0]
    if isinstance(first, Panelist):  # a judges file holds none; a code-built judge has no endpoint to seat
        raise UsageError("the seat under test takes a judge from a judges file")
    spec = judge_spec(first, "judge 1")
    if spec.api_key:
        raise UsageError(
            f"judges file {judges}: judge 1 ({spec.label}) holds its api_key in the file; the hardening bench "
            "writes its panels to a temporary folder, so name the key with api_key_env instead"
        )
    return spec.model_dump(mode="json", exclude_unset=True), f"{spec.label} (judge 1 of {judges})"

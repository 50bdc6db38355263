"""The evidence table: when does debate pay? One Markdown table over bench runs, suite x strategy x panel,
with each strategy's accuracy and Wilson interval, its paired difference against `single` and against
`select` (Tango's interval, mid-p McNemar) and its cost per item and per correct answer. Pure functions.

Every figure is recomputed here from a result's `per_item` (the answers and, for pairs judged in both orders,
the swapped answers), so that the table says exactly what it computed:
- a strategy's correctness on an item is JudgeBench's when the item was judged both ways (right in both
  orders), else the given order's;
- `single` is the chosen judge on its held-out half only (picking the best judge on the items it is scored
  on flatters it), and every difference against `single` is on that half;
- "worse" / "better" need mid-p < 0.05; "equivalent" the TOST of `verdict` (the 90% interval inside the
  margin); anything else is "inconclusive": the data cannot decide, which is not "equal".

The rows of several runs live in one file: the table is followed by its rows as JSON in an HTML comment,
so writing a second suite or panel to the same file keeps the others' rows (a run of the same suite and
panel replaces its own).

Below the table, each panel's families (from the provider table: two seats of one vendor's models are one
family) and its effective number of independent judges (`moot.bench.independence`, Kish's, from how alike the
judges erred on these items): a panel of three judges of one family that err together is worth about one.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from moot.bench.figures import held_out
from moot.bench.stats import Table2x2, equivalent, mcnemar_midp, tango_paired, wilson
from moot.bench.verdict import ALPHA, MARGIN
from moot.judges.families import family_of
from moot.schemas.bench import BenchResult, SingleFigures
from moot.schemas.safe_text import inert_markdown

BASELINES = ("single", "select")
_ROWS = re.compile(r"<!-- moot-evidence-rows: (.*?) -->", re.DOTALL)


@dataclass(frozen=True)
class Against:
    """One strategy against a baseline on the items both are compared on."""

    n: int
    estimate: float
    ci95: tuple[float, float]
    p_value: float
    outcome: str  # better | worse | equivalent | inconclusive


@dataclass(frozen=True)
class EvidenceRow:
    suite: str
    panel: str
    strategy: str
    n: int
    right: int
    ci95: tuple[float, float]
    cost_per_item: float | None
    calls_per_item: float
    versus: dict[str, Against | None]
    # the panel's (the same on each of its rows; defaults: rows written before they were recorded)
    families: tuple[str, ...] = ()
    judges: int = 0
    effective: float | None = None  # Kish's effective number of judges; None: not measurable on these items
    effective_ci95: tuple[float, float] | None = None

    @property
    def accuracy(self) -> float:
        return self.right / self.n if self.n else 0.0

    def per_correct(self, cost: float | None) -> float | None:
        """Spend per correct answer: per-item spend over the accuracy (None when nothing was right)."""
        return None if cost is None or self.right == 0 else cost / self.accuracy


def correctness(result: BenchResult, strategy: str) -> list[bool]:
    """Each item right or wrong for `strategy`: in both orders when the item was judged both ways."""
    out = []
    for p in result.per_item:
        given = p.answers.get(strategy)
        # the swapped answers are already in the item's own labels (`PerItem.swapped`)
        both = p.swapped is None or p.swapped.get(strategy) == p.gold
        out.append(given is not None and given == p.gold and both)
    return out


def _compared(result: BenchResult, strategy: str) -> list[int]:
    """The items a strategy is read on: `single` (the chosen judge) on its held-out half, the rest on all."""
    n = len(result.per_item)
    return held_out(n, result.seed)[1] if strategy == "single" else list(range(n))


def versus(first: Sequence[bool], second: Sequence[bool], margin: float = MARGIN) -> Against:
    """first - second: Tango's 95% interval, mid-p McNemar, and what the data can say about it."""
    t = Table2x2.of(first, second)
    estimate = (t.first_only - t.second_only) / t.n
    p = mcnemar_midp(t.first_only, t.second_only)
    same, _ = equivalent(first, second, margin)
    outcome = "equivalent" if same else ("better" if estimate > 0 else "worse") if p < ALPHA else "inconclusive"
    return Against(t.n, estimate, tango_paired(t), p, outcome)


def suite_name(suite: str) -> str:
    """A built-in suite's name, or a gold file's name without its folders."""
    return suite.replace("\\", "/").rsplit("/", 1)[-1]


def panel_name(result: BenchResult) -> str:
    """The panel as its judges' models, counted (`3x judge-a`, or `judge-a + judge-b`)."""
    single = result.strategies.get("single")
    models = [f.model for f in single.judges.values()] if isinstance(single, SingleFigures) else []
    counts = Counter(models)
    return " + ".join(f"{c}x {m}" if c > 1 else m for m, c in counts.items()) or "panel"


def panel_families(result: BenchResult) -> tuple[str, ...]:
    """The distinct families of the panel's models, in seat order (`gpt-5-mini` and `gpt-5.2` are one)."""
    single = result.strategies.get("single")
    models = [f.model for f in single.judges.values()] if isinstance(single, SingleFigures) else []
    return tuple(dict.fromkeys(family for m in models if (family := family_of(m))))


def evidence_rows(result: BenchResult, panel: str | None = None, margin: float | None = None) -> list[EvidenceRow]:
    """One row per strategy of `result`, with its differences against each baseline that ran."""
    panel = panel or panel_name(result)
    e = result.effective_judges
    facts: dict[str, Any] = {
        "families": panel_families(result),
        "judges": e.judges if e is not None else 0,
        "effective": e.estimate if e is not None else None,
        "effective_ci95": e.ci95 if e is not None and e.estimate is not None else None,
    }
    margin = result.margin if margin is None else margin
    right = {name: correctness(result, name) for name in result.strategies}
    rows = []
    for name, figures in result.strategies.items():
        mine = _compared(result, name)
        wins = sum(right[name][i] for i in mine)
        against: dict[str, Against | None] = {}
        for base in BASELINES:
            if base not in result.strategies or base == name:
                continue
            both = sorted(set(mine) & set(_compared(result, base)))
            against[base] = versus([right[name][i] for i in both], [right[base][i] for i in both], margin)
        rows.append(
            EvidenceRow(
                suite_name(result.suite),
                panel,
                name,
                len(mine),
                wins,
                wilson(wins, len(mine)),
                figures.cost_per_item,
                figures.calls_per_item,
                against,
                **facts,
            )
        )
    return rows


def _pct(share: float) -> str:
    return f"{share * 100:.1f}%"


def _pts(share: float) -> str:
    return f"{share * 100:+.1f}"


def _cell(v: Against | None) -> str:
    if v is None:
        return "(itself)"
    low, high = v.ci95
    return f"{_pts(v.estimate)} [{_pts(low)}, {_pts(high)}], p = {v.p_value:.2g}, n = {v.n}: {v.outcome}"


def _spend(usd: float | None, calls: float | None) -> str:
    """USD when every call's price is known, else calls; "none right" when there is nothing to divide by."""
    if calls is None:
        return "none right"
    return f"${usd:.4f} ({calls:.2f} calls)" if usd is not None else f"{calls:.2f} calls (unpriced)"


def _row_cells(row: EvidenceRow) -> list[str]:
    return [
        inert_markdown(row.suite),
        inert_markdown(row.panel),
        row.strategy,
        f"{_pct(row.accuracy)} ({row.right}/{row.n})",
        f"[{_pct(row.ci95[0])}, {_pct(row.ci95[1])}]",
        *[
            "(itself)" if b == row.strategy else _cell(row.versus[b]) if b in row.versus else "(not run)"
            for b in BASELINES
        ],
        _spend(row.cost_per_item, row.calls_per_item),
        _spend(row.per_correct(row.cost_per_item), row.per_correct(row.calls_per_item)),
    ]


HEADER = (
    "suite",
    "panel",
    "strategy",
    "accuracy",
    "95% CI (Wilson)",
    "vs single: diff [Tango 95% CI], mid-p",
    "vs select: diff [Tango 95% CI], mid-p",
    "cost per item",
    "cost per correct answer",
)


def where_debate_loses(rows: Sequence[EvidenceRow]) -> list[str]:
    """One sentence per debate row behind a baseline: lost (mid-p < 0.05), or behind but inconclusive."""
    out = []
    for row in rows:
        if row.strategy != "debate":
            continue
        for base, v in row.versus.items():
            if v is None or v.estimate >= 0:
                continue
            where = f"{inert_markdown(row.suite)}, panel {inert_markdown(row.panel)}"
            if v.outcome == "worse":
                out.append(f"- Debate loses to {base} on {where}: {_cell(v)}.")
            elif v.outcome == "inconclusive":
                out.append(f"- Debate is behind {base} on {where}, but the data cannot decide: {_cell(v)}.")
    return out or ["- Debate loses nowhere in these rows (no debate row is behind single or select)."]


def panel_lines(rows: Sequence[EvidenceRow]) -> list[str]:
    """One line per suite and panel: its families, and how many independent judges it is worth."""
    out = []
    for row in {(r.suite, r.panel): r for r in rows}.values():
        families = len(row.families)
        named = f"{families} {'family' if families == 1 else 'families'} ({', '.join(row.families)})"
        where = f"- {inert_markdown(row.suite)}, panel {inert_markdown(row.panel)}"
        if not row.judges:
            out.append(f"{where}: {inert_markdown(named) if families else 'families not recorded'}.")
            continue
        if row.effective is None:
            worth = "not measurable on these items (no two judges vary in correctness)"
        else:
            ci = f" [{row.effective_ci95[0]:.2f}, {row.effective_ci95[1]:.2f}]" if row.effective_ci95 else ""
            worth = f"{row.effective:.2f}{ci} of {row.judges}"
        out.append(f"{where}: {row.judges} judges of {inert_markdown(named)}; effective judges (Kish): {worth}.")
    return out


def render(rows: Sequence[EvidenceRow]) -> str:
    """The table, where debate loses, and the rows as data (for the next run writing to the same file)."""
    lines = [
        "# When does debate pay?",
        "",
        "Accuracy is right in both orders where items were judged both ways. `single` is the chosen judge on "
        "its held-out half; differences are the row's strategy minus the baseline on the items both are "
        'read on; "inconclusive" means the data cannot decide (not that the two are equal).',
        "",
        "| " + " | ".join(HEADER) + " |",
        "|" + "---|" * len(HEADER),
    ]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in _row_cells(r)) + " |" for r in rows]
    lines += ["", "## Where debate loses", "", *where_debate_loses(rows), ""]
    lines += ["## The panels", "", *panel_lines(rows), ""]
    data = json.dumps([asdict(r) for r in rows], sort_keys=True).replace("--", "-\\u002d")
    lines.append(f"<!-- moot-evidence-rows: {data} -->")
    return "\n".join(lines) + "\n"


def _row_of(data: Mapping[str, Any]) -> EvidenceRow:
    raw = dict(data)
    against = raw.pop("versus")
    vs = {k: None if v is None else Against(**{**v, "ci95": tuple(v["ci95"])}) for k, v in against.items()}
    effective_ci = raw.get("effective_ci95")
    raw.update(ci95=tuple(raw["ci95"]), versus=vs, families=tuple(raw.get("families") or ()))
    raw["effective_ci95"] = tuple(effective_ci) if effective_ci else None
    return EvidenceRow(**raw)


def merge(existing: str, rows: Sequence[EvidenceRow]) -> list[EvidenceRow]:
    """The rows a file already holds (written by this module), with those of `rows`' suite and panel replaced."""
    found = _ROWS.search(existing)
    old = [_row_of(d) for d in json.loads(found.group(1))] if found else []
    mine = {(r.suite, r.panel) for r in rows}
    return [r for r in old if (r.suite, r.panel) not in mine] + list(rows)


def check_report_path(path: str) -> None:
    """A file that is there already must be an evidence table this module wrote (its rows are kept);
    anything else is not overwritten (bad input, before any call)."""
    from pathlib import Path

    from moot.errors import UsageError

    target = Path(path)
    if target.is_dir() or (target.exists() and not _ROWS.search(target.read_text(encoding="utf-8", errors="replace"))):
        raise UsageError(f"--report {path}: not an evidence table written by moot bench; choose another path")


def write_report(path: str, result: BenchResult) -> None:
    """The table over `result`'s rows and those the file already holds (other suites and panels)."""
    from pathlib import Path

    target = Path(path)
    existing = target.read_text(encoding="utf-8") if target.is_file() else ""
    target.write_text(render(merge(existing, evidence_rows(result))), encoding="utf-8")


# the names the docs send users to (tests/test_public_surface.py pins them)
__all__ = ["evidence_rows", "render", "write_report"]

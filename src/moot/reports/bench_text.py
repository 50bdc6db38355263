"""`moot bench`'s text output: the figures as tables, then the verdict sentence; and its dry run.

Built once as a `TextReport`, so that the terminal (rich tables) and piped output (Markdown tables) say
the same. Judge names come from the user's judges file and are printed as text, never interpreted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from moot.render.terminal import Paragraph, TextReport, TextSection, TextTable
from moot.schemas.bench import (
    AnyFigures,
    BenchResult,
    DebateFigures,
    JudgeFigures,
    SingleFigures,
    StrategyFigures,
    VoteAtEqualFigures,
)


def pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def interval(ci: tuple[float, float]) -> str:
    return f"{ci[0]:.1%} to {ci[1]:.1%}"


def kappa(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def usd(value: float | None) -> str:
    return "unknown" if value is None else f"${value:.4f}"


def strategy_label(name: str, f: AnyFigures) -> str:
    if isinstance(f, SingleFigures):
        return "single (mean judge)"
    if isinstance(f, VoteAtEqualFigures):
        return f"vote@equal (k = {f.samples})"
    return name


def strategy_rows(result: BenchResult) -> list[list[str]]:
    return [
        [
            strategy_label(name, f),
            pct(f.accuracy),
            interval(f.ci95),
            pct(f.accuracy_given_order),
            kappa(f.kappa),
            str(f.ties),
            f"{f.calls_per_item:.2f}",
            f"{f.tokens_per_item:,.0f}",
            usd(f.cost_per_item),
            pct(f.swap_consistency),
        ]
        for name, f in result.strategies.items()
    ]


def points(value: float) -> str:
    return f"{value * 100:+.1f}"


DIFFERENCE_COLUMNS = ["Difference", "Points", "95% interval (points)", "p (mid-p McNemar)", "Items"]


def difference_rows(result: BenchResult) -> list[list[str]]:
    """Each paired difference of the contract (first minus second, in accuracy points)."""
    return [
        [name, points(d.estimate), f"{points(d.ci95[0])} to {points(d.ci95[1])}", f"{d.p_value:.3g}", str(d.n)]
        for name, d in result.differences.items()
    ]


POSITION_COLUMNS = ["Who", "Picked the first shown", "95% interval", "Right when shown first", "Right when second"]


def named_figures(result: BenchResult) -> list[tuple[str, StrategyFigures | JudgeFigures]]:
    """Every strategy by name, `single` as each of its judges."""
    out: list[tuple[str, StrategyFigures | JudgeFigures]] = []
    for name, f in result.strategies.items():
        if isinstance(f, SingleFigures):
            out += [(f"judge {seat}", j) for seat, j in f.judges.items()]
        else:
            out.append((name, f))
    return out


def position_rows(result: BenchResult) -> list[list[str]]:
    """Position bias with its direction, for every judge and strategy that has it."""
    rows = []
    for name, f in named_figures(result):
        p = f.position
        if p is None:
            continue
        ci = interval(p.first_ci95) if p.first_ci95 is not None else "-"
        rows.append([name, pct(p.first_share), ci, pct(p.accuracy_right_first), pct(p.accuracy_right_second)])
    return rows


CALIBRATION_COLUMNS = ["Who", "HIGH", "MEDIUM", "LOW", "ECE"]


def calibration_rows(result: BenchResult) -> list[list[str]]:
    """Accuracy at each stated confidence (n answers), and the expected calibration error."""
    rows = []
    for name, f in named_figures(result):
        if f.calibration is None:
            continue
        cells = [
            f"{pct(b.accuracy)} (n = {b.n})" if b.n else "-"
            for b in (f.calibration.get(level) for level in LEVELS)
            if b is not None
        ]
        rows.append([name, *cells, "-" if f.ece is None else f"{f.ece:.3f}"])
    return rows


LEVELS = ("HIGH", "MEDIUM", "LOW")


STRATEGY_COLUMNS = [
    "Strategy",
    "Accuracy",
    "95% interval",
    "Given order",
    "κ",
    "Ties",
    "Calls/item",
    "Tokens/item",
    "USD/item",
    "Same both orders",
]
JUDGE_COLUMNS = ["Judge", "Model", "Accuracy", "95% interval", "Given order", "κ", "Same both orders"]


def judge_rows(single: SingleFigures, *, strong: bool = True) -> list[list[str]]:
    """One row per judge; the best one marked (in bold where the face has bold)."""
    rows = []
    for seat, f in single.judges.items():
        name = (f"**{seat}** (best)" if strong else f"{seat} (best)") if seat == single.best else seat
        rows.append(
            [
                name,
                f.model,
                pct(f.accuracy),
                interval(f.ci95),
                pct(f.accuracy_given_order),
                kappa(f.kappa),
                pct(f.swap_consistency),
            ]
        )
    return rows


def flip_rows(debate: DebateFigures) -> list[list[str]]:
    rows = [
        ["Decided in round 1", pct(debate.round1_share)],
        ["Helpful flips (round-1 majority wrong, final right)", str(debate.helpful_flips)],
        ["Harmful flips (round-1 majority right, final wrong)", str(debate.harmful_flips)],
        ["Collapse (a right round-1 answer lost in the final verdict)", str(debate.collapse)],
        ["  of which talked out (a right judge switched to wrong)", str(debate.talked_out)],
        ["  of which not rescued (right judges kept it, outvoted)", str(debate.not_rescued)],
        ["Verdict moved with no judge moving (not a flip)", str(debate.aggregator_changes)],
    ]
    t = debate.round1_vs_final
    if t:
        rows.append(
            [
                "Round 1 against final (right/wrong)",
                f"right→right {t.get('right_to_right', 0)}, right→wrong {t.get('right_to_wrong', 0)}, "
                f"wrong→right {t.get('wrong_to_right', 0)}, wrong→wrong {t.get('wrong_to_wrong', 0)}",
            ]
        )
    if debate.mcnemar is not None:
        m = debate.mcnemar
        rows.append(
            [
                f"Debate against {m.versus} (McNemar, {m.test})",
                f"p = {m.p_value:.3g}; right only by debate {m.debate_only}, only by {m.versus} {m.versus_only}",
            ]
        )
    return rows


def source_table(result: BenchResult) -> TextTable | None:
    if not result.by_source:
        return None
    names = list(result.strategies)
    rows = [[source, str(f.items), *(pct(f.accuracy.get(n)) for n in names)] for source, f in result.by_source.items()]
    return TextTable(["Source", "Items", *names], rows, title="Accuracy per source")


def panel_facts(result: BenchResult) -> list[str]:
    """The panel's worth in independent judges (Kish), with its interval, as one line."""
    e = result.effective_judges
    if e is None:
        return []
    if e.estimate is None:
        return [f"effective judges: not measurable (no two of the {e.judges} judges vary in correctness)"]
    ci = f" (95% CI {e.ci95[0]:.2f} to {e.ci95[1]:.2f})" if e.ci95 else ""
    rho = f"{e.correlation:.2f}" if e.correlation is not None else "-"
    return [f"effective judges: {e.estimate:.2f} of {e.judges}{ci}; mean error correlation {rho} (Kish)"]


def aggregate_rows(result: BenchResult) -> list[list[str]]:
    """Each score aggregate's accuracy over round 1 and the final round, side by side."""
    return [
        [
            name.replace("_", " "),
            pct(f.round1_accuracy),
            interval(f.round1_ci95),
            pct(f.final_accuracy),
            interval(f.final_ci95),
        ]
        for name, f in result.aggregates.items()
    ]


def bench_report(result: BenchResult) -> TextReport:
    """The figures as tables, then the verdict sentence."""
    facts = [f"{result.items} items ({result.kind}), seed {result.seed}"]
    if result.both_orders:
        facts.append("accuracy: JudgeBench's, right in both orders (the given order alone under 'Given order')")
    if result.swap_consistency is not None:
        facts.append(
            f"position consistency (the panel's verdict the same in both orders): {pct(result.swap_consistency)}"
        )
    facts += panel_facts(result)
    blocks: list[Any] = [TextTable(STRATEGY_COLUMNS, strategy_rows(result), title="Strategies")]
    if result.aggregates:
        pass_at = next(iter(result.aggregates.values())).pass_at
        columns = ["Aggregate", "Round 1", "Round 1 95% CI", "Final", "Final 95% CI"]
        blocks.append(TextTable(columns, aggregate_rows(result), title=f"Score aggregates (pass at {pass_at:g})"))
    single = result.strategies.get("single")
    if isinstance(single, SingleFigures):
        blocks.append(TextTable(JUDGE_COLUMNS, judge_rows(single), title="Each judge alone"))
    debate = result.strategies.get("debate")
    if isinstance(debate, DebateFigures):
        blocks.append(TextTable(["What the debate changed", ""], flip_rows(debate), title="Debate"))
    if result.differences:
        blocks.append(
            TextTable(DIFFERENCE_COLUMNS, difference_rows(result), title="Paired differences (first - second)")
        )
    for columns, rows, title in (
        (POSITION_COLUMNS, position_rows(result), "Position bias (both orders)"),
        (CALIBRATION_COLUMNS, calibration_rows(result), "Calibration (accuracy at each stated confidence)"),
    ):
        if rows:
            blocks.append(TextTable(columns, rows, title=title))
    table = source_table(result)
    if table is not None:
        blocks.append(table)
    if result.notes:
        blocks.append(TextSection("Notes", list(result.notes)))
    blocks.append(Paragraph("Verdict:", result.verdict))
    return TextReport(f"moot bench: {result.suite}", "plain", facts, blocks)


def estimate_text(data: Mapping[str, Any]) -> str:
    """The dry run for a person: what would run, the range of calls and dollars, and what it assumes."""
    calls, typical = data["calls"], data["typical_usd"]
    orders = "in both orders" if data["swap"] else "in one order"
    lines = [
        f"moot bench {data['suite']} (dry run, nothing sent): {data['items']} items, {data['protocol']} {orders}; "
        f"strategies {', '.join(data['strategies'])}",
        f"  calls: {calls['low']:,} if every debate ends in round 1, up to {calls['high']:,} if every one runs "
        f"{data['rounds_allowed']} round(s)",
        f"  typical cost: ${typical['low']:.2f} to ${typical['high']:.2f}; worst case ${data['worst_usd']:.2f} "
        "(every reply at its output bound, one clarification each: what --max-cost is checked against)",
    ]
    if "vote@equal" in data["strategies"]:
        lines.append(
            f"  vote@equal: up to {data['debates']['samples_at_most']:,} extra round-1-only debates (included above)"
        )
    if "select" in data["strategies"]:
        lines.append(
            f"  select: up to {data.get('select_picks_at_most', 0):,} picks by the first judge, one per item and "
            "order where round 1 disagrees (included above)"
        )
    priced = data.get("priced") or {}
    if priced.get("estimated"):
        lines.append(
            f"  dollars estimated from {priced['items']} of the {priced['of']:,} items (the middle one of each "
            "stratum by text length, counted for its stratum); calls are exact"
        )
    if data["unpriced"]:
        lines.append(f"  no price known for {', '.join(data['unpriced'])}: counted as $0 (add it under 'pricing:')")
    lines += [f"  warning: {w}" for w in data.get("warnings", [])]
    lines.append(f"  the run lives in {data['run_folder']}: the same command without --dry-run starts or continues it")
    return "\n".join(lines) + "\n"

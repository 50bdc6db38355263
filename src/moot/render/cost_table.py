"""A debate's spend as the seed's cost-analysis table: per judge, per round and in total, with tokens
(cached share included) and dollars. A pure function of `Spend`, for text output and `moot show`.

Judges of a round run at once, so the seconds of their calls add up to more than the debate took: the
table's seconds are call time summed over calls, and the wall time is said beside it under its own name.
"""

from __future__ import annotations

from moot.render.terminal import TextTable, table_lines
from moot.schemas.spend import Spend, SpendLine

# "Seconds" is call time summed over calls; the note under the table says so, beside the wall time.
COLUMNS = ["Spend", "Calls", "Input tokens", "Cached", "Output tokens", "Seconds", "Cost"]


def dollars(cost: float, unknown: bool = False) -> str:
    """A cost as text and HTML both show it: a price that is unknown is said so ("unknown", or "$x +
    unknown" beside what the priced calls cost), never summed as if those calls were free."""
    if unknown:
        return f"${cost:.4f} + unknown" if cost else "unknown"
    return f"${cost:.4f}"


def usd(line: SpendLine, unpriced: bool = False) -> str:
    return dollars(line.cost_usd, unpriced)


def cached_cell(cached_tokens: int, input_tokens: int, hits: int, calls: int) -> str:
    """The cached share of a line's input, and how many of its calls the vendor's cache served ("45%, 2/3
    calls"); a line no cache served says its share alone ("0%"), as before caching was counted."""
    if not input_tokens:
        return "-"
    share = f"{100 * cached_tokens / input_tokens:.0f}%"
    return f"{share}, {hits}/{calls} calls" if hits else share


def _row(name: str, line: SpendLine, unpriced: bool = False) -> list[str]:
    cached = cached_cell(line.cached_tokens, line.input_tokens, line.cache_hits, line.calls)
    return [
        name,
        str(line.calls),
        f"{line.input_tokens:,}",
        cached,
        f"{line.output_tokens:,}",
        f"{line.seconds:.1f}",
        usd(line, unpriced),
    ]


def times(spend: Spend) -> str:
    """Wall time and summed call time, each under a name that says which it is."""
    return f"wall {spend.wall_seconds:.1f} s, call time (sum over calls) {spend.seconds:.1f} s"


def cost_section(spend: Spend, breakdown: str) -> list[str]:
    """The Markdown files' "## Cost" section: calls with the protocol's own breakdown, tokens, dollars, time."""
    tokens = f"{spend.input_tokens} input / {spend.output_tokens} output tokens"
    return ["## Cost", "", f"{spend.calls} calls ({breakdown}), {tokens}, ${spend.cost_usd:.4f}, {times(spend)}", ""]


def spend_line(spend: Spend) -> str:
    """The whole spend in one line, for results that print no table."""
    return (
        f"Spent: {spend.calls} calls ({spend.clarifications} clarifications, {spend.retries} retries), "
        f"{spend.input_tokens:,}+{spend.output_tokens:,} tokens, {usd(spend, bool(spend.unpriced_models))}; "
        f"{times(spend)}"
    )


def cost_grid(spend: Spend) -> TextTable:
    unpriced = bool(spend.unpriced_models)
    rows = [_row(k.replace("_", " "), v) for k, v in spend.per_round.items()]
    rows += [_row(k, v) for k, v in spend.per_judge.items()]
    rows.append(_row("**Total**", spend, unpriced))
    note = (
        f"{times(spend)} (calls run side by side, so their sum exceeds the wall time); "
        f"{spend.clarifications} clarifications, {spend.retries} retries"
    )
    if unpriced:
        note += f"; no price known for {', '.join(spend.unpriced_models)} (add it under 'pricing:')"
    return TextTable(COLUMNS, rows, note=note)


def cost_table(spend: Spend) -> list[str]:
    """Markdown table lines (it reads as plain text too)."""
    return table_lines(cost_grid(spend))


def with_spend(table: TextTable, spend: Spend) -> TextTable:
    """A judges table (seat id first, status last) with each seat's tokens and cost before its status and
    the debate's totals under it: at a terminal this takes the place of the seed's cost table."""

    def cells(seat: str) -> list[str]:
        line = spend.per_judge.get(seat)
        return [f"{line.input_tokens:,}/{line.output_tokens:,}", usd(line)] if line else ["", ""]

    rows = [[*r[:-1], *cells(r[0]), r[-1]] for r in table.rows]
    columns = [*(table.terminal_columns or table.columns)[:-1], "Tokens in/out", "Cost", table.columns[-1]]
    total = (
        f"{spend.calls} calls, {spend.input_tokens:,}/{spend.output_tokens:,} tokens, "
        f"{usd(spend, bool(spend.unpriced_models))}; {times(spend)}"
    )
    return TextTable(columns, rows, title=table.title, note="\n".join(n for n in (table.note, total) if n))

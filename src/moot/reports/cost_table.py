"""A debate's spend as the seed's cost-analysis table: per judge, per round and in total, with tokens
(cached share included) and dollars. A pure function of `Spend`, for text output and `moot show`."""

from __future__ import annotations

from moot.schemas.spend import Spend, SpendLine


def _usd(line: SpendLine, unpriced: bool) -> str:
    return f"${line.cost_usd:.4f}" + ("+?" if unpriced else "")


def _row(name: str, line: SpendLine, unpriced: bool = False) -> str:
    cached = f"{100 * line.cached_tokens / line.input_tokens:.0f}%" if line.input_tokens else "-"
    return (
        f"| {name} | {line.calls} | {line.input_tokens:,} | {cached} | {line.output_tokens:,} "
        f"| {line.seconds:.1f} | {_usd(line, unpriced)} |"
    )


def cost_table(spend: Spend) -> list[str]:
    """Markdown table lines (it reads as plain text too)."""
    unpriced = bool(spend.unpriced_models)
    out = [
        "| Spend | Calls | Input tokens | Cached | Output tokens | Seconds | Cost |",
        "|-------|-------|--------------|--------|---------------|---------|------|",
    ]
    out += [_row(k.replace("_", " "), v) for k, v in spend.per_round.items()]
    out += [_row(k, v) for k, v in spend.per_judge.items()]
    out.append(_row("**Total**", spend, unpriced))
    if unpriced:
        out.append(f"(no price known for {', '.join(spend.unpriced_models)}: add it under 'pricing:')")
    return out

"""What a debate spent, as the HTML report's cost sections: in total, per judge and per round.

The numbers come from the result's `spend`; a debate that never wrote one (it failed, or is still
running) is tallied here from its call records, since what it spent is exactly what its user wants to
know then, its round 0 named as its protocol names it (`DebateRecord.final_name`). A call whose
price is unknown makes its line's cost "unknown" (or "$x + unknown"), never a sum that would claim the
call was free.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from moot.render.cost_table import cached_cell, dollars
from moot.render.html_common import Section, Table, as_dict, num
from moot.store.db import CallRecord

# "Cached" last: the columns before it keep the places they had before caching was counted
COLUMNS = ["Calls", "Input tokens", "Output tokens", "Cost", "Seconds", "Cached"]


def usd(cost: Any, unknown: bool) -> str:
    return dollars(float(cost or 0), unknown)


def _round_key(c: CallRecord, final: str) -> str:
    return f"round_{c.round}" if c.round else final


def _unpriced(c: CallRecord) -> bool:
    return c.cost_usd is None and c.status == "ok"


def _natural(name: str) -> tuple[str, int]:
    """'judge-10' after 'judge-9', and names without a number ('synthesis') after those with one."""
    head = name.rstrip("0123456789")
    tail = name[len(head) :]
    return (head, int(tail)) if tail else ("~" + name, 0)


def _line(calls: Sequence[CallRecord]) -> dict[str, Any]:
    return {
        "calls": len(calls),
        "input_tokens": sum(c.input_tokens for c in calls),
        "cached_tokens": sum(c.cached_tokens for c in calls),
        "cache_hits": sum(1 for c in calls if c.cached_tokens > 0),
        "output_tokens": sum(c.output_tokens for c in calls),
        "cost_usd": sum(c.cost_usd or 0.0 for c in calls),
        "seconds": sum(c.latency_s for c in calls),
    }


def _grouped(calls: Sequence[CallRecord], key: Callable[[CallRecord], str]) -> dict[str, dict[str, Any]]:
    groups: dict[str, list[CallRecord]] = {}
    for c in calls:
        groups.setdefault(key(c), []).append(c)
    return {name: _line(group) for name, group in sorted(groups.items(), key=lambda kv: _natural(kv[0]))}


def spend_of_calls(calls: Sequence[CallRecord], final: str) -> dict[str, Any]:
    """The shape of a result's `spend`, from the calls alone (no wall time: only the run knew it); `final`
    names round 0."""
    unpriced = dict.fromkeys(c.answered_by or c.model for c in calls if _unpriced(c))
    return {
        **_line(calls),
        "unpriced_models": list(unpriced),
        "per_judge": _grouped(calls, lambda c: c.seat),
        "per_round": _grouped(calls, lambda c: _round_key(c, final)),
    }


def _spend_table(lines: Mapping[str, Any], first: str, unknown: set[str]) -> Table:
    rows = []
    for name, line in lines.items():
        d = as_dict(line)
        rows.append(
            [
                name.replace("_", " ") if first == "Round" else name,
                num(d.get("calls", 0)),
                num(d.get("input_tokens", 0)),
                num(d.get("output_tokens", 0)),
                usd(d.get("cost_usd"), name in unknown),
                num(d.get("seconds", 0), 1),
                _cached(d),
            ]
        )
    return Table([first, *COLUMNS], rows)


def _cached(line: Mapping[str, Any]) -> str:
    """The cached share and the calls a cache served (a result stored before hits were counted: its share)."""
    return cached_cell(
        int(line.get("cached_tokens") or 0),
        int(line.get("input_tokens") or 0),
        int(line.get("cache_hits") or 0),
        int(line.get("calls") or 0),
    )


def _total(spend: Mapping[str, Any]) -> str:
    unpriced = [str(m) for m in spend.get("unpriced_models") or []]
    return (
        f"{num(spend.get('calls', 0))} calls, {num(spend.get('input_tokens', 0))} input / "
        f"{num(spend.get('output_tokens', 0))} output tokens, {usd(spend.get('cost_usd'), bool(unpriced))}"
        + (f", {num(spend.get('wall_seconds'), 1)}s" if spend.get("wall_seconds") else "")
        + (f"; no price known for {', '.join(unpriced)}" if unpriced else "")
    )


def cost_sections(result: Mapping[str, Any], calls: Sequence[CallRecord], final: str) -> list[Section]:
    """Cost per judge and per round: from the result's `spend`, else from the call records, round 0 named
    `final` (as the debate's protocol names it)."""
    spend = as_dict(result.get("spend"))
    if not spend.get("per_judge") and calls:
        spend = spend_of_calls(calls, final)
    if not spend:
        return []
    unpriced = [c for c in calls if _unpriced(c)]
    out = [Section("Cost", text=_total(spend))]
    if spend.get("per_judge"):
        table = _spend_table(as_dict(spend["per_judge"]), "Judge", {c.seat for c in unpriced})
        out.append(Section("Cost per judge", table=table))
    if spend.get("per_round"):
        table = _spend_table(as_dict(spend["per_round"]), "Round", {_round_key(c, final) for c in unpriced})
        out.append(Section("Cost per round", table=table))
    return out

"""A dry run, rendered: every planned call and the cost table of 1, 2 and all rounds (nothing was sent)."""

from __future__ import annotations

from typing import Any

from moot.render.serialize import to_json, to_yaml


def _usd(v: float | None) -> str:
    return "?" if v is None else f"${v:.4f}" if v < 0.1 else f"${v:.2f}"


def _where(call: dict[str, Any]) -> str:
    where = f"round {call['round']}" if call["round"] else "final"
    if not call["round"] and call.get("seat") == "rubric":  # `--criteria auto`: the rubric, before round 1
        return "rubric"
    if call.get("phase"):
        return f"{where} {call['phase']}"
    return where if call["round"] else "synthesis"


def dry_run_text(data: dict[str, Any]) -> str:
    out = [
        f"Dry run: nothing was sent. {len(data['judges'])} judges, up to {data['rounds_allowed']} round(s), "
        f"{data.get('input_name', 'artifact')} ~{data['artifact_tokens']:,} tokens.",
    ]
    out += [f"Skipped, not usable here: {s}" for s in data.get("skipped", [])]
    out += list(data.get("panel_warnings", []))
    out += [f"Warning: {w}" for w in data.get("warnings", [])]
    if data.get("warnings"):
        out.append("A dry run needs none of these; a real run does ('moot doctor' checks every judge).")
    sends = [f"  {j['seat']} ({j['model']}): {'; '.join(j['sends'])}" for j in data["judges"] if j.get("sends")]
    if sends:
        out += ["", "Keys a real run sends (variable to host):", *sends]
    out += ["", "Calls per round (input tokens, typical cost / worst case, output bound):"]
    wheres = [_where(c) for c in data["calls"]]
    # each column as wide as its longest entry, so that a long seat or model name keeps the rest in line
    w_where, w_seat, w_model = (
        max([least, *map(len, values)])
        for least, values in (
            (22, wheres),
            (13, [str(c["seat"]) for c in data["calls"]]),
            (30, [str(c["model"]) for c in data["calls"]]),
        )
    )
    for where, c in zip(wheres, data["calls"], strict=True):
        out.append(
            f"  {where:{w_where}} {c['seat']:{w_seat}} {c['model']:{w_model}} ~{c['input_tokens']:>7,} tok  "
            f"{_usd(c['typical_usd']):>8} / {_usd(c['worst_usd']):<8}{_bound(c.get('max_tokens'))}"
        )
    out += _cache_lines(data.get("prompt_cache"))
    out += [
        "",
        "| Scenario | Rounds | Judge Calls | Estimated Cost | Worst Case |",
        "|----------|--------|-------------|----------------|------------|",
    ]
    for s in data["scenarios"]:
        out.append(
            f"| {s['label']} | {s['rounds']} | {s['calls']}{_clarifications(s['max_clarifications'])} "
            f"| ~{_usd(s['typical_usd'])} | {_usd(s['worst_usd'])} |"
        )
    unpriced = sorted({m for s in data["scenarios"] for m in s["unpriced"]})
    if unpriced:
        out += ["", f"No price known for {', '.join(unpriced)}: add it under 'pricing:' in the judges file."]
    out += ["", "Cap the spend with --max-cost USD: a round whose worst case could cross it is not started."]
    return "\n".join(out) + "\n"


def _bound(tokens: int | None) -> str:
    return f" max {tokens:,} out" if tokens else ""


def _cache_lines(cache: dict[str, Any] | None) -> list[str]:
    """The expected cached share: of the input after the first call, what repeats an earlier call's prefix and
    what a vendor's cache is expected to serve of it."""
    if not cache or not cache.get("input_tokens_after_first"):
        return []
    expected, repeated = cache["expected_cached_share"], cache["repeated_prefix_share"]
    line = (
        f"Expected cached share: {expected:.0%} of the input tokens after the first call "
        f"(~{cache['expected_cached_tokens']:,} of ~{cache['input_tokens_after_first']:,}); "
        f"{repeated:.0%} repeat an earlier call's prefix"
    )
    if repeated > expected:
        line += f", and vendors cache a prefix of {cache['min_cached_tokens']:,} tokens or more"
    return ["", line + "."]


def _clarifications(most: int) -> str:
    """The clarifications a scenario may add: none for host seats (a reply moot cannot read is refused)."""
    return f" (+ up to {most} clarifications)" if most else ""


def dry_run_output(data: dict[str, Any], fmt: str) -> str:
    return to_json(data) if fmt == "json" else to_yaml(data) if fmt == "yaml" else dry_run_text(data)

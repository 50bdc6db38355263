"""A dry run, rendered: every planned call and the cost table of 1, 2 and all rounds (nothing was sent)."""

from __future__ import annotations

from typing import Any

from moot.reports.serialize import to_json, to_yaml


def _usd(v: float | None) -> str:
    return "?" if v is None else f"${v:.4f}" if v < 0.1 else f"${v:.2f}"


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
    out += ["", "Calls per round (input tokens, typical cost / worst case):"]
    for c in data["calls"]:
        where = f"round {c['round']}" if c["round"] else "final"
        if not c["round"] and c.get("seat") == "rubric":  # `--criteria auto`: the rubric, before round 1
            where = "rubric"
        elif c.get("phase"):
            where += f" {c['phase']}"
        elif not c["round"]:
            where = "synthesis"
        out.append(
            f"  {where:22} {c['seat']:13} {c['model']:30} ~{c['input_tokens']:>7,} tok  "
            f"{_usd(c['typical_usd']):>8} / {_usd(c['worst_usd'])}"
        )
    out += [
        "",
        "| Scenario | Rounds | Judge Calls | Estimated Cost | Worst Case |",
        "|----------|--------|-------------|----------------|------------|",
    ]
    for s in data["scenarios"]:
        out.append(
            f"| {s['label']} | {s['rounds']} | {s['calls']} (+ up to {s['max_clarifications']} clarifications) "
            f"| ~{_usd(s['typical_usd'])} | {_usd(s['worst_usd'])} |"
        )
    unpriced = sorted({m for s in data["scenarios"] for m in s["unpriced"]})
    if unpriced:
        out += ["", f"No price known for {', '.join(unpriced)}: add it under 'pricing:' in the judges file."]
    out += ["", "Cap the spend with --max-cost USD: a round whose worst case could cross it is not started."]
    return "\n".join(out) + "\n"


def dry_run_output(data: dict[str, Any], fmt: str) -> str:
    return to_json(data) if fmt == "json" else to_yaml(data) if fmt == "yaml" else dry_run_text(data)

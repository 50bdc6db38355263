"""`--format github`: a result as GitHub-flavoured Markdown, for a job summary or a pull-request comment.

Pure functions of the result's JSON. The facts every protocol shares (verdict, confidence, rounds, judges'
status, spend) are read from the result envelope (`moot.schemas.envelope`), the rest from each protocol's
own keys. Judge and artifact text is untrusted here too: HTML is escaped,
table cells cannot break their table, `@name` cannot notify anyone, and the whole is inert in a CI log
(`safe_text`: no control character, no line that the runner would read as a workflow command).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from moot.schemas.envelope import headline
from moot.schemas.safe_text import safe_text

ICONS = {"PASS": "✅", "CONDITIONAL": "⚠️", "FAIL": "❌"}


def md(text: Any) -> str:
    """Untrusted text made inert in GitHub Markdown: no HTML, no mentions."""
    s = "" if text is None else str(text)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return s.replace("@", "@\u200b")


def cell(text: Any) -> str:
    """Untrusted text inside a table cell: on one line, pipes escaped."""
    return md(text).replace("|", "\\|").replace("\r", "").replace("\n", "<br>")


def _num(value: Any) -> str:
    return f"{value:g}" if isinstance(value, int | float) and not isinstance(value, bool) else "-"


def _d(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def _l(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def _cost(result: Mapping[str, Any]) -> str:
    sp = _d(result.get("spend"))
    if not sp:
        return ""
    return (
        f"<sub>{sp.get('calls', 0)} calls · {sp.get('input_tokens', 0)} input / {sp.get('output_tokens', 0)} output "
        f"tokens · ${float(sp.get('cost_usd') or 0):.4f} · {float(sp.get('wall_seconds') or 0):.1f}s · "
        f"debate `{md(result.get('debate_id', ''))}`</sub>"
    )


def _verdict(result: Mapping[str, Any]) -> dict[str, Any]:
    return _d(result.get("verdict"))


def _rounds(result: Mapping[str, Any]) -> str:
    return f"{result.get('rounds_completed', '?')} round(s)"


def _not_ok(result: Mapping[str, Any]) -> list[str]:
    """One bullet per judge whose voice did not count to the end: its status and why."""
    out = []
    for j in (_d(x) for x in _l(result.get("judges"))):
        if j.get("status", "ok") != "ok":
            why = f": {md(j.get('reason'))}" if j.get("reason") else ""
            out.append(f"- {md(j.get('seat'))} ({md(j.get('model'))}): {md(j.get('status'))}{why}")
    return [*out, ""] if out else []


def _bullets(title: str, items: Any, line: Callable[[dict[str, Any]], str]) -> list[str]:
    """A `### title` list with one bullet per record; nothing at all when there are none."""
    found = [_d(x) for x in _l(items)]
    return ["### " + title, "", *(f"- {line(x)}" for x in found), ""] if found else []


def _recommendation(r: dict[str, Any]) -> str:
    return f"**{md(r.get('priority'))}** {md(r.get('action'))}" + (
        f" — {md(r.get('rationale'))}" if r.get("rationale") else ""
    )


def _critical(c: dict[str, Any]) -> str:
    return f"{md(c.get('id', ''))} {md(c.get('finding', ''))}" + (f" ({md(c.get('state'))})" if c.get("state") else "")


def evaluation_markdown(result: Mapping[str, Any]) -> str:
    s = _d(result.get("summary"))
    v = _verdict(result)
    verdict = str(v.get("answer") or "?")
    rounds = _rounds(result) + (
        f", consensus in round {result['consensus_reached_at']}" if result.get("consensus_reached_at") else ""
    )
    lines = [
        f"## {ICONS.get(verdict, '❔')} moot evaluate: {md(verdict)} ({_num(s.get('consensus_score'))}/5)",
        "",
        f"**{md(result.get('artifact_evaluated', ''))}**"
        + (f": {md(result.get('task'))}" if result.get("task") else ""),
        "",
        f"{md(s.get('consensus_method', '-'))} · confidence {md(v.get('confidence', '-'))} · {rounds}",
        "",
    ]
    judges = [_d(j) for j in _l(result.get("judges")) if _d(j).get("final_score") is not None]
    if judges:
        lines.append(
            "| Criterion | " + " | ".join(cell(f"{j.get('judge')} ({j.get('stance')})") for j in judges) + " |"
        )
        lines.append("|---" * (len(judges) + 1) + "|")
        for key in _d(result.get("criteria")):
            scores = [_num(_d(j.get("final_scores")).get(key)) for j in judges]
            lines.append(f"| {cell(key)} | " + " | ".join(scores) + " |")
        lines.append("| **overall** | " + " | ".join(f"**{_num(j.get('final_score'))}**" for j in judges) + " |")
        lines.append("")
    lines += _not_ok(result)
    lines += _bullets("Recommendations", result.get("recommendations"), _recommendation)
    lines += _bullets("Critical findings", result.get("critical_findings"), _critical)
    lines += _bullets("Needs human review", result.get("user_attention_needed"), lambda a: md(a.get("issue")))
    details = [
        ("Majority opinion", result.get("majority_opinion")),
        ("Minority opinion", result.get("minority_opinion")),
    ]
    for title, text in details:
        if text:
            lines += [f"<details><summary>{title}</summary>", "", md(text), "", "</details>", ""]
    progression = _d(result.get("round_progression"))
    if progression:
        lines += [
            "<details><summary>Rounds</summary>",
            "",
            "| Round | Scores | Range | Consensus |",
            "|---|---|---|---|",
        ]
        for name, p in progression.items():
            pd = _d(p)
            agreed = "yes" if pd.get("consensus") else cell("; ".join(map(str, _l(pd.get("reasons")))))
            lines.append(
                f"| {cell(name.replace('_', ' '))} | {', '.join(_num(x) for x in _l(pd.get('scores')))} | "
                f"{_num(pd.get('range'))} | {agreed} |"
            )
        lines += ["", "</details>", ""]
    cost = _cost(result)
    if cost:
        lines += [cost, ""]
    return "\n".join(lines)


def generic_markdown(result: Mapping[str, Any]) -> str:
    """Any protocol without a renderer of its own: its headline keys, then the rest as a list."""
    protocol = md(result.get("protocol", "debate"))
    head = headline(result) or _verdict(result).get("answer") or ""
    lines = [f"## moot {protocol}: {md(head)}", ""]
    for key, value in result.items():
        if key in ("debate_id", "protocol", "spend", "verdict", "judges") or value in (None, "", [], {}):
            continue
        if isinstance(value, str | int | float | bool):
            lines.append(f"- **{md(key.replace('_', ' '))}**: {md(value)}")
    lines.append("")
    cost = _cost(result)
    if cost:
        lines += [cost, ""]
    return "\n".join(lines)


def decision_markdown(result: Mapping[str, Any]) -> str:
    options = {str(_d(o).get("id")): _d(o) for o in _l(result.get("options"))}
    v = _verdict(result)
    chosen = v.get("answer")
    if chosen:
        label = _d(options.get(str(chosen))).get("label")
        head = f"✅ moot decide: option {md(chosen)}" + (f" ({md(label)})" if label else "")
    else:
        head = f"⚠️ moot decide: {md(headline(result) or '?')}"
    lines = [
        f"## {head}",
        "",
        f"**{md(result.get('question', ''))}**",
        "",
        f"confidence {md(v.get('confidence', '-'))} · {_rounds(result)}",
        "",
        *_not_ok(result),
        "| Option | Label | Recommended by |",
        "|---|---|---|",
    ]
    distribution = _d(result.get("distribution"))
    for oid, o in options.items():
        by = ", ".join(map(str, _l(distribution.get(oid))))
        lines.append(f"| {cell(oid)} | {cell(o.get('label', ''))} | {cell(by) or '-'} |")
    lines.append("")
    perspectives = _d(result.get("perspectives"))
    if perspectives:
        lines += ["### Perspectives", ""] + [f"- **{md(k)}**: {md(v)}" for k, v in perspectives.items()] + [""]
    changes = [_d(c) for c in _l(result.get("change_log"))]
    if changes:
        lines += ["### Change log", ""]
        lines += [
            f"- {md(c.get('judge'))}, round {md(c.get('round'))}: {md(c.get('from'))} → {md(c.get('to'))}: "
            f"{md(c.get('reason'))}"
            for c in changes
        ]
        lines.append("")
    if result.get("message"):
        lines += [md(result.get("message")), ""]
    cost = _cost(result)
    return "\n".join([*lines, cost, ""] if cost else lines)


def challenge_markdown_gh(result: Mapping[str, Any]) -> str:
    outcome = headline(result) or "?"
    v = _verdict(result)
    lines = [
        f"## {'✅' if outcome == 'CONSENSUS' else '⚠️'} moot challenge: {md(outcome)}",
        "",
        f"**{md(result.get('topic', ''))}**",
        "",
        f"**Final position:** {md(result.get('final_position', ''))}",
        "",
        f"confidence {md(v.get('confidence', '-'))} · {_rounds(result)}"
        + (" · fast exit" if result.get("fast_exit") else ""),
        "",
        *_not_ok(result),
    ]
    if result.get("what_changed"):
        lines += ["### What changed", ""] + [f"- {md(x)}" for x in _l(result.get("what_changed"))] + [""]
    if result.get("core_disagreement"):
        lines += ["### Core disagreement", "", md(result.get("core_disagreement")), ""]
    rows = [_d(a) for a in _l(result.get("assumptions"))]
    if rows:
        lines += ["| Assumption | Held by | Supports |", "|---|---|---|"]
        lines += [
            f"| {cell(a.get('assumption'))} | {cell(a.get('held_by'))} | {cell(a.get('supports'))} |" for a in rows
        ]
        lines.append("")
    cost = _cost(result)
    return "\n".join([*lines, cost, ""] if cost else lines)


GITHUB_RENDERERS: dict[str, Callable[[Mapping[str, Any]], str]] = {
    "evaluate": evaluation_markdown,
    "decide": decision_markdown,
    "challenge": challenge_markdown_gh,
}


def github_markdown(result: Mapping[str, Any]) -> str:
    renderer = GITHUB_RENDERERS.get(str(result.get("protocol", "")), generic_markdown)
    return safe_text(renderer(result))

"""`--format github`: a result as GitHub-flavoured Markdown, for a job summary or a pull-request comment.

Pure functions of the result's JSON: the pieces every protocol's renderer is made of (each protocol's own
is its `ProtocolSpec.github_markdown`), and the rendering of a protocol without one. The facts every
protocol shares (verdict, confidence, rounds, judges' status, spend) are read from the result envelope
(`moot.schemas.envelope`). Judge and artifact text is untrusted here too: each piece is one line; HTML is
escaped; it makes no link, image, heading, list or quote; `@name` notifies no one and `#12` or
`owner/repo#12` refers to no issue; table cells cannot break their table; and the whole is inert in a CI
log (`safe_text`: no control character, no line that the runner would read as a workflow command).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from moot.schemas.envelope import headline
from moot.schemas.safe_text import safe_text

ZWSP = "\u200b"  # a zero-width space: shown as nothing, it breaks what GitHub would otherwise link
_AUTOLINKS = re.compile(r"(?i)(?<=[a-z])(?=://)|(?<=www)(?=\.)")  # https://..., www.example.org
_REFERENCES = re.compile(r"(?i)(#|\bgh-)(?=\d)")  # #12, owner/repo#12, GH-12
# a heading, list, rule or fence at the start (a quote's `>` is escaped as HTML)
_BLOCK_START = re.compile(r"^(\s*)([#+*=|`~-]|\d+(?=[.)]))")


def md(text: Any) -> str:
    """Untrusted text made inert in GitHub Markdown, on one line: no HTML, link, image, heading, list, quote,
    mention or cross-reference."""
    s = "" if text is None else str(text)
    s = " ".join(s.split("\n")).replace("\r", " ")
    s = _BLOCK_START.sub(
        lambda m: m.group(1) + (m.group(2) + "\\" if m.group(2)[0].isdigit() else "\\" + m.group(2)), s
    )
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    s = s.replace("[", "\\[").replace("]", "\\]")
    s = _AUTOLINKS.sub(ZWSP, s)
    s = _REFERENCES.sub(lambda m: m.group(1) + ZWSP, s)
    return s.replace("@", "@" + ZWSP)


def cell(text: Any) -> str:
    """Untrusted text inside a table cell: on one line, pipes escaped."""
    return md(text).replace("|", "\\|").replace("\r", "").replace("\n", "<br>")


def num(value: Any) -> str:
    return f"{value:g}" if isinstance(value, int | float) and not isinstance(value, bool) else "-"


def as_dict(value: Any) -> dict[str, Any]:
    return dict(value) if isinstance(value, Mapping) else {}


def as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def cost_line(result: Mapping[str, Any]) -> str:
    sp = as_dict(result.get("spend"))
    if not sp:
        return ""
    return (
        f"<sub>{sp.get('calls', 0)} calls · {sp.get('input_tokens', 0)} input / {sp.get('output_tokens', 0)} output "
        f"tokens · ${float(sp.get('cost_usd') or 0):.4f} · {float(sp.get('wall_seconds') or 0):.1f}s · "
        f"debate `{md(result.get('debate_id', ''))}`</sub>"
    )


def verdict_of(result: Mapping[str, Any]) -> dict[str, Any]:
    return as_dict(result.get("verdict"))


def rounds_text(result: Mapping[str, Any]) -> str:
    return f"{result.get('rounds_completed', '?')} round(s)"


def status_lines(result: Mapping[str, Any], extra: str = "") -> list[str]:
    """Under a comment's heading: the verdict's confidence and the rounds done (then `extra`), and one bullet
    per judge whose voice did not count to the end."""
    confidence = md(verdict_of(result).get("confidence", "-"))
    return [f"confidence {confidence} · {rounds_text(result)}{extra}", "", *not_ok_lines(result)]


def comment_text(lines: list[str], result: Mapping[str, Any]) -> str:
    """A comment's lines as its text, ending with the cost line when the result has its spend."""
    cost = cost_line(result)
    return "\n".join([*lines, cost, ""] if cost else lines)


def not_ok_lines(result: Mapping[str, Any]) -> list[str]:
    """One bullet per judge whose voice did not count to the end: its status and why."""
    out = []
    for j in (as_dict(x) for x in as_list(result.get("judges"))):
        if j.get("status", "ok") != "ok":
            why = f": {md(j.get('reason'))}" if j.get("reason") else ""
            out.append(f"- {md(j.get('seat'))} ({md(j.get('model'))}): {md(j.get('status'))}{why}")
    return [*out, ""] if out else []


def bullets(title: str, items: Any, line: Callable[[dict[str, Any]], str]) -> list[str]:
    """A `### title` list with one bullet per record; nothing at all when there are none."""
    found = [as_dict(x) for x in as_list(items)]
    return ["### " + title, "", *(f"- {line(x)}" for x in found), ""] if found else []


def generic_markdown(result: Mapping[str, Any]) -> str:
    """Any protocol without a renderer of its own: its headline keys, then the rest as a list."""
    protocol = md(result.get("protocol", "debate"))
    head = headline(result, None)
    lines = [f"## moot {protocol}: {md(head)}", ""]
    for key, value in result.items():
        if key in ("debate_id", "protocol", "spend", "verdict", "judges") or value in (None, "", [], {}):
            continue
        if isinstance(value, str | int | float | bool):
            lines.append(f"- **{md(key.replace('_', ' '))}**: {md(value)}")
    lines.append("")
    cost = cost_line(result)
    if cost:
        lines += [cost, ""]
    return "\n".join(lines)


def render_github(result: Mapping[str, Any], renderer: Callable[[Mapping[str, Any]], str] | None = None) -> str:
    """A result as inert GitHub Markdown: through its protocol's own renderer (`ProtocolSpec.github_markdown`,
    which the caller looks up), else plainly."""
    return safe_text((renderer or generic_markdown)(result))

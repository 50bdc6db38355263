"""The position challenge's outcome as Markdown (seed 004's consensus / tradeoff formats) and as text.

Pure functions of a `ChallengeResult`. Judge text is quoted as it came (this is Markdown for a person,
not a prompt), but inert: no control character, no workflow command, HTML shown as text
(`inert_markdown`); table cells have their pipes and line breaks escaped so a reply cannot break the table.

`--format github` for a position challenge: the outcome and final position, what changed, the core
disagreement and the assumptions behind it (`ProtocolSpec.github_markdown`).

`moot challenge` at the terminal: the outcome on stdout (`--format markdown`: the tradeoff document
itself), and in `--output` too. This is the spec's `show` hook: the CLI lends it its output
(`moot.protocol.spec.Terminal`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from moot.protocol import Terminal, TextReport
from moot.protocols.challenge.schemas import OUTCOME_WORDS, ChallengeResult, PositionVersion
from moot.render.cost_table import spend_line
from moot.render.effect_text import effect_blocks
from moot.render.github import as_dict, as_list, cell, comment_text, md, status_lines
from moot.render.serialize import atomic_write
from moot.render.terminal import Faces, Markdown
from moot.schemas.envelope import headline
from moot.schemas.safe_text import inert_markdown, safe_text

# `markdown` is the tradeoff document itself; a dry run prints its plan as text for both Markdown formats
FORMATS = ("markdown",)


def show(result: ChallengeResult, fmt: str, options: Mapping[str, Any], terminal: Terminal) -> ChallengeResult:
    """`options`: the command's own (`output`, a file for the Markdown outcome)."""
    output = options.get("output")
    if output:
        atomic_write(Path(output), challenge_markdown(result))
    if fmt == "markdown":
        terminal.emit(challenge_markdown(result))
    else:
        terminal.emit(terminal.render(result, fmt))
    return result


def challenge_github(result: Mapping[str, Any]) -> str:
    outcome = headline(result, OUTCOME_WORDS) or "?"
    lines = [
        f"## {'✅' if outcome == 'CONSENSUS' else '⚠️'} moot challenge: {md(outcome)}",
        "",
        f"**{md(result.get('topic', ''))}**",
        "",
        f"**Final position:** {md(result.get('final_position', ''))}",
        "",
        *status_lines(result, " · fast exit" if result.get("fast_exit") else ""),
    ]
    if result.get("what_changed"):
        lines += ["### What changed", ""] + [f"- {md(x)}" for x in as_list(result.get("what_changed"))] + [""]
    if result.get("core_disagreement"):
        lines += ["### Core disagreement", "", md(result.get("core_disagreement")), ""]
    rows = [as_dict(a) for a in as_list(result.get("assumptions"))]
    if rows:
        lines += ["| Assumption | Held by | Supports |", "|---|---|---|"]
        lines += [
            f"| {cell(a.get('assumption'))} | {cell(a.get('held_by'))} | {cell(a.get('supports'))} |" for a in rows
        ]
        lines.append("")
    return comment_text(lines, result)


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _prose(text: str) -> str:
    """Judge text on a line of the plain-text outcome: on one line, otherwise as written (no Markdown escapes)."""
    return " ".join(text.split())


def _history(result: ChallengeResult, prose: Callable[[str], str] = _cell) -> list[str]:
    out = ["**Position history:**", ""]
    last = result.position_history[-1].version
    for v in result.position_history:
        out.append(f"- {_version_line(v, last, prose)}")
    return out


def _version_line(v: PositionVersion, last: int, prose: Callable[[str], str] = _cell) -> str:
    label = "opening" if v.version == 1 else f"after round {v.round}"
    if v.version == last and v.version > 1:
        label += ", final"
    line = f"v{v.version} ({label}, confidence {v.confidence}): {prose(v.position)}"
    if v.version > 1:
        if v.changed_because:
            why = "; ".join(
                f"{c.decision} {c.objection_id} from {c.raised_by}: {prose(c.objection)}" for c in v.changed_because
            )
            line += f" — Changed because: {why}"
        elif not v.changed:
            line += " — Unchanged: every objection rejected"
    return line


def challenge_markdown(result: ChallengeResult, *, plain: bool = False) -> str:
    """The outcome as Markdown (inert: for files, GitHub and the terminal's renderer), or `plain`: the same
    lines as text, judge text shown as written (control characters still stripped), as evaluate's text
    output shows it. Escaping is for what a renderer reads; only table cells keep their pipes escaped."""
    r = result
    prose = _prose if plain else _cell
    out = [f"## DEBATE OUTCOME: {r.outcome}", "", f"**Topic:** {prose(r.topic)}", ""]
    if r.outcome == "CONSENSUS":
        rounds = f"{r.rounds}" + (" (fast exit)" if r.fast_exit else "")
        out += [
            f"**Final position:** {r.final_position}",
            f"**Confidence:** {r.confidence}",
            f"**Rounds to consensus:** {rounds}",
            "**What changed:**" + ("" if r.what_changed else " nothing; the position held as stated"),
        ]
        out += [f"- {prose(c)}" for c in r.what_changed]
    else:
        out += [
            f"**Final position (contested):** {r.final_position}",
            f"**Confidence:** {r.confidence}",
            f"**Rounds:** {r.rounds} (max, no consensus)",
            f"**Core disagreement:** {r.core_disagreement}",
            "",
            "**Assumptions exposed:**",
            "",
            "| Assumption | Held by | Supports |",
            "|---|---|---|",
        ]
        out += [f"| {_cell(a.assumption)} | {a.held_by} | {a.supports} |" for a in r.assumptions]
        if not r.assumptions:
            out.append("| (no party stated its assumptions) | | |")
        if r.statements:
            out += ["", "**Why each party disagrees, and what would change its mind:**", ""]
            out += [
                f"- {s.seat}: {prose(s.why_disagree)} — would change its mind if: {prose(s.what_would_change_my_mind)}"
                for s in r.statements
            ]
    out += ["", *_history(r, prose)]
    grounded = [o for o in r.objections if o.grounded is not False]
    ungrounded = [o for o in r.objections if o.grounded is False]
    if grounded and ungrounded:
        out += ["", "**Objections grounded in a quote:**", ""] + [f"- {o.id} {prose(o.text)}" for o in grounded]
    if ungrounded:
        out += ["", "**Objections not grounded** (their quote is not in the position or context):", ""]
        out += [f"- {o.id} {prose(o.text)} ({o.ungrounded_reason})" for o in ungrounded]
    if r.skepticism:
        out += ["", "**Skepticism rule:**", ""] + [f"- {s}" for s in r.skepticism]
    out += ["", "**Challengers:**", ""]
    out += [f"- {c.seat}: {c.model} ({c.kind}) — {c.status}" for c in r.challengers]
    out += [f"- skipped {s}" for s in r.skipped_challengers]
    if r.notes:
        out += ["", "**Notes:**", ""] + [f"- {prose(n)}" for n in r.notes]
    text = "\n".join(out) + "\n"
    return safe_text(text) if plain else inert_markdown(text)


def challenge_report(result: ChallengeResult) -> TextReport:
    """The terminal form: the Markdown outcome (rendered at a terminal), then what the debate spent."""
    sp = result.spend
    spent = f"Debate {result.debate_id}: " + spend_line(sp).removeprefix("Spent: ")
    outcome = Faces(plain=challenge_markdown(result, plain=True), terminal=Markdown(challenge_markdown(result)))
    return TextReport("", blocks=[outcome, *effect_blocks(result.debate_effect), spent])

"""The position challenge's outcome as Markdown (seed 004's consensus / tradeoff formats) and as text.

Pure functions of a `ChallengeResult`. Judge text is quoted as it came (this is Markdown for a person,
not a prompt), but inert: no control character, no workflow command, HTML shown as text
(`inert_markdown`); table cells have their pipes and line breaks escaped so a reply cannot break the table.
"""

from __future__ import annotations

from moot.protocols.challenge.schemas import ChallengeResult, PositionVersion
from moot.reports.cost_table import spend_line
from moot.reports.effect_text import effect_blocks
from moot.reports.terminal import Markdown, TextReport
from moot.schemas.safe_text import inert_markdown


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _history(result: ChallengeResult) -> list[str]:
    out = ["**Position history:**", ""]
    last = result.position_history[-1].version
    for v in result.position_history:
        out.append(f"- {_version_line(v, last)}")
    return out


def _version_line(v: PositionVersion, last: int) -> str:
    label = "opening" if v.version == 1 else f"after round {v.round}"
    if v.version == last and v.version > 1:
        label += ", final"
    line = f"v{v.version} ({label}, confidence {v.confidence}): {_cell(v.position)}"
    if v.version > 1:
        if v.changed_because:
            why = "; ".join(
                f"{c.decision} {c.objection_id} from {c.raised_by}: {_cell(c.objection)}" for c in v.changed_because
            )
            line += f" — Changed because: {why}"
        elif not v.changed:
            line += " — Unchanged: every objection rejected"
    return line


def challenge_markdown(result: ChallengeResult) -> str:
    r = result
    out = [f"## DEBATE OUTCOME: {r.outcome}", "", f"**Topic:** {_cell(r.topic)}", ""]
    if r.outcome == "CONSENSUS":
        rounds = f"{r.rounds}" + (" (fast exit)" if r.fast_exit else "")
        out += [
            f"**Final position:** {r.final_position}",
            f"**Confidence:** {r.confidence}",
            f"**Rounds to consensus:** {rounds}",
            "**What changed:**" + ("" if r.what_changed else " nothing; the position held as stated"),
        ]
        out += [f"- {_cell(c)}" for c in r.what_changed]
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
                f"- {s.seat}: {_cell(s.why_disagree)} — would change its mind if: {_cell(s.what_would_change_my_mind)}"
                for s in r.statements
            ]
    out += ["", *_history(r)]
    if r.skepticism:
        out += ["", "**Skepticism rule:**", ""] + [f"- {s}" for s in r.skepticism]
    out += ["", "**Challengers:**", ""]
    out += [f"- {c.seat}: {c.model} ({c.kind}) — {c.status}" for c in r.challengers]
    out += [f"- skipped {s}" for s in r.skipped_challengers]
    if r.notes:
        out += ["", "**Notes:**", ""] + [f"- {_cell(n)}" for n in r.notes]
    return inert_markdown("\n".join(out) + "\n")


def challenge_report(result: ChallengeResult) -> TextReport:
    """The terminal form: the Markdown outcome (rendered at a terminal), then what the debate spent."""
    sp = result.spend
    spent = f"Debate {result.debate_id}: " + spend_line(sp).removeprefix("Spent: ")
    return TextReport("", blocks=[Markdown(challenge_markdown(result)), *effect_blocks(result.debate_effect), spent])

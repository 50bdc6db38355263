"""Renderings of an option-choice debate (seed 002): the judges' files, the decision record, terminal text.

On disk, as the seed lays them out under `{feature_dir}/sadd/`:

    debate-{question_id}-{stance}.md      a judge's round-1 recommendation
    debate-{question_id}-{stance}-r2.md   its round-2 response (-r3.md ... if more rounds are allowed)
    debate-{question_id}-decision.md      the decision record for people

Every file is a pure function of the debate's data and is written whole (atomically), so a resumed debate
rewrites the same bytes. The judges' files are written by `DecisionFiles`, a subscriber to the runner's
events, from the typed records the protocol emits; the names are in `moot.protocols.decide.schemas`, because the
prompts point each judge at the others' files.
"""

from __future__ import annotations

from pathlib import Path

from moot.protocols.decide.schemas import (
    DecideRoundRecord,
    DecisionOption,
    DecisionResult,
    record_file_path,
    round_file_path,
)
from moot.protocols.decide.text import round_cells
from moot.render.cost_table import cost_section
from moot.render.serialize import atomic_write, fence
from moot.schemas.events import Event
from moot.schemas.safe_text import inert_markdown, safe_text


def judge_round_markdown(rec: DecideRoundRecord) -> str:
    """One judge's file for one round: what it recommends and why, then its reply exactly as given (in a
    fence; the prose before it has no raw HTML, and neither part a control character)."""
    kind = "Independent Recommendation" if rec.round == 1 else "Adversarial Response"
    lines = [f"# {rec.title} Judge ({rec.judge}, {rec.model}): Round {rec.round}, {kind}", ""]
    lines += [f"Question: {rec.question}", ""]
    reply = rec.reply
    if reply is None:
        lines += ["**Recommendation**: none (no usable recommendation)", ""]
    else:
        lines.append(f"**Recommendation**: {reply.recommendation}")
        if reply.confidence:
            lines.append(f"**Confidence**: {reply.confidence}")
        if reply.changed_from:
            lines.append(f"**Changed from**: {reply.changed_from}. What convinced me: {reply.change_reason or '-'}")
        lines.append("")
        if reply.rationale:
            lines += ["## Rationale", "", reply.rationale, ""]
        if reply.assessments:
            lines += ["## Assessment of each option", ""]
            lines += [f"- **{oid}**: {text_}" for oid, text_ in reply.assessments.items()] + [""]
        if reply.challenges:
            lines += ["## Challenges", ""]
            lines += [f"- to **{c.judge}**: {c.argument}" for c in reply.challenges] + [""]
    if rec.note:
        lines += [f"> {rec.note}", ""]
    lines += ["## Reply as given", ""]
    return inert_markdown("\n".join(lines)) + "\n" + safe_text(fence(rec.text, "yaml")) + "\n"


def _options_lines(options: list[DecisionOption]) -> list[str]:
    return [f"- **{o.id}**: {o.text}" for o in options]


def _outcome_line(result: DecisionResult) -> str:
    if result.consensus:
        return (
            f"**RECOMMENDED: {result.recommended_option}** (confidence {result.confidence}, consensus in round "
            f"{result.consensus_reached_at})"
        )
    line = f"**CONTESTED** (confidence {result.confidence}): {result.message}"
    if result.user_choice:
        line += f"\n\n**Decided by the user: {result.user_choice}**"
    return line


def decision_record(result: DecisionResult) -> str:
    """The Markdown decision record: question, options, each judge per round, change log, outcome; judge
    text in it is inert and HTML is shown as text (`inert_markdown`)."""
    lines = [
        f"# Decision record: {result.question_id}",
        "",
        f"- Debate: {result.debate_id}",
        f"- Question: {result.question}",
        f"- Consensus threshold: {result.consensus_threshold:g}",
        f"- Rounds: {result.rounds_completed}",
        "",
        "## Options",
        "",
        *_options_lines(result.options),
        "",
    ]
    lines += _rounds_lines(result) + _change_log_lines(result)
    lines += ["", "## Perspectives", ""]
    lines += [f"- **{judge}**: {text}" for judge, text in result.perspectives.items()]
    lines += ["", "## Outcome", "", _outcome_line(result), ""]
    if not result.consensus and result.distribution:
        lines += ["Distribution:", ""]
        lines += [f"- {o}: {', '.join(js)}" for o, js in result.distribution.items()] + [""]
    if result.notes:
        lines += ["## Notes", ""] + [f"- {n}" for n in result.notes] + [""]
    return inert_markdown("\n".join(lines + _cost_lines(result)))


def _rounds_lines(result: DecisionResult) -> list[str]:
    """The table of each judge's recommendation per round, then what each round came to."""
    rounds = list(result.rounds)
    lines = [
        "## Recommendations per round",
        "",
        "| Judge | Stance | Model | " + " | ".join(r.replace("_", " ") for r in rounds) + " |",
        "|" + "---|" * (3 + len(rounds)),
    ]
    for j in result.judges:
        cells = round_cells(j, rounds)
        lines.append(f"| {j.judge} | {j.stance} | {j.answered_by or j.model} | " + " | ".join(cells) + " |")
    lines.append("")
    for name, tally in result.rounds.items():
        spread = "; ".join(f"{o}: {', '.join(js)}" for o, js in tally.distribution.items()) or "none"
        status = f"consensus on {tally.option}" if tally.consensus else "no consensus"
        lines.append(f"- {name.replace('_', ' ')}: {spread} ({status}, top share {tally.share:.0%})")
    return lines


def _change_log_lines(result: DecisionResult) -> list[str]:
    lines = ["", "## Change log", ""]
    if not result.change_log:
        return [*lines, "No judge changed its recommendation."]
    return lines + [
        f"- {e.judge}, round {e.round}: {e.from_} -> {e.to}. Reason: {e.reason or '-'}" for e in result.change_log
    ]


def _cost_lines(result: DecisionResult) -> list[str]:
    sp = result.spend
    return cost_section(sp, f"{sp.clarifications} clarifications, {sp.retries} transport retries")


class DecisionFiles:
    """Writes a debate's files under `{feature_dir}/sadd/`: each judge's round as its record arrives (a
    subscriber to the runner's events), and the decision record once the result is known."""

    def __init__(self, directory: Path, question_id: str) -> None:
        self.directory = directory
        self.question_id = question_id
        self.written: list[str] = []  # the judges' files, in the order written

    def __call__(self, event: Event) -> None:
        record = event.data.get("record") if event.kind == "record" else None
        if isinstance(record, DecideRoundRecord):
            self.written.append(str(self.write_round(record.judge, record.round, judge_round_markdown(record))))

    def round_path(self, judge: str, round_no: int) -> Path:
        return round_file_path(self.directory, self.question_id, judge, round_no)

    @property
    def record_path(self) -> Path:
        return record_file_path(self.directory, self.question_id)

    def write_round(self, judge: str, round_no: int, markdown: str) -> Path:
        path = self.round_path(judge, round_no)
        atomic_write(path, markdown)
        return path

    def finish(self, result: DecisionResult) -> DecisionResult:
        """The decision record, written once the result is known; the result lists every file."""
        result.files = [*self.written, str(self.record_path)]
        self.write_record(result)
        return result

    def write_record(self, result: DecisionResult) -> Path:
        atomic_write(self.record_path, decision_record(result))
        return self.record_path

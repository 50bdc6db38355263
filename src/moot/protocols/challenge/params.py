"""`challenge` as its users start it: the command's and MCP tool's parameters (written once), a batch item's
fields and the demo's inputs.

`challenge`'s arguments (`ChallengeArgs`), declared once for `moot.challenge`, `moot challenge` and the MCP
tool `challenge`. `--output` is the command's alone: it is read by `moot.protocols.challenge.text.show`,
which also prints `--format markdown`.

How `moot batch` reads a challenge item: its context files to resolve and the topic it must have.

`moot demo challenge`: a scripted proponent defends sharding the orders table against three scripted
challengers, accepting one objection and answering another in part.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from moot.protocol import Arg, BatchSpec, DemoSpec, JudgeLike, PanelFile, Prepared, ProtocolArgs, UsageError, arg
from moot.protocol.args import REDACTING
from moot.protocol.spec import CommandWords
from moot.protocols.challenge.schemas import MAX_ROUNDS, ROUNDS, ChallengeSettings
from moot.schemas.config import Artifact

TOPIC = "Should the orders table be sharded, and by what key?"

FOLDER = Path(__file__).resolve().parent / "demo"


def demo_arguments(judges: Any, reports_dir: str) -> dict[str, Any]:
    """The bundled context under its own name (`context.md`, as the exported command reads it), not the
    path where the package is installed: that path names the user's home, and the prompt goes to every
    judge of a `--judges` panel."""
    context = Artifact(path="context.md", text=(FOLDER / "context.md").read_text(encoding="utf-8"))
    return {"topic": TOPIC, "context": [context], "judges": judges}


DEMO = DemoSpec(
    folder=FOLDER,
    argv=("challenge", TOPIC, "--judges", "judges.yaml", "--context", "context.md"),
    gate="--require CONSENSUS",
    arguments=demo_arguments,
    announce="moot demo: challenging a position with {judges} judges",
)


def _required(data: Mapping[str, Any], where: str) -> None:
    if not isinstance(data.get("topic"), str) or not data["topic"].strip():
        raise UsageError(f"{where}: a challenge item needs 'topic' (the position or question, as text)")


BATCH = BatchSpec(input_paths=("context",), required=_required, rounds=(MAX_ROUNDS, ROUNDS))


# what its command and tool say of themselves (`moot.protocol.spec.CommandWords`)
WORDS = CommandWords(
    description=(
        "Defend a position against challengers attacking it in parallel; end in consensus or a tradeoff "
        "document with the assumptions behind the disagreement."
    ),
    mcp_description=(
        "Defend a position against challengers attacking it in parallel: CONSENSUS, or a TRADEOFF "
        "with the assumptions behind the disagreement."
    ),
    mcp_summary="`challenge` has a proponent defend a position against challengers: CONSENSUS or a TRADEOFF document.",
    dry_run_help="Print the calls and cost estimate (fast exit to all rounds); spend nothing.",
    max_cost_help="USD cap: no confrontation round starts whose worst case could cross it.",
)


def _none_if_empty(given: list[str] | None, _values: Mapping[str, Any]) -> list[str] | None:
    """An empty list of context files or challengers is none given (the defaults apply)."""
    return given or None


class ChallengeArgs(ProtocolArgs):
    """What a challenge takes, declared once: `moot.challenge`, `moot challenge` and the MCP tool
    `challenge` are built from it (`moot.protocol.args`). `timeout_per_cli` and `min_challengers` are the
    API's alone, `--output` the command's."""

    settings = ChallengeSettings  # its keys in a judges file

    topic: str = arg(details=Arg(help="The question or claim to take a position on.", argument=True, positional=True))
    context: str | Path | Sequence[str | Path | Artifact] | None = arg(
        None,
        Arg(
            type=list[str] | None,
            flags=("--context", "-c"),
            help="File, folder or glob the debate should read; repeatable.",
            mcp_help="Files, folders or globs the debate should read.",
            convert=_none_if_empty,
        ),
    )
    proponent: JudgeLike | None = arg(
        None,
        Arg(
            type=str | None,
            help="Who forms and defends the position: a model, an agent CLI (claude, ...), or 'host' (you: the "
            "debate waits for your replies; submit_replies / moot reply).",
        ),
    )
    challengers: Sequence[JudgeLike] | None = arg(
        None,
        Arg(
            name="challenger",
            type=list[str] | None,
            help="A challenger: a model, an agent CLI (gemini, codex, qwen, claude) or 'host'; repeatable.",
            mcp_help="Challengers: models, agent CLIs (gemini, codex, qwen, claude) or 'host' (your replies).",
            convert=_none_if_empty,
        ),
    )
    judges: str | Path | PanelFile | None = arg(
        None,
        Arg(
            type=str | None,
            help="Judges file with 'proponent:' and 'challengers:' (and max_rounds, ...), or 'host': every seat yours.",
        ),
    )
    max_rounds: int | None = arg(None, Arg(help="Most confrontation rounds (default 5)."))
    timeout_per_cli: float | None = arg(None, Arg(cli=False, mcp=False))
    min_challengers: int | None = arg(None, Arg(cli=False, mcp=False))
    output: str | None = arg(
        None,
        Arg(flags=("--output", "-o"), help="Also write the Markdown outcome to this file.", mcp=False, api=False),
    )
    redact_secrets: bool = arg(False, REDACTING)


def progress_total(_prepared: Prepared, values: Mapping[str, Any]) -> int | None:
    """The MCP tool's progress runs to the rounds asked for (none when not given), as it always has."""
    total: int | None = values.get("max_rounds")
    return total


def reply_minimum() -> int:
    """The smallest output bound the challenge's replies need (every phase, two objections to answer)."""
    from moot.protocols.challenge.calls import challenge_reply_schema
    from moot.schemas.reply_bounds import reply_minimum as minimum

    schemas = [challenge_reply_schema(p) for p in ("opening", "challenge", "rebuttal")]
    schemas += [challenge_reply_schema("confront", objection_ids=["O1", "O2"])]
    schemas += [challenge_reply_schema("assumptions", proponent=True)]
    return minimum(*schemas)

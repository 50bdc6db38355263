"""`decide` as its users start it: the command's and MCP tool's parameters (written once), a batch item's
fields, the bench's pairwise role and the demo's inputs.

`decide`'s arguments (`DecideArgs`), declared once for `moot.decide`, `moot decide` and the MCP tool `decide`.

How `moot batch` and `moot bench` read a decide item: a debate context as a file or inline, options as
an object, and the pairwise suites the bench runs with it (each judge graded for correctness).

`moot demo decide`: scripted Risk, Value and Effort judges split on a question in round 1, and one of
them documents its change of mind in round 2.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from moot.protocol import Arg, BatchSpec, BenchRole, DemoSpec, JudgeLike, PanelFile, ProtocolArgs, UsageError, arg
from moot.protocol.args import REDACTING
from moot.protocol.spec import CommandWords
from moot.protocols.decide.schemas import DebateConfig, DebateContext, DecideSettings, DecisionOption
from moot.protocols.decide.stances import DEFAULT_MODEL

DEMO = DemoSpec(
    folder=Path(__file__).resolve().parent / "demo",
    argv=("decide", "--debate-context", "question.yaml", "--judges", "judges.yaml"),
    gate="--require RECOMMENDED",
    run_argv=("--no-input",),  # a demo never stops to ask the person watching it
)


def _required(data: Mapping[str, Any], where: str) -> None:
    if data.get("debate_context") is None:
        for key in ("question", "options"):
            if not data.get(key):
                raise UsageError(f"{where}: a decide item needs '{key}' (or a 'debate_context')")


def _arguments(arguments: dict[str, Any], item_id: str, base: Path, where: str) -> dict[str, Any]:
    """Options as an object mapping id to text (or to {label, description}), or the API's own list."""
    if "options" not in arguments:
        return arguments
    value = arguments["options"]
    if isinstance(value, Mapping):
        options = [{"id": str(k), **(dict(v) if isinstance(v, Mapping) else {"label": v})} for k, v in value.items()]
        return {**arguments, "options": options}
    if isinstance(value, list):
        return arguments
    raise UsageError(f"{where}: 'options' must be an object mapping id to text, or a list of options")


def _check_config(config: Mapping[str, Any]) -> None:
    DebateConfig.model_validate(config)


BATCH = BatchSpec(
    input_paths=("debate_context",),
    inline_inputs=True,  # a debate context may be the mapping itself
    output_paths=("feature_dir",),
    defaults={"write_files": False},  # the store keeps every decision; an item may still ask for files
    required=_required,
    arguments=_arguments,
)
BENCH = BenchRole("pairwise", default_model=DEFAULT_MODEL, check_config=_check_config)


# what its command and tool say of themselves (`moot.protocol.spec.CommandWords`)
WORDS = CommandWords(
    description="Decide between options by an adversarial debate of Risk, Value and Effort judges.",
    mcp_description=(
        "Decide between options by an adversarial debate of Risk, Value and Effort judges.\n\n"
        "A contested result is returned as it stands (outcome CONTESTED) for the person to choose."
    ),
    mcp_summary=(
        "`decide` debates the options of a question (Risk, Value, Effort) and recommends one or says it is contested."
    ),
)


def _write_files(no_files: bool | None, values: Mapping[str, Any]) -> bool:
    """`--no-files` as the API's `write_files`; the tool's default (None) writes files only where asked."""
    return values["feature_dir"] is not None if no_files is None else not no_files


class DecideArgs(ProtocolArgs):
    """What a decision takes, declared once: `moot.decide`, `moot decide` and the MCP tool `decide` are
    built from it (`moot.protocol.args`). `context` and `config` are the API's alone; `--no-input` the
    command's alone (read by `moot.protocols.decide.terminal.show`)."""

    settings = DecideSettings  # its keys in a judges file

    question: str | None = arg(None, Arg(flags=("--question", "-q"), help="The question to decide.", positional=True))
    options: Sequence[str | DecisionOption | Mapping[str, Any]] | None = arg(
        None,
        Arg(
            name="option",
            type=list[str] | None,
            flags=("--option", "-o"),
            positional=True,
            help="ID=LABEL[: description]; repeat for each option (two or more).",
            mcp_help="Options as 'ID=LABEL[: description]', two or more.",
        ),
    )
    context: str = arg("", Arg(cli=False, mcp=False))
    context_files: Sequence[str] | None = arg(
        None,
        Arg(
            name="context",
            type=list[str] | None,
            flags=("--context", "-c"),
            help="A file (or folder) of context, e.g. the spec.",
            mcp_help="Files (or folders) of context, e.g. the spec.",
        ),
    )
    debate_context: str | Path | Mapping[str, Any] | DebateContext | None = arg(
        None,
        Arg(
            type=str | None,
            help="A YAML file with a debate_context block (question, options; optionally debate_config).",
            mcp_help="A YAML file with a debate_context block (instead of question).",
        ),
    )
    judges: str | Path | PanelFile | Sequence[JudgeLike] | None = arg(
        None,
        Arg(
            type=str | None,
            help="Judges file (YAML): a judge list and/or a debate_config block; or 'host': every seat's reply "
            "is yours.",
            mcp_help="Judges file (YAML). Default: Risk, Value and Effort judges on sonnet. 'host': you give every "
            "seat's reply (the tool returns a waiting state; submit_replies continues it).",
        ),
    )
    config: DebateConfig | Mapping[str, Any] | None = arg(None, Arg(cli=False, mcp=False))
    threshold: float | None = arg(
        None,
        Arg(
            help="Consensus threshold in (0, 1] (default 0.67: two of three).",
            mcp_help="Consensus threshold in (0, 1] (default 0.67).",
        ),
    )
    question_id: str | None = arg(None, Arg(help="Names the files (default: from the question)."))
    feature_dir: str | Path | None = arg(
        None,
        Arg(
            type=str | None,
            help="Where the decision files go: FEATURE_DIR/sadd/ gets each judge's recommendation per round and "
            "the decision record (default: the context's feature_dir, else .specs).",
            mcp_help="The decision files (each judge's recommendation per round, the decision record) go to "
            "FEATURE_DIR/sadd/.",
        ),
    )
    write_files: bool = arg(
        True,
        Arg(
            name="no_files",
            type=bool,
            default=False,
            flags=("--no-files",),
            help="Write no files (the store keeps everything).",
            mcp_type=bool | None,
            mcp_default=None,  # a tool call writes files only where asked, as a batch item does
            mcp_help="Write no files. By default a tool call writes them only when feature_dir is given "
            "(the store keeps everything); false writes them to the default folder.",
            convert=_write_files,
        ),
    )
    no_input: bool = arg(
        False,
        Arg(
            flags=("--no-input",),
            help="Never ask; a contested result is returned as it stands.",
            mcp=False,  # a tool never asks: a contested result is returned for the person to choose
            api=False,
        ),
    )
    redact_secrets: bool = arg(False, REDACTING)


def reply_minimum() -> int:
    """The smallest output bound decide's replies need with two options and three judges."""
    from moot.protocols.decide.replies import decide_reply_schema
    from moot.schemas.reply_bounds import reply_minimum as minimum

    return minimum(*(decide_reply_schema(["A", "B"], round_no=n, others=["value", "effort"]) for n in (1, 2)))
